"""nemotron_toolcall (NVIDIA Nemotron Nano v2, Llama-Nemotron) against the contract.

The upstream fixtures (tests/fixtures/upstream/nemotron_toolcall.json: llama.cpp's
``test-chat.cpp`` and vLLM's ``test_nemotron_json_tool_parser.py``; their README gives the
licences) run in every chunking, with ``deepseek_r1`` in front for the cases that have
reasoning (llama.cpp's ``reasoning_format=deepseek``).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import parse_tool_calls, testing, tool_parser
from streamcall.formats.nemotron import NemotronToolCallParser
from streamcall.output import parse_output
from support import (
    calls,
    check_outcome,
    check_rendered,
    check_streams_before_closer,
    check_upstream_case,
    summary,
    upstream_cases,
)

FMT = "nemotron_toolcall"

SKIP = {
    "vllm_malformed_is_content": (
        "a list cut by </TOOLCALL> after a call began: streamcall ends the call "
        "incomplete at the marker and keeps the marker as text (vLLM returns the whole "
        "output as content); test_a_list_cut_by_the_closer"
    ),
}


@pytest.mark.parametrize("case", upstream_cases(FMT, skip=SKIP))
def test_upstream_fixtures(case: dict[str, Any]) -> None:
    check_upstream_case(case, FMT, "deepseek_r1")


def test_a_list_cut_by_the_closer() -> None:
    """The skipped vLLM case: the call that began ends incomplete, its arguments whole;
    the closer that cut it is text."""
    text = '<TOOLCALL>[{"name": "broken", "arguments": {}</TOOLCALL>'
    check_outcome(FMT, text, [("broken", {}, True)], "</TOOLCALL>")


@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "a < b\n"]))
def test_rendered_calls_in_any_chunking(
    data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    text = before + NemotronToolCallParser.render(call_list) + "\nDone."
    check_rendered(FMT, text, data, call_list, before + "\nDone.")


@pytest.mark.parametrize(
    ("text", "expected", "content"),
    [
        # a lone object, and arguments written as a JSON string
        ('<TOOLCALL>{"name": "f", "arguments": {"a": 1}}</TOOLCALL>', [("f", {"a": 1}, False)], ""),
        (
            '<TOOLCALL>[{"name": "f", "arguments": "{\\"a\\": [1, 2]}"}]</TOOLCALL>',
            [("f", {"a": [1, 2]}, False)],
            "",
        ),
        # no arguments: {}
        ('<TOOLCALL>[{"name": "f"}]</TOOLCALL>', [("f", {}, False)], ""),
        # cut by the end of the stream: incomplete, arguments closed
        ('<TOOLCALL>[{"name": "f", "arguments": {"q": "ab', [("f", {"q": "ab"}, True)], ""),
        ('<TOOLCALL>[{"name": "f", "arguments": {"q": 1}}]', [("f", {"q": 1}, True)], ""),
        # a name cut by the end of the stream is text
        ('x <TOOLCALL>[{"name": "f', [], 'x <TOOLCALL>[{"name": "f'),
        # not a call: text, whole
        ("<TOOLCALL>oops</TOOLCALL>", [], "<TOOLCALL>oops</TOOLCALL>"),
        ('<TOOLCALL>[{"x": 1}]</TOOLCALL>', [], '<TOOLCALL>[{"x": 1}]</TOOLCALL>'),
        # junk after a call: the call ends incomplete, the junk is text
        ('<TOOLCALL>[{"name": "f", "arguments": {}} oops', [("f", {}, True)], " oops"),
        # a stray closer is text
        ("a </TOOLCALL> b", [], "a </TOOLCALL> b"),
    ],
)
def test_malformed_and_truncated(
    text: str, expected: list[tuple[str, dict[str, Any], bool]], content: str
) -> None:
    check_outcome(FMT, text, expected, content)


def test_a_long_string_streams_before_its_closer() -> None:
    check_streams_before_closer(
        FMT,
        '<TOOLCALL>[{"name": "write", "arguments": {"body": "',
        "lorem ipsum " * 4,
        '"}}]</TOOLCALL>',
        {"body": "lorem ipsum " * 80},
        times=20,
    )


def test_several_calls_in_one_chunk() -> None:
    call_list = [(f"f{i}", {"i": i}) for i in range(5)]
    items = testing.coalesce(
        testing.run(tool_parser(FMT), [NemotronToolCallParser.render(call_list)])
    )
    assert summary(items) == ("", call_list)


def test_with_reasoning_routed_from_the_model() -> None:
    """Nano v2 opens <think> in the prompt: the output starts in reasoning."""
    text = (
        "I need the weather.\n</think>\n"
        '<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]</TOOLCALL>'
    )
    got = parse_output(text, "nvidia/NVIDIA-Nemotron-Nano-9B-v2")
    assert got.reasoning == "I need the weather.\n"
    assert [(c.name, c.args) for c in got.tool_calls] == [("get_weather", {"city": "Tokyo"})]
    assert got.content.strip() == ""


def test_one_shot_is_the_stream() -> None:
    text = 'Hi <TOOLCALL>[{"name": "f", "arguments": {"a": 1}}]</TOOLCALL> bye'
    parsed = parse_tool_calls(text, FMT)
    assert parsed.content == "Hi  bye"
    assert [(c.name, c.args, c.incomplete) for c in parsed.tool_calls] == [("f", {"a": 1}, False)]


@given(data=st.data())
def test_markup_cut_before_the_name_is_text(data: st.DataObject) -> None:
    """A block that never got as far as a name starts no call: all of it is text, as in
    the peers (docs/formats.md, calls that break)."""
    text = 'Sure. <TOOLCALL>[{"na'
    check_rendered(FMT, text, data, [], text)
