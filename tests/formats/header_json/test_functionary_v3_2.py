"""functionary_v3_2 (MeetKai Functionary v3.2) against the contract.

The upstream fixtures (tests/fixtures/upstream/functionary_v3_2.json, from llama.cpp's
``test-chat.cpp``, MIT) run in every chunking.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import tool_parser
from streamcall.events import Text, ToolCallArgs, ToolCallStart
from streamcall.formats.functionary import FunctionaryV32Parser
from support import (
    calls,
    check_outcome,
    check_rendered,
    check_streams_before_closer,
    check_upstream_case,
    upstream_cases,
)

FMT = "functionary_v3_2"
_BLANKS = " \t\n\r"  # JSON's, skipped before a body


@pytest.mark.parametrize("case", upstream_cases(FMT))
def test_upstream_fixtures(case: dict[str, Any]) -> None:
    check_upstream_case(case, FMT)


@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "all\nSure. ", "a < b"]))
def test_rendered_calls_in_any_chunking(
    data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    text = before + FunctionaryV32Parser.render(call_list) + ">>>all\nDone."
    check_rendered(FMT, text, data, call_list, before.removeprefix("all\n") + "Done.")


@given(
    data=st.data(),
    code=st.text(max_size=60).filter(
        lambda c: c.strip(_BLANKS) and not c.lstrip(_BLANKS).startswith("{")
    ),
)
def test_raw_python_in_any_chunking(data: st.DataObject, code: str) -> None:
    # (blanks before the code are skipped as before a JSON body; a segment with nothing
    # after its header is a cut call, as in test_malformed_and_truncated)
    text = "all\nRunning it.>>>python\n" + code
    check_outcome(
        FMT, text, [("python", {"code": code.lstrip(_BLANKS)}, False)], "Running it.", data
    )


@pytest.mark.parametrize(
    ("text", "expected", "content"),
    [
        # the first segment's header needs no '>>>'
        ('f\n{"a": 1}>>>g\n{}', [("f", {"a": 1}, False), ("g", {}, False)], ""),
        # python with JSON is a JSON call
        ('python\n{"code": "1"}', [("python", {"code": "1"}, False)], ""),
        # 'all' later is text too
        ("f\n{}>>>all\nok, done", [("f", {}, False)], "ok, done"),
        # text at the start with no header: text up to the next '>>>'
        ("Hello world>>>f\n{}", [("f", {}, False)], "Hello world"),
        ("Hello", [], "Hello"),
        ("a" * 100 + "\n{}", [], "a" * 100 + "\n{}"),
        # a '>>>' inside a JSON string is string content
        ('f\n{"s": ">>>g\\n"}', [("f", {"s": ">>>g\n"}, False)], ""),
        # a body that is not JSON: text
        ("f\noops", [], "f\noops"),
        (">>>f\noops", [], ">>>f\noops"),
        # cut by the end of the stream
        ('f\n{"q": "ab', [("f", {"q": "ab"}, True)], ""),
        ("f\n", [("f", {}, True)], ""),
        ("f", [], "f"),
        # text after a call
        ("f\n{} then", [("f", {}, False)], " then"),
    ],
)
def test_malformed_and_truncated(
    text: str, expected: list[tuple[str, dict[str, Any], bool]], content: str
) -> None:
    check_outcome(FMT, text, expected, content)


def test_all_text_streams_as_it_comes() -> None:
    parser = tool_parser(FMT)
    assert parser.feed("al") == []
    assert parser.feed("l\nHel") == [Text("Hel")]
    assert parser.feed("lo>") == [Text("lo")]  # a '>' may start '>>>': held
    assert parser.feed(">>f\n{") == [ToolCallStart(0, "call_0", "f"), ToolCallArgs(0, "{")]


def test_a_long_argument_streams_before_its_end() -> None:
    check_streams_before_closer(
        FMT, 'write\n{"body": "', "text " * 10, '"}', {"body": "text " * 100}
    )
