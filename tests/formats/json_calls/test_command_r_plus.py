"""command_r_plus (Cohere Command R+, llama.cpp's format) against the contract.

The fixtures (tests/fixtures/upstream/command_r_plus.json) are llama.cpp's test of its
Command R+ parsing (``tests/test-chat.cpp``, MIT) and a case built from the
``CohereForAI-c4ai-command-r-plus-tool_use.jinja`` template's rendering.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall.formats.command_r_plus import CommandRPlusParser
from support import calls, check_outcome, check_rendered, check_upstream_case, upstream_cases

FMT = "command_r_plus"

SKIP = {
    "plain_answer": (
        "the turn tokens are the prompt's and the stop token, which servers strip; kept as "
        "text here (vllm_differences); test_malformed"
    ),
}


@pytest.mark.parametrize("case", upstream_cases(FMT, skip=SKIP))
def test_upstream_fixtures(case: dict[str, Any]) -> None:
    check_upstream_case(case, FMT, "none")


@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure.\n", "a < b\n"]))
def test_rendered_calls_in_any_chunking(
    data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    check_rendered(FMT, before + CommandRPlusParser.render(call_list), data, call_list, before)


@pytest.mark.parametrize(
    ("text", "expected", "content"),
    [
        ("Hello, world!\nWhat's up?", [], "Hello, world!\nWhat's up?"),
        # the opener's other spellings
        ('Action:\n\n```json\n[{"tool_name": "f", "parameters": {}}]\n```', [("f", {}, False)], ""),
        (
            'Action: ```json [{"tool_name": "f", "parameters": {"a": 1}}]```',
            [("f", {"a": 1}, False)],
            "",
        ),
        # a fence without Action: is a code block, text
        (
            '```json\n[{"tool_name": "f", "parameters": {}}]\n```',
            [],
            '```json\n[{"tool_name": "f", "parameters": {}}]\n```',
        ),
        # the list cut off, the fence never closed
        (
            'Action:\n```json\n[{"tool_name": "f", "parameters": {"a": "b',
            [("f", {"a": "b"}, True)],
            "",
        ),
        ('Action:\n```json\n[{"tool_name": "f", "parameters": {}}]', [("f", {}, True)], ""),
        # not a call list: the markup is text
        ("Action:\n```json\nnope\n```", [], "Action:\n```json\nnope\n```"),
        # the answer after the block is text
        (
            'Action:\n```json\n[{"tool_name": "directly-answer", "parameters": {}}]\n```\n\nHi.',
            [("directly-answer", {}, False)],
            "\n\nHi.",
        ),
    ],
)
@given(data=st.data())
def test_malformed(
    data: st.DataObject, text: str, expected: list[tuple[str, Any, bool]], content: str
) -> None:
    check_outcome(FMT, text, expected, content, data)
