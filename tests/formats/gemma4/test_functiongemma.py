"""FunctionGemma (``functiongemma``): cases from vLLM's test suite, in every chunking.

Fixture strings marked "vLLM" are copied from vllm-project/vllm
``tests/tool_parsers/test_functiongemma_tool_parser.py`` (Apache-2.0); the expected values
are streamcall's (see ``FunctionGemmaParser.vllm_differences``).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall.formats.registry import parser_class
from support import check_format, summary

FMT = "functiongemma"

CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    # vLLM: test_no_tool_calls
    ("Hello, how can I help you today?", "Hello, how can I help you today?", []),
    # vLLM: test_single_tool_call
    (
        "<start_function_call>call:get_weather{location:<escape>London<escape>}<end_function_call>",
        "",
        [("get_weather", {"location": "London"})],
    ),
    # vLLM: test_multiple_arguments
    (
        "<start_function_call>call:get_weather{location:<escape>San Francisco<escape>,"
        "unit:<escape>celsius<escape>}<end_function_call>",
        "",
        [("get_weather", {"location": "San Francisco", "unit": "celsius"})],
    ),
    # vLLM: test_text_before_tool_call
    (
        "Let me check the weather for you. "
        "<start_function_call>call:get_weather{location:<escape>Paris<escape>}"
        "<end_function_call>",
        "Let me check the weather for you. ",
        [("get_weather", {"location": "Paris"})],
    ),
    # vLLM: test_multiple_tool_calls
    (
        "<start_function_call>call:get_weather{location:<escape>London<escape>}"
        "<end_function_call>"
        "<start_function_call>call:get_time{timezone:<escape>UTC<escape>}"
        "<end_function_call>",
        "",
        [("get_weather", {"location": "London"}), ("get_time", {"timezone": "UTC"})],
    ),
    # vLLM: test_streamed_arguments_form_valid_json_with_two_keys (members without ',')
    (
        "<start_function_call>call:get_weather{city:<escape>NYC<escape>"
        "unit:<escape>celsius<escape>}<end_function_call>",
        "",
        [("get_weather", {"city": "NYC", "unit": "celsius"})],
    ),
    # vLLM: ..._with_three_keys. vLLM json.loads the quoted '10'; it stays a string here.
    (
        "<start_function_call>call:search{query:<escape>python<escape>"
        "limit:<escape>10<escape>sort:<escape>relevance<escape>}<end_function_call>",
        "",
        [("search", {"query": "python", "limit": "10", "sort": "relevance"})],
    ),
    # vLLM TestParseArguments: quoted scalars stay strings; bare scalars are typed.
    (
        "<start_function_call>call:f{count:<escape>42<escape>,enabled:<escape>true<escape>,"
        "n:42,b:true,x:3.5,z:null}<end_function_call>",
        "",
        [("f", {"count": "42", "enabled": "true", "n": 42, "b": True, "x": 3.5, "z": None})],
    ),
    (
        "<start_function_call>call:f{message:<escape>Hello World<escape>}<end_function_call>",
        "",
        [("f", {"message": "Hello World"})],
    ),
    # nested values, the end marker inside a string, an empty call
    (
        "<start_function_call>call:f{o:{a:[1,<escape>x<escape>]},"
        "s:<escape>a}<end_function_call>b<escape>}<end_function_call> after"
        "<start_function_call>call:g{}<end_function_call>",
        " after",
        [("f", {"o": {"a": [1, "x"]}, "s": "a}<end_function_call>b"}), ("g", {})],
    ),
]

MALFORMED = [
    "<start_function_call>call:f{a:<escape>open string",
    "<start_function_call>call:f{a:1",
    "<start_function_call>not a header",
    "<start_function_call>call:f{a:1}junk",
    "<start_function_call>call:f{:1}<end_function_call>",
    "plain < text <start_ with <escape> and no call",
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_vllm_cases_in_any_chunking(
    text: str, content: str, calls: list[tuple[str, dict[str, Any]]], data: st.DataObject
) -> None:
    got_content, got_calls = summary(check_format(FMT, text, data))
    assert got_content == content
    assert got_calls == calls


@pytest.mark.parametrize("text", MALFORMED)
@given(data=st.data())
def test_malformed_degrades(text: str, data: st.DataObject) -> None:
    items = check_format(FMT, text, data)
    # Nothing is lost: every call that started ended; text keeps the rest.
    assert all(k in ("text", "call") for k, _ in items)


def test_open_call_at_end_is_incomplete() -> None:
    items = check_format(FMT, "<start_function_call>call:f{a:<escape>cut")
    calls = [v for k, v in items if k == "call"]
    assert len(calls) == 1
    assert calls[0].incomplete and calls[0].arguments == '{"a":"cut"}'  # type: ignore[union-attr]


def test_render_is_the_template_syntax() -> None:
    text = parser_class(FMT).render([("f", {"s": "x", "n": 1, "l": [True, None]})])
    assert text == (
        "<start_function_call>call:f{s:<escape>x<escape>,n:1,l:[true,null]}<end_function_call>"
    )
