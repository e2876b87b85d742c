"""plamo3 (PFN PLaMo 3) against the contract: the tool format, its reasoning format, and the
two together.

The upstream fixtures (tests/fixtures/upstream/plamo3.json, from vLLM's tests, Apache-2.0)
run in every chunking through ``output_parser`` with the ``plamo3`` reasoning and tool
formats.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall.formats.plamo3 import (
    ARGS_OPEN,
    BEGIN_NAME,
    BEGIN_REQUEST,
    BEGIN_REQUESTS,
    END_ARGS,
    END_NAME,
    END_REQUEST,
    END_REQUESTS,
    Plamo3Parser,
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
)

FMT = "plamo3"
THINK, END_THINK, TAG = "<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>", "<|plamo:tag|>"

_KEPT = "streamcall keeps text: "
SKIP = {
    "reasoning_mode_thinking_False_markers_True": (
        "with thinking off, a think block the model writes still opens reasoning (the rule "
        "of every reasoning format here, deepseek_v3's included; vLLM: plain text); "
        "test_thinking_off_still_reads_a_written_think_block"
    ),
    "arguments_not_rewritten_cut_string": (
        "arguments cut by the end of the stream are closed so that they load (vLLM passes "
        "the cut text on); test_malformed_and_truncated"
    ),
    "multiple_calls_truncated_second": (
        "a header cut by the end of the stream is text, not a call named 'clo'; "
        "test_malformed_and_truncated"
    ),
    "partial_end_think_<|plamo:end_": _KEPT + "a cut marker at the end of the stream stays "
    "in the reasoning (vLLM 0.33 too, vllm_0_33)",
    "partial_end_think_<|plamo:end_think": _KEPT + "the same",
    "legacy_eot_ends_turn_0": _KEPT + "the text after <|plamo:tag|> is content (vLLM 0.33 "
    "whole too, vllm_0_33; the pre-engine parser dropped it); test_the_end_of_turn",
    "legacy_eot_ends_turn_1": _KEPT + "the same",
    "legacy_eot_ends_turn_2": _KEPT + "the same",
}


@pytest.mark.parametrize("case", upstream_cases(FMT, skip=SKIP))
def test_upstream_fixtures(case: dict[str, Any]) -> None:
    check_upstream_case(case, FMT, FMT)


def _call(name: str, args: str, *, closers: bool = True) -> str:
    text = f"{BEGIN_REQUEST}{BEGIN_NAME}{name}{END_NAME}{ARGS_OPEN}{args}"
    return text + (f"{END_ARGS}{END_REQUEST}" if closers else "")


@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "a < b\n"]))
def test_rendered_calls_in_any_chunking(
    data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    text = before + Plamo3Parser.render(call_list) + " Done."
    check_rendered(FMT, text, data, call_list, before + " Done.")


@pytest.mark.parametrize(
    ("text", "expected", "content"),
    [
        # every closer may be left out: the object's end is the call's
        (BEGIN_REQUESTS + _call("f", '{"a": 1}', closers=False), [("f", {"a": 1}, False)], ""),
        (
            BEGIN_REQUESTS
            + _call("f", "{}", closers=False)
            + _call("g", '{"b": 2}')
            + END_REQUESTS,
            [("f", {}, False), ("g", {"b": 2}, False)],
            "",
        ),
        # arguments cut by the end of the stream, a marker look-alike inside the string
        (
            BEGIN_REQUESTS + _call("weather", '{"text":"literal <|plamo:end_', closers=False),
            [("weather", {"text": "literal <|plamo:end_"}, True)],
            "",
        ),
        # arguments cut by a tag: incomplete, the tag read next
        (
            BEGIN_REQUESTS + _call("f", '{"a": "x', closers=False) + END_REQUESTS + " after",
            [("f", {"a": "x"}, True)],
            " after",
        ),
        # a header cut by the end of the stream is text
        (
            BEGIN_REQUESTS + _call("weather", "{}") + BEGIN_REQUEST + BEGIN_NAME + "clo",
            [("weather", {}, False)],
            BEGIN_REQUEST + BEGIN_NAME + "clo",
        ),
        # a malformed header is text
        (
            BEGIN_REQUESTS + BEGIN_REQUEST + "f" + ARGS_OPEN + "{}",
            [],
            BEGIN_REQUESTS + BEGIN_REQUEST + "f" + ARGS_OPEN + "{}",
        ),
        # arguments that are not an object: text
        (
            BEGIN_REQUESTS + _call("f", "42", closers=False),
            [],
            BEGIN_REQUESTS + _call("f", "42", closers=False),
        ),
    ],
)
def test_malformed_and_truncated(
    text: str, expected: list[tuple[str, dict[str, Any], bool]], content: str
) -> None:
    check_outcome(FMT, text, expected, content)


def test_a_long_argument_streams_before_its_closer() -> None:
    opener = BEGIN_REQUESTS + _call("write", '{"body": "', closers=False)
    check_streams_before_closer(FMT, opener, "東京 " * 10, '"}' + END_ARGS, {"body": "東京 " * 100})


@given(data=st.data())
def test_reasoning_then_calls_routed_from_the_model(data: st.DataObject) -> None:
    text = (
        f"{THINK}Check the weather.{END_THINK}Let me look. "
        + Plamo3Parser.render([("weather", {"city": "東京"})])
        + TAG
    )
    got = parse_output(text, "pfnet/plamo-3-nict-2b-base")
    assert (got.reasoning, got.content) == ("Check the weather.", "Let me look. ")
    assert [(c.name, c.args) for c in got.tool_calls] == [("weather", {"city": "東京"})]
    items = check_contract(FMT, text, data, reasoning=True)
    assert reasoning_of(items) == "Check the weather."


def test_thinking_off_still_reads_a_written_think_block() -> None:
    text = f"{THINK}Reasoning.{END_THINK}Answer."
    got = parse_output(text, tool_format=FMT, reasoning_format=FMT, thinking=False)
    assert (got.reasoning, got.content) == ("Reasoning.", "Answer.")
    got = parse_output("Answer.", tool_format=FMT, reasoning_format=FMT, thinking=False)
    assert (got.reasoning, got.content) == ("", "Answer.")


@pytest.mark.parametrize(
    ("text", "opened", "reasoning", "content"),
    [
        # the end of the turn is dropped, and ends reasoning; text after it is kept
        (f"answer{TAG}more", False, "", "answermore"),
        (f"reasoning{TAG}more", True, "reasoning", "more"),
        (f"{THINK}r{END_THINK}answer{TAG}more", True, "r", "answermore"),
        # a stray end of thinking with thinking off is dropped
        (f"{END_THINK}answer", False, "", "answer"),
    ],
)
def test_the_end_of_turn(text: str, opened: bool, reasoning: str, content: str) -> None:
    check_reasoning_split(FMT, text, reasoning, content, prompt_opened=opened)


_SECTION_END = END_ARGS + END_REQUEST + END_REQUESTS


@given(data=st.data())
@pytest.mark.parametrize(
    ("text", "expected", "content"),
    [
        # vLLM 0.34's engine consumes <|plamo:tag|> from every state and goes on with
        # content: the tool format alone drops it wherever it stands
        (f"answer{TAG}more", [], "answermore"),
        (f"a{TAG}{TAG}b{TAG}", [], "ab"),
        # after a section (the blanks before it are a gap, dropped with it)
        (
            "x" + BEGIN_REQUESTS + _call("f", "{}", closers=False) + _SECTION_END + f" {TAG}after",
            [("f", {}, False)],
            "xafter",
        ),
        # between calls it ends the section
        (
            BEGIN_REQUESTS + _call("f", "{}") + TAG + _call("g", "{}"),
            [("f", {}, False)],
            BEGIN_REQUEST + BEGIN_NAME + "g" + END_NAME + ARGS_OPEN + "{}" + END_ARGS + END_REQUEST,
        ),
        # cutting arguments: the call ends incomplete, the text after it is content
        (
            BEGIN_REQUESTS + _call("f", '{"a": "b', closers=False) + TAG + "after",
            [("f", {"a": "b"}, True)],
            "after",
        ),
        # cutting a header: the header is text, the marker still dropped
        (
            BEGIN_REQUESTS + BEGIN_REQUEST + BEGIN_NAME + "f" + TAG + "after",
            [],
            BEGIN_REQUESTS + BEGIN_REQUEST + BEGIN_NAME + "fafter",
        ),
        # the other <|plamo:...|> tokens are no terminals of vLLM's grammar: content
        (
            "a<|plamo:msg|>b<|plamo:constrain|>c<|plamo:bos|>",
            [],
            "a<|plamo:msg|>b<|plamo:constrain|>c<|plamo:bos|>",
        ),
        # a look-alike cut by the end of the stream is text
        ("a<|plamo:ta", [], "a<|plamo:ta"),
    ],
)
def test_the_end_of_turn_with_the_tool_format_alone(
    data: st.DataObject, text: str, expected: list[tuple[str, dict[str, Any], bool]], content: str
) -> None:
    check_outcome(FMT, text, expected, content, data)


def test_the_end_of_turn_inside_arguments_strings_cuts_them() -> None:
    # a special token: never part of a string, even a quoted one
    got = parse_output(
        BEGIN_REQUESTS + _call("f", '{"a": "x' + TAG + 'y"}', closers=False), tool_format=FMT
    )
    assert [(c.name, c.args, c.incomplete) for c in got.tool_calls] == [("f", {"a": "x"}, True)]
    assert got.content == 'y"}'
