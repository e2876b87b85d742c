"""functionary_v3_1 (MeetKai Functionary v3.1) against the contract.

The upstream fixtures (tests/fixtures/upstream/functionary_v3_1.json, from llama.cpp's
``test-chat.cpp`` and ``common/chat.cpp``, MIT) run in every chunking. The one partial
case (llama.cpp's view of an unfinished stream) is checked mid-stream and at the end.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import tool_parser
from streamcall.events import Text, ToolCallArgs, ToolCallEnd, ToolCallStart
from streamcall.formats.functionary import FunctionaryV31Parser
from support import (
    calls,
    check_outcome,
    check_rendered,
    check_streams_before_closer,
    check_upstream_case,
    unfinished_events,
    upstream_cases,
)

FMT = "functionary_v3_1"
TAG = "<|python_tag|>"

SKIP = {
    "call_cut_closer": (
        "llama.cpp's partial parse is a view of an unfinished stream; at its end a call "
        "whose </function> never came is incomplete and the cut '<' is text; "
        "test_a_cut_closer"
    ),
}


@pytest.mark.parametrize("case", upstream_cases(FMT, skip=SKIP))
def test_upstream_fixtures(case: dict[str, Any]) -> None:
    check_upstream_case(case, FMT)


def test_a_cut_closer() -> None:
    text = '<function=special_function>{"arg1": 1}<'
    for events in unfinished_events(FMT, text):
        # mid-stream: the call and all its arguments are out, the '<' is held
        assert [e.name for e in events if isinstance(e, ToolCallStart)] == ["special_function"]
        assert "".join(e.delta for e in events if isinstance(e, ToolCallArgs)) == '{"arg1": 1}'
        assert not any(isinstance(e, Text | ToolCallEnd) for e in events)
    check_outcome(FMT, text, [("special_function", {"arg1": 1}, True)], "<")


@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "a < b\n"]))
def test_rendered_calls_in_any_chunking(
    data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    text = before + FunctionaryV31Parser.render(call_list) + " Done."
    check_rendered(FMT, text, data, call_list, before + " Done.")


@given(data=st.data(), code=st.text(max_size=60), before=st.sampled_from(["", "Running it.\n"]))
def test_raw_python_after_the_tag_in_any_chunking(
    data: st.DataObject, code: str, before: str
) -> None:
    check_outcome(FMT, before + TAG + code, [("python", {"code": code}, False)], before, data)


@pytest.mark.parametrize(
    ("text", "expected", "content"),
    [
        # a closer inside a string is string content (the tags are not special tokens)
        (
            '<function=f>{"html": "</function>"}</function>',
            [("f", {"html": "</function>"}, False)],
            "",
        ),
        # a call, then raw code to the end (the code holds markup too)
        (
            '<function=f>{}</function><|python_tag|>print("<function=g>{}</function>")',
            [("f", {}, False), ("python", {"code": 'print("<function=g>{}</function>")'}, False)],
            "",
        ),
        # a body that is not JSON, even under the name python: text
        ("<function=python>print(1)</function>", [], "<function=python>print(1)</function>"),
        ("<function=f>oops</function>", [], "<function=f>oops</function>"),
        # a malformed name: text
        ("<function=a b>{}</function>", [], "<function=a b>{}</function>"),
        # cut by the end of the stream
        ('<function=f>{"q": "ab', [("f", {"q": "ab"}, True)], ""),
        ("<function=f", [], "<function=f"),
        ("<function=f>", [("f", {}, True)], ""),
        # junk where the closer belongs
        ("<function=f>{} oops", [("f", {}, True)], " oops"),
        # the tag alone: an empty program
        (TAG, [("python", {"code": ""}, False)], ""),
    ],
)
def test_malformed_and_truncated(
    text: str, expected: list[tuple[str, dict[str, Any], bool]], content: str
) -> None:
    check_outcome(FMT, text, expected, content)


def test_arguments_and_code_stream_before_the_end() -> None:
    check_streams_before_closer(
        FMT, '<function=write>{"body": "', "text " * 10, '"}</function>', {"body": "text " * 100}
    )

    parser = tool_parser(FMT)
    parser.feed(TAG)
    code = "".join(
        e.delta for _ in range(10) for e in parser.feed("x = 1\n") if isinstance(e, ToolCallArgs)
    )
    assert code.endswith("x = 1\\n" * 10)  # streamed as it came, JSON-escaped
