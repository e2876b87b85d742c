"""deepseek_v31 against SGLang's ``DeepSeekV31Detector`` unit suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_deepseekv31_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs, the chunkings it feeds and
the expected calls and content; the code is ours. Every text goes through
``check_format`` (whole, 1-char, 7-char and random chunkings), and SGLang's own
chunkings (empty chunks included) are replayed as given and compared with the one-shot
result. No difference from SGLang's expectations.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.events import Text
from streamcall.formats.registry import tool_parser
from support import check_format, summary

B = "<｜tool▁calls▁begin｜>"
E = "<｜tool▁calls▁end｜>"
CB = "<｜tool▁call▁begin｜>"
CE = "<｜tool▁call▁end｜>"
SEP = "<｜tool▁sep｜>"

TOOLS = [
    {
        "type": "function",
        "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {}}},
    }
]
PREFIX = "Let me check the weather.\n"
CALL = f'{CB}get_weather{SEP}{{"city": "Tokyo"}}{CE}'


def _replay(pieces: list[str]) -> list[testing.Item]:
    items = check_format("deepseek_v31", "".join(pieces), None, TOOLS)
    assert testing.coalesce(testing.run(tool_parser("deepseek_v31", tools=TOOLS), pieces)) == items
    return items


@pytest.mark.parametrize("outer", [B, ""])
@pytest.mark.parametrize("where", ["start", "after prefix", "after outer marker"])
@given(data=st.data())
def test_sglang_text_before_tool_call_is_emitted_once(
    outer: str, where: str, data: st.DataObject
) -> None:
    # The section start is sometimes lost: a call start opens the section by itself.
    text = PREFIX + outer + CALL
    split = {"start": 0, "after prefix": len(PREFIX), "after outer marker": len(PREFIX + outer)}
    pieces = [text[: split[where]], text[split[where] :], "", ""]
    assert summary(_replay(pieces)) == (PREFIX, [("get_weather", {"city": "Tokyo"})])
    check_format("deepseek_v31", text, data, TOOLS)


def test_sglang_prefix_is_not_repeated_while_arguments_arrive() -> None:
    pieces = [
        f"Checking... {B}",
        f'{CB}get_weather{SEP}{{"city":',
        f' "Tokyo"}}{CE}',
        E,
    ]
    assert summary(_replay(pieces)) == ("Checking... ", [("get_weather", {"city": "Tokyo"})])
    # As in SGLang, the prose is out with the first chunk, and only there.
    parser = tool_parser("deepseek_v31", tools=TOOLS)
    texts = [[e.text for e in parser.feed(p) if isinstance(e, Text)] for p in pieces]
    texts.append([e.text for e in parser.finish() if isinstance(e, Text)])
    assert texts == [["Checking... "], [], [], [], []]
