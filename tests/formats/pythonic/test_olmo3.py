"""``olmo3``: vLLM's cases in every chunking.

Fixture strings are copied from vllm-project/vllm
``tests/tool_parsers/test_olmo3_tool_parser.py`` (Apache-2.0). Expected arguments are
compared as parsed JSON (streamcall writes compact JSON).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pythonic_cases import (
    EMPTY_DICT,
    EMPTY_LIST,
    ESCAPED,
    ESCAPED_ARGS,
    MORE_TYPES,
    MORE_TYPES_ARGS,
    PARAMETERLESS,
    SIMPLE,
    SIMPLE_ARGS,
)

from support import check_format, summary

MORE_TYPES_JSON_LITERALS = (
    "register_user(name='John Doe', "
    "age=37, "
    "address={'city': 'San Francisco', 'state': 'CA'}, "
    "role=null, "
    "passed_test=true, "
    "aliases=['John', 'Johnny'])"
)


def block(body: str) -> str:
    return f"<function_calls>{body}</function_calls>"


CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    ("How can I help you today?", "How can I help you today?", []),
    (block(SIMPLE), "", [("get_weather", SIMPLE_ARGS)]),
    (block(MORE_TYPES), "", [("register_user", MORE_TYPES_ARGS)]),
    (block(MORE_TYPES_JSON_LITERALS), "", [("register_user", MORE_TYPES_ARGS)]),
    (block(PARAMETERLESS), "", [("get_weather", {})]),
    (block(EMPTY_DICT), "", [("do_something_cool", {"additional_data": {}})]),
    (block(EMPTY_LIST), "", [("do_something_cool", {"steps": []})]),
    (block(ESCAPED), "", [("get_weather", ESCAPED_ARGS)]),
    (
        block(f"{SIMPLE}\n{MORE_TYPES}"),
        "",
        [("get_weather", SIMPLE_ARGS), ("register_user", MORE_TYPES_ARGS)],
    ),
    # vLLM test_streaming_tool_call_with_large_steps
    (
        block(
            f"get_weather(city='San Francisco', metric='celsius')\n{PARAMETERLESS}\n{EMPTY_LIST}"
        ),
        "",
        [("get_weather", SIMPLE_ARGS), ("get_weather", {}), ("do_something_cool", {"steps": []})],
    ),
    # vLLM test_bad_sibling_call_does_not_drop_good_calls: b'z' is kept, as a string
    (block(f"bad(x=b'z')\n{SIMPLE}"), "", [("bad", {"x": "z"}), ("get_weather", SIMPLE_ARGS)]),
    # vLLM test_non_finite_argument_rejected: the number is kept as written
    (
        block(f"calc(x=1e999)\n{SIMPLE}"),
        "",
        [("calc", {"x": float("inf")}), ("get_weather", SIMPLE_ARGS)],
    ),
    # text around blocks; whitespace between two blocks is markup
    (
        f"Checking.\n{block(SIMPLE)}\n\n{block(PARAMETERLESS)}\nDone.",
        "Checking.\n\nDone.",
        [("get_weather", SIMPLE_ARGS), ("get_weather", {})],
    ),
    # an empty block is text
    ("<function_calls></function_calls>", "<function_calls></function_calls>", []),
]

MALFORMED = [
    "<function_calls>foo(x=1])</function_calls>",  # vLLM mismatched brackets
    "<function_calls>get_weather(city='San",
    "<function_calls>not a call</function_calls> after",
    "<function_calls>f(a=1) junk</function_calls>",
    "<function_calls>f(a=undefined_name)</function_calls>",
    "<function_",
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_vllm_cases_in_any_chunking(
    text: str, content: str, calls: list[tuple[str, dict[str, Any]]], data: st.DataObject
) -> None:
    got_content, got_calls = summary(check_format("olmo3", text, data))
    assert got_content == content
    assert got_calls == calls


@pytest.mark.parametrize("text", MALFORMED)
@given(data=st.data())
def test_malformed_never_loses_text(text: str, data: st.DataObject) -> None:
    check_format("olmo3", text, data)
