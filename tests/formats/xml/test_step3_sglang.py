"""step3 against SGLang's ``Step3Detector`` unit suite (parameterless calls, several
calls in one increment).

Cases are taken from SGLang's ``test/registered/unit/function_call/test_step3_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs (its ``_block``/``_param``/
``_wrap`` helpers), the tool schemas, the expected calls and the chunkings it feeds (one
character, whole, halves); the code is ours. Every text goes through ``check_format``
(whole, 1-char, 7-char and random chunkings) and the halves are replayed. No deliberate
differences: every expectation is SGLang's.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import tool_parser
from support import STEP3_BOT as BOT
from support import STEP3_CALL_BEGIN as CALL_BEGIN
from support import STEP3_CALL_END as CALL_END
from support import STEP3_EOT as EOT
from support import STEP3_MARKUP as MARKUP
from support import STEP3_SEP as SEP
from support import (
    check_format,
    summary,
)
from support import function_tool as tool

Calls = list[tuple[str, dict[str, Any]]]
FMT = "step3"
TOOLS = [
    tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}}),
    tool("noop", {}),
]


def _block(name: str, params: str = "") -> str:
    return (
        f'{CALL_BEGIN}function{SEP}<steptml:invoke name="{name}">{params}</steptml:invoke>'
        f"{CALL_END}"
    )


def _param(name: str, value: str) -> str:
    return f'<steptml:parameter name="{name}">{value}</steptml:parameter>'


def _wrap(*blocks: str) -> str:
    return BOT + "".join(blocks) + EOT


W: Calls = [("get_weather", {})]
CASES: list[tuple[str, str, Calls]] = [
    (_wrap(_block("get_weather")), "", W),
    (
        _wrap(_block("get_weather"), _block("get_weather", _param("city", "Beijing"))),
        "",
        [("get_weather", {}), ("get_weather", {"city": "Beijing"})],
    ),
    (
        _wrap(_block("get_weather", _param("city", "Beijing"))),
        "",
        [("get_weather", {"city": "Beijing"})],
    ),
    (
        _wrap(_block("get_weather", _param("city", "Beijing") + _param("days", "3"))),
        "",
        [("get_weather", {"city": "Beijing", "days": 3})],
    ),
    (_wrap(_block("get_weather", _param("days", "7"))), "", [("get_weather", {"days": 7})]),
    (_wrap(_block("get_weather", _param("city", "北京"))), "", [("get_weather", {"city": "北京"})]),
    (_wrap(_block("noop")), "", [("noop", {})]),
    (_wrap(_block("get_weather"), _block("get_weather")), "", W + W),
    (_wrap(_block("get_weather"), _block("noop")), "", [*W, ("noop", {})]),
    (
        _wrap(_block("get_weather"), _block("get_weather", _param("city", "x"))),
        "",
        [*W, ("get_weather", {"city": "x"})],
    ),
    (
        _wrap(_block("get_weather", _param("city", "x")), _block("get_weather")),
        "",
        [("get_weather", {"city": "x"}), *W],
    ),
    (
        _wrap(
            _block("get_weather", _param("city", "a")), _block("get_weather", _param("city", "b"))
        ),
        "",
        [("get_weather", {"city": "a"}), ("get_weather", {"city": "b"})],
    ),
    (
        _wrap(_block("get_weather"), _block("get_weather", _param("city", "a")), _block("noop")),
        "",
        [*W, ("get_weather", {"city": "a"}), ("noop", {})],
    ),
    ("Sure. " + _wrap(_block("get_weather")), "Sure. ", W),
    ("The weather is nice today.", "The weather is nice today.", []),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_step3_cases(text: str, content: str, calls: Calls, data: st.DataObject) -> None:
    items = check_format(FMT, text, data, TOOLS)
    assert summary(items) == (content, calls)
    assert not any(m in content for m in MARKUP)
    half = len(text) // 2
    pieces = [text[:half], text[half:]]
    assert testing.coalesce(testing.run(tool_parser(FMT, tools=TOOLS), pieces)) == items
