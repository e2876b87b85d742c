"""deepseek_v32 and deepseek_v4 against SGLang's DSML streaming-preamble suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_deepseekv32_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs, the chunkings it feeds
(every two-chunk split, 1/3/7/8-character chunks, a cut tag prefix) and the expected
calls and content; the code is ours. Every text goes through ``check_format`` (whole,
1-char, 7-char and random chunkings), and SGLang's chunkings are replayed as given and
compared with the one-shot result. SGLang runs each case on both detectors; so do we.
No difference from SGLang's expectations (the bare invoke, without its block, is a call
since this port).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.events import Text
from streamcall.formats.registry import tool_parser
from support import check_format, summary

PREAMBLE = "Let me look up the weather in Beijing for you."
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
BLOCKS = {"deepseek_v32": "function_calls", "deepseek_v4": "tool_calls"}
FORMATS = list(BLOCKS)


def invoke(city: str) -> str:
    return (
        '<｜DSML｜invoke name="get_weather">'
        f'<｜DSML｜parameter name="city" string="true">{city}</｜DSML｜parameter>'
        "</｜DSML｜invoke>"
    )


def wrapped(fmt: str, *cities: str) -> str:
    block = BLOCKS[fmt]
    return f"<｜DSML｜{block}>" + "".join(invoke(c) for c in cities) + f"</｜DSML｜{block}>"


def weather(*cities: str) -> list[tuple[str, dict[str, Any]]]:
    return [("get_weather", {"city": c}) for c in cities]


def _replay(fmt: str, pieces: list[str], one_shot: list[testing.Item]) -> None:
    got = testing.coalesce(testing.run(tool_parser(fmt, tools=TOOLS), pieces))
    assert got == one_shot, pieces


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("bare", [False, True], ids=["wrapped", "bare invoke"])
@given(data=st.data())
def test_sglang_prose_and_opener_in_one_delta(fmt: str, bare: bool, data: st.DataObject) -> None:
    text = PREAMBLE + (invoke("Beijing") if bare else wrapped(fmt, "Beijing"))
    assert summary(check_format(fmt, text, data, TOOLS)) == (PREAMBLE, weather("Beijing"))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("bare", [False, True], ids=["wrapped", "bare invoke"])
def test_sglang_prose_emitted_once_at_every_split_point(fmt: str, bare: bool) -> None:
    text = PREAMBLE + (invoke("Beijing") if bare else wrapped(fmt, "Beijing"))
    one_shot = check_format(fmt, text, None, TOOLS)
    for i in range(1, len(text)):
        _replay(fmt, [text[:i], text[i:]], one_shot)


@pytest.mark.parametrize("fmt", FORMATS)
def test_sglang_fixed_size_chunkings(fmt: str) -> None:
    text = PREAMBLE + wrapped(fmt, "Beijing")
    one_shot = check_format(fmt, text, None, TOOLS)
    for size in (1, 3, 7):
        _replay(fmt, testing.chunk_every(text, size), one_shot)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("prefix", ["<", "<｜"])
def test_sglang_partial_tag_prefix_held_back(fmt: str, prefix: str) -> None:
    full = wrapped(fmt, "Beijing")
    parser = tool_parser(fmt, tools=TOOLS)
    first = parser.feed(PREAMBLE + prefix)
    assert [e.text for e in first if isinstance(e, Text)] == [PREAMBLE]
    rest = parser.feed(full[len(prefix) :]) + parser.finish()
    assert summary(testing.coalesce(first + rest)) == (PREAMBLE, weather("Beijing"))


@pytest.mark.parametrize("fmt", FORMATS)
@given(data=st.data())
def test_sglang_literal_angle_bracket(fmt: str, data: st.DataObject) -> None:
    pieces = ["The check 3 <", " 5 held, done."]
    one_shot = check_format(fmt, "".join(pieces), data, TOOLS)
    assert one_shot == [("text", "The check 3 < 5 held, done.")]
    _replay(fmt, pieces, one_shot)
    prose = "Since 3 < 5 holds, calling the tool. "
    text = prose + wrapped(fmt, "Beijing")
    assert summary(check_format(fmt, text, data, TOOLS)) == (prose, weather("Beijing"))


@pytest.mark.parametrize("fmt", FORMATS)
@given(data=st.data())
def test_sglang_multiple_invokes_after_prose(fmt: str, data: st.DataObject) -> None:
    text = PREAMBLE + wrapped(fmt, "Beijing", "Tokyo")
    one_shot = check_format(fmt, text, data, TOOLS)
    assert summary(one_shot) == (PREAMBLE, weather("Beijing", "Tokyo"))
    _replay(fmt, testing.chunk_every(text, 8), one_shot)
