"""solar_open2 (Upstage Solar Open 2) against the contract: the tool format, its reasoning
format, and the two together.

The upstream fixtures (tests/fixtures/upstream/solar_open2.json, from vLLM's
``tests/tool_parsers/test_solar_open2_tool_parser.py`` and
``tests/reasoning/test_solar_open2_reasoning_parser.py``, Apache-2.0) run in every chunking
through ``output_parser``; the cases skipped are the differences ``vllm_differences``
states, each pinned by a test here.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall.formats.solar_open2 import (
    ARG_END,
    ARG_START,
    ARG_VALUE,
    CALL_END,
    CALL_START,
    SolarOpen2Parser,
)
from streamcall.output import parse_output
from streamcall.reasoning.switches import prompt_opened_for
from support import (
    calls,
    check_outcome,
    check_reasoning_split,
    check_rendered,
    check_streams_before_closer,
    check_upstream_case,
    schema_for,
    typed_tool,
    upstream_cases,
)

FMT = "solar_open2"

_UNTYPED = "untyped values follow the first-character rule (vllm_differences); test_untyped"
_TEXT_KEPT = "text after and between calls is kept (vLLM drops it); test_malformed"
_CUT = "a cut or broken block is text or an incomplete call, never dropped; test_malformed"
SKIP = {
    "multiple_arguments_without_schema": _UNTYPED,
    "json_like_value": _UNTYPED,
    "text_after_last_call": _TEXT_KEPT,
    "text_between_calls": _TEXT_KEPT,
    "unterminated_block": _CUT,
    "dropped_call_end": _CUT,
    "dropped_call_end_and_arg_end": _CUT,
    "restart_before_function_name": _CUT,
    "call_end_before_function_name": _CUT,
    "repeated_argument_name": "a repeated key is written again (vllm_differences)",
    "embedded_call_then_end": "a call inside the think block ends reasoning; test_reasoning",
}


@pytest.mark.parametrize("case", upstream_cases(FMT, skip=SKIP))
def test_upstream_fixtures(case: dict[str, Any]) -> None:
    check_upstream_case(case, FMT, FMT)


def _call(name: str, args: dict[str, str], *, end: bool = True) -> str:
    body = "".join(f"{ARG_START}{k}{ARG_VALUE}{v}{ARG_END}\n" for k, v in args.items())
    return f"{CALL_START}{name}\n{body}" + (CALL_END if end else "")


@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "a < b\n"]))
def test_rendered_calls_in_any_chunking(
    data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    text = before + SolarOpen2Parser.render(call_list)
    check_rendered(FMT, text, data, call_list, before, schema_for(call_list))


SEOUL = _call("get_weather", {"city": "Seoul"})


@pytest.mark.parametrize(
    ("text", "expected", "content"),
    [
        # text around and between calls is kept
        (
            "pre" + SEOUL + "mid" + SEOUL + "post",
            [("get_weather", {"city": "Seoul"}, False)] * 2,
            "premidpost",
        ),
        # a call cut by the end of the stream is reported incomplete
        (
            "Let me check." + _call("search", {"query": "Seo"}, end=False)[: -len(ARG_END) - 1],
            [("search", {"query": "Seo"}, True)],
            "Let me check.",
        ),
        # a missing <|tool_call:end|>: the call ends (incomplete) where the next begins
        (
            _call("search", {"query": "vLLM"}, end=False) + SEOUL,
            [("search", {"query": "vLLM"}, True), ("get_weather", {"city": "Seoul"}, False)],
            "\n",
        ),
        # a missing <|tool_arg:end|>: the value ends at the call's closer
        (
            f"{CALL_START}broken\n{ARG_START}a{ARG_VALUE}oops{CALL_END}" + SEOUL,
            [("broken", {"a": "oops"}, False), ("get_weather", {"city": "Seoul"}, False)],
            "",
        ),
        # a name cut by another marker, an empty name: not a call, text as written
        (
            f"{CALL_START}get_weat" + SEOUL,
            [("get_weather", {"city": "Seoul"}, False)],
            f"{CALL_START}get_weat",
        ),
        (
            f"{CALL_START}oops{CALL_END}" + SEOUL,
            [("get_weather", {"city": "Seoul"}, False)],
            f"{CALL_START}oops{CALL_END}",
        ),
        (
            f"{CALL_START}\n{ARG_START}a{ARG_VALUE}1{ARG_END}{CALL_END}",
            [],
            f"{CALL_START}\n{ARG_START}a{ARG_VALUE}1{ARG_END}{CALL_END}",
        ),
        # a key that runs into a closer: the call ends incomplete, the rest is text
        (
            f"{CALL_START}get_time\n{ARG_START}ci{CALL_END}",
            [("get_time", {}, True)],
            f"{ARG_START}ci{CALL_END}",
        ),
        # markup quoted inside a value
        (
            _call("search", {"query": "what does <|tool_call: mean"}),
            [("search", {"query": "what does <|tool_call: mean"}, False)],
            "",
        ),
        # values keep their blanks and newlines (no framing newline here)
        (
            _call("write", {"body": "\n  padded\n"}),
            [("write", {"body": "\n  padded\n"}, False)],
            "",
        ),
    ],
)
@given(data=st.data())
def test_malformed(
    data: st.DataObject, text: str, expected: list[tuple[str, Any, bool]], content: str
) -> None:
    check_outcome(FMT, text, expected, content, data)


@given(data=st.data())
def test_untyped(data: st.DataObject) -> None:
    text = _call("search", {"query": "vLLM tutorial", "max_results": "5"})
    check_outcome(
        FMT, text, [("search", {"query": "vLLM tutorial", "max_results": 5}, False)], "", data
    )
    tools = [typed_tool("search", query="string", max_results="string")]
    check_outcome(
        FMT,
        text,
        [("search", {"query": "vLLM tutorial", "max_results": "5"}, False)],
        "",
        data,
        tools=tools,
    )


def test_a_long_value_streams_before_its_closer() -> None:
    opener = f"{CALL_START}write\n{ARG_START}body{ARG_VALUE}"
    check_streams_before_closer(
        FMT, opener, "서울 " * 10, ARG_END + CALL_END, {"body": "서울 " * 100}
    )


@pytest.mark.parametrize(
    ("text", "reasoning", "content"),
    [
        ("plan<|think:end|>answer", "plan", "answer"),
        # a call ends reasoning only when one follows the marker
        ("plan\n" + SEOUL, "plan\n", SEOUL),
        (
            "Should I emit <|tool_call:start|> here? No.\n<|think:end|>Answer",
            "Should I emit <|tool_call:start|> here? No.\n",
            "Answer",
        ),
        # the think block's closer after a call is dropped
        ("plan\n" + SEOUL + "\n<|think:end|>", "plan\n", SEOUL + "\n"),
    ],
)
@given(data=st.data())
def test_reasoning(data: st.DataObject, text: str, reasoning: str, content: str) -> None:
    check_reasoning_split(FMT, text, reasoning, content, data, prompt_opened=True)


@pytest.mark.parametrize(
    ("effort", "opened"),
    [
        (None, None),
        ("medium", True),
        ("high", True),
        ("xhigh", True),
        ("low", False),
        ("minimal", False),
        ("none", False),
    ],
)
def test_effort_decides_the_start(effort: str | None, opened: bool | None) -> None:
    request = {"reasoning_effort": effort} if effort else {}
    assert prompt_opened_for(FMT, request) is opened
    assert prompt_opened_for(FMT, {"chat_template_kwargs": {"enable_thinking": False}}) is None


def test_model_id_routes_tool_and_reasoning() -> None:
    got = parse_output("Need it.<|think:end|>" + SEOUL, "upstage/Solar-Open2-250B")
    assert (got.reasoning, got.content) == ("Need it.", "")
    assert [(c.name, c.args) for c in got.tool_calls] == [("get_weather", {"city": "Seoul"})]
