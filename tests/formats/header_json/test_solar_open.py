"""solar_open (Upstage Solar Open) against the contract: the tool format, its reasoning
format, and the two together.

The upstream fixtures (tests/fixtures/upstream/solar_open.json, from the ``oesni/vllm``
fork's tests, Apache-2.0) run in every chunking through ``output_parser`` (the tool stage,
the reasoning stage, or both, as each case says); the model's call ids are checked apart.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing, tool_parser
from streamcall.events import ToolCallStart
from streamcall.formats.solar_open import (
    CALL_ARGS,
    CALL_BEGIN,
    CALL_END,
    CALL_NAME,
    TOOL_CALLS,
    SolarOpenParser,
)
from streamcall.output import parse_output
from support import (
    calls,
    check_contract,
    check_outcome,
    check_reasoning_split,
    check_rendered,
    check_streams_before_closer,
    check_upstream_case,
    reasoning_of,
    upstream_cases,
    upstream_parser,
)

FMT = "solar_open"

SKIP = {
    "malformed_args_round_trip": (
        "malformed arguments are closed so that they load and the call is reported "
        "incomplete (the fork passes the text on as the arguments string); "
        "test_malformed_and_truncated"
    ),
}


@pytest.mark.parametrize("case", upstream_cases(FMT, skip=SKIP))
def test_upstream_fixtures(case: dict[str, Any]) -> None:
    check_upstream_case(case, FMT, FMT)
    # the ids: the model's where it wrote a valid one, unique, never empty
    events = testing.run(upstream_parser(case, FMT, FMT)(), [case["text"]])
    ids = [e.id for e in events if isinstance(e, ToolCallStart)]
    assert all(ids) and len(set(ids)) == len(ids)
    for call, got in zip(case["calls"], ids, strict=True):
        if "id" in call:
            assert got == call["id"]
        if "id_pattern" in call:  # replaced: ours, not the model's invalid one
            assert "NOT-VALID" not in got


def _call(call_id: str, name: str, args: str, *, end: bool = True) -> str:
    return f"{CALL_BEGIN}{call_id}{CALL_NAME}{name}{CALL_ARGS}{args}" + (CALL_END if end else "")


@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "a < b\n"]))
def test_rendered_calls_in_any_chunking(
    data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    text = before + SolarOpenParser.render(call_list) + "<|calls|>"
    items = check_rendered(FMT, text, data, call_list, before)
    ids = [v.id for _, v in items if isinstance(v, testing.Call)]
    assert ids == [f"{i:010d}" for i in range(len(call_list))]


@pytest.mark.parametrize(
    ("text", "expected", "content"),
    [
        # a Python-literal dict (its first key single-quoted): held to its end marker and
        # read as its JSON equivalent, as the fork's one-shot path has it
        (
            TOOL_CALLS + _call("a1b2c3d4e5", "get_weather", "{'city': 'Seoul', 'days': 3}"),
            [("get_weather", {"city": "Seoul", "days": 3}, False)],
            "",
        ),
        (
            TOOL_CALLS
            + _call("a1b2c3d4e5", "f", "{ 'a': None, 'b': (1, True), 'c': {'d': 'x\"y'}}")
            + _call("b1b2c3d4e5", "g", "{}"),
            [("f", {"a": None, "b": [1, True], "c": {"d": 'x"y'}}, False), ("g", {}, False)],
            "",
        ),
        # a literal that is no dict JSON can carry: the call ends incomplete, the body is
        # text, the end marker its closer (dropped); the section goes on
        (
            TOOL_CALLS + _call("a1b2c3d4e5", "f", "{'a': {1, 2}}") + _call("b1b2c3d4e5", "g", "{}"),
            [("f", {}, True), ("g", {}, False)],
            "{'a': {1, 2}}",
        ),
        (TOOL_CALLS + _call("a1b2c3d4e5", "f", "{'a': 1e999}"), [("f", {}, True)], "{'a': 1e999}"),
        # a literal cut by the end of the stream, or by another call: text
        (
            TOOL_CALLS + _call("a1b2c3d4e5", "f", "{'a': 1", end=False),
            [("f", {}, True)],
            "{'a': 1",
        ),
        (
            TOOL_CALLS
            + _call("a1b2c3d4e5", "f", "{'a': 1", end=False)
            + _call("b1b2c3d4e5", "g", "{}"),
            [("f", {}, True), ("g", {}, False)],
            "{'a': 1",
        ),
        # a JSON body that breaks later (a Python value in it) is not re-read
        (
            TOOL_CALLS + _call("a1b2c3d4e5", "f", '{"a": True}'),
            [("f", {"a": None}, True)],
            "True}",
        ),
        # malformed: what parsed, closed; the rest of the body is text, and its end
        # marker the broken call's closer, dropped (the section goes on)
        (
            TOOL_CALLS + _call("a1b2c3d4e5", "get_weather", '{"city": "Seoul", broken'),
            [("get_weather", {"city": "Seoul", "": None}, True)],
            "broken",
        ),
        (
            TOOL_CALLS
            + _call("a1b2c3d4e5", "f", '{"a": 1 x}')
            + _call("b1b2c3d4e5", "g", "{}")
            + "<|calls|>",
            [("f", {"a": 1}, True), ("g", {}, False)],
            "x}",
        ),
        # a body that is no object never starts a call: its markup is text as written,
        # the end marker with it, as the opening markers are
        (
            TOOL_CALLS + _call("a1b2c3d4e5", "f", "oops"),
            [],
            TOOL_CALLS + _call("a1b2c3d4e5", "f", "oops"),
        ),
        # cut by the end of the stream, and by the call's end marker
        (
            TOOL_CALLS + _call("a1b2c3d4e5", "f", '{"q": "ab', end=False),
            [("f", {"q": "ab"}, True)],
            "",
        ),
        (TOOL_CALLS + _call("a1b2c3d4e5", "f", '{"q": "ab'), [("f", {"q": "ab"}, True)], ""),
        # the call's end never came
        (TOOL_CALLS + _call("a1b2c3d4e5", "f", "{}", end=False), [("f", {}, True)], ""),
        # a header without its name marker is text
        (
            TOOL_CALLS + CALL_BEGIN + "f" + CALL_ARGS + "{}",
            [],
            TOOL_CALLS + CALL_BEGIN + "f" + CALL_ARGS + "{}",
        ),
        # the content turn's framing before a tool-calls turn is dropped
        (
            "Let me check.<|end|><|begin|>assistant" + TOOL_CALLS + _call("a1b2c3d4e5", "f", "{}"),
            [("f", {}, False)],
            "Let me check.",
        ),
    ],
)
@given(data=st.data())
def test_malformed_and_truncated(
    data: st.DataObject, text: str, expected: list[tuple[str, dict[str, Any], bool]], content: str
) -> None:
    check_outcome(FMT, text, expected, content, data)


def test_ids_invalid_and_repeated() -> None:
    text = (
        TOOL_CALLS
        + _call("NOT-VALID", "f", "{}")
        + _call("0000000000", "g", "{}")
        + _call("0000000000", "h", "{}")
    )
    events = testing.run(tool_parser(FMT), [text])
    assert [e.id for e in events if isinstance(e, ToolCallStart)] == [
        "call_0",
        "0000000000",
        "0000000000~2",
    ]
    assert re.fullmatch(r"[a-z0-9]{10}", "0000000000")


def test_a_long_argument_streams_before_its_closer() -> None:
    opener = TOOL_CALLS + _call("a1b2c3d4e5", "write", '{"body": "', end=False)
    check_streams_before_closer(FMT, opener, "서울 " * 10, '"}' + CALL_END, {"body": "서울 " * 100})


@given(data=st.data())
def test_reasoning_content_and_calls(data: st.DataObject) -> None:
    text = (
        "<|think|>Need the weather.<|end|><|begin|>assistant<|content|>Checking.<|end|>"
        "<|begin|>assistant" + SolarOpenParser.render([("get_weather", {"city": "Seoul"})])
    )
    got = parse_output(text, "upstage/Solar-Open-100B")
    assert (got.reasoning, got.content) == ("Need the weather.", "Checking.")
    assert [(c.name, c.args, c.id) for c in got.tool_calls] == [
        ("get_weather", {"city": "Seoul"}, "0000000000")
    ]
    items = check_contract(FMT, text, data, reasoning=True)
    assert reasoning_of(items) == "Need the weather."


@pytest.mark.parametrize(
    ("text", "reasoning", "content"),
    [
        # a think turn the template opened, ended by the content or the calls
        ("plan<|content|>answer", "plan", "answer"),
        ("plan<|tool_calls|>", "plan", "<|tool_calls|>"),
        ("plan<|end|><|begin|>assistant<|content|>answer<|flush|>", "plan", "answer"),
    ],
)
def test_an_opened_think_turn(text: str, reasoning: str, content: str) -> None:
    check_reasoning_split(FMT, text, reasoning, content, prompt_opened=True)
