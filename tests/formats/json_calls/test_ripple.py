"""ripple (Ricursive Ripple): Hermes JSON calls, the template's newlines framing the markers.

vLLM 0.34 has no test of ``ripple``; the upstream cases (``tests/fixtures/upstream/
ripple.json``) are constructed from its configuration (``vllm/parser/ripple.py``,
Apache-2.0: the module docstring's example, its terminals and transitions) and run through
the combined parser in every chunking. The rest is ours.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.hermes import HermesParser
from streamcall.formats.registry import parse_tool_calls, parser_class, tool_parser
from streamcall.output import output_parser
from streamcall.reasoning import reasoning_parser
from support import (
    calls,
    check_contract,
    check_every_end,
    check_upstream_case,
    schema_for,
    summary,
    upstream_cases,
)


@pytest.mark.parametrize("case", upstream_cases("ripple"))
def test_upstream(case: dict[str, Any]) -> None:
    check_upstream_case(case, "ripple", "ripple")


def call(name: str, **args: Any) -> str:
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': args})}\n</tool_call>"


@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        # the newline before <tool_call> is the marker's; hermes keeps it as text
        ("Let me check.\n" + call("f", a=1), "Let me check.", [("f", {"a": 1})]),
        ("Let me check.\n\n" + call("f"), "Let me check.\n", [("f", {})]),
        ("a" + call("f") + "\n" + call("g", b=[1]) + "\n", "a", [("f", {}), ("g", {"b": [1]})]),
        ("a\n" + call("f") + "\nthen more\n", "a\nthen more\n", [("f", {})]),
        # newlines with no call after them stay text
        ("line\nnext\n", "line\nnext\n", []),
    ],
)  # fmt: skip
@given(data=st.data())
def test_cases(text: str, content: str, calls: Any, data: st.DataObject) -> None:
    assert summary(check_contract("ripple", text, data)) == (content, calls)


def test_only_the_newline_differs_from_hermes() -> None:
    text = "Sure.\n" + call("f", a=1) + "\nDone."
    ripple, hermes = parse_tool_calls(text, "ripple"), parse_tool_calls(text, "hermes")
    assert (ripple.content, hermes.content) == ("Sure.\nDone.", "Sure.\n\nDone.")
    assert ripple.tool_calls == hermes.tool_calls
    assert issubclass(parser_class("ripple"), HermesParser)


@pytest.mark.parametrize(
    "text",
    [
        "a\n<tool_call>oops</tool_call>",
        "a\n<tool_call>\n[1, 2]\n</tool_call>",
        "a\n<tool_c",
        '\n<tool_call>\n{"name": 3, "arguments": {}}\n</tool_call>',
        "\n</tool_call>\n",
    ],
)
def test_malformed_is_text(text: str) -> None:
    got = parse_tool_calls(text, "ripple")
    assert (got.content, got.tool_calls) == (text, [])
    testing.check_chunkings(lambda: tool_parser("ripple"), text)


def test_cut_and_every_end() -> None:
    cut = parse_tool_calls('Hi\n<tool_call>\n{"name": "f", "arguments": {"a": "x', "ripple")
    assert cut.content == "Hi"
    assert [(c.name, c.args, c.incomplete) for c in cut.tool_calls] == [("f", {"a": "x"}, True)]
    check_every_end("ripple", "ok\n" + call("f", a="<b>") + "\n" + call("g") + "\ndone")


@settings(max_examples=40)
@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure.", "Sure.\n\n"]))
def test_rendered_calls_in_any_chunking(
    data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    text = before + parser_class("ripple").render(call_list)
    content, got = summary(check_contract("ripple", text, data, schema_for(call_list)))
    assert content == before  # the render's newline before <tool_call> is the marker's
    assert [name for name, _ in got] == [name for name, _ in call_list]


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("<think>\nplan\n</think>\nAnswer.", [("reasoning", "plan"), ("text", "Answer.")]),
        ("Answer directly.", [("text", "Answer directly.")]),
        # a think block may open after an answer, and again
        ("pre <think>\nx\n</think>\npost <think>y</think>z",
         [("text", "pre "), ("reasoning", "x"), ("text", "post "), ("reasoning", "y"),
          ("text", "z")]),
        # a </think> outside reasoning is dropped, with its framing
        ("a\n</think>\nb", [("text", "ab")]),
        # reasoning that only mentions the tag stays reasoning
        ("<think>\nmention <tool_call> here\n</think>\nok",
         [("reasoning", "mention <tool_call> here"), ("text", "ok")]),
        ("<think>\nplan\n<tool_call>\n{", [("reasoning", "plan"), ("text", "\n<tool_call>\n{")]),
    ],
)  # fmt: skip
def test_reasoning(text: str, items: list[Any]) -> None:
    assert testing.check_chunkings(lambda: reasoning_parser("ripple"), text) == items


def test_reasoning_then_calls_through_the_combined_parser() -> None:
    p = output_parser(model="ricursive/Ripple-instruct")
    text = "<think>\nI need it.\n</think>\nChecking.\n" + call("get_weather", city="Paris")
    items = testing.coalesce(testing.run(p, testing.chunk_every(text, 5)))
    assert items[:2] == [("reasoning", "I need it."), ("text", "Checking.")]
    assert isinstance(items[2][1], testing.Call) and items[2][1].name == "get_weather"
