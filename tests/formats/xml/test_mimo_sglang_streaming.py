"""mimo against SGLang's MiMo streaming regression suite (SGLang #33186).

Cases are taken from SGLang's
``test/registered/unit/function_call/test_mimo_detector_streaming.py`` (Apache-2.0,
copyright the SGLang project): its call block, its texts and the chunkings it feeds
(the block whole, ``<tool`` cut off the end of the text, 1 and 7 characters); the code
is ours. Every text goes through ``check_format``, and each pinned chunking is replayed
and compared with the one-shot result. No deliberate differences.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import Text, ToolCallStart, testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

FMT = "mimo"
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "search",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    }
]
CALL_BLOCK = (
    "<tool_call>\n<function=search>\n<parameter=query>ls</parameter>\n</function>\n</tool_call>"
)


def _replay(pieces: list[str]) -> list[testing.Item]:
    return testing.coalesce(testing.run(tool_parser(FMT, tools=TOOLS), pieces))


def test_text_after_the_last_call_is_flushed() -> None:
    p = tool_parser(FMT, tools=TOOLS)
    first = p.feed(CALL_BLOCK)
    assert [e.name for e in first if isinstance(e, ToolCallStart)] == ["search"]
    second = p.feed("Done, files are listed.")
    assert "".join(e.text for e in second if isinstance(e, Text)) == "Done, files are listed."
    text = CALL_BLOCK + "Done, files are listed."
    assert _replay([CALL_BLOCK, "Done, files are listed."]) == check_format(FMT, text, None, TOOLS)


def test_cut_start_token_is_held_not_leaked() -> None:
    p = tool_parser(FMT, tools=TOOLS)
    first = p.feed("I will run it.\n<tool")
    assert first == [Text("I will run it.\n")]
    second = p.feed(CALL_BLOCK[len("<tool") :]) + p.finish()
    assert [e.name for e in second if isinstance(e, ToolCallStart)] == ["search"]
    assert not any(isinstance(e, Text) and "<tool" in e.text for e in first + second)
    text = "I will run it.\n" + CALL_BLOCK
    assert summary(check_format(FMT, text, None, TOOLS)) == (
        "I will run it.\n",
        [("search", {"query": "ls"})],
    )


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("Let me check.\n" + CALL_BLOCK, "Let me check.\n"),
        (CALL_BLOCK + "\nand also\n" + CALL_BLOCK, "\nand also\n"),
    ],
)
@given(data=st.data())
def test_streaming_matches_one_shot(text: str, content: str, data: st.DataObject) -> None:
    items = check_format(FMT, text, data, TOOLS)  # 1 and 7 characters among the chunkings
    calls = [("search", {"query": "ls"})] * text.count(CALL_BLOCK)
    assert summary(items) == (content, calls)
