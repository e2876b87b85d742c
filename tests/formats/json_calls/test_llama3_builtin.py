"""Llama 3.1 / 3.3 built-in tools (``<|python_tag|>brave_search.call(query="x")``), read by
``llama3_json``, against the contract.

The upstream fixtures (tests/fixtures/upstream/llama3_builtin.json, from llama.cpp's
``test-chat.cpp`` and ``common/chat.cpp``, MIT) run in every chunking. What llama3_json
does with its other inputs is pinned by its own tests (test_llama3_json*.py); here, that
the built-in form leaves them alone.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support import check_outcome, check_streams_before_closer, check_upstream_case, upstream_cases

FMT = "llama3_json"
TAG = "<|python_tag|>"


@pytest.mark.parametrize("case", upstream_cases("llama3_builtin"))
def test_upstream_fixtures(case: dict[str, Any]) -> None:
    check_upstream_case(case, FMT)


_word = st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True)
_value = st.one_of(
    st.text(max_size=20),
    st.integers(-1000, 1000),
    st.booleans(),
    st.none(),
    st.lists(st.integers(0, 9), max_size=3),
)


@given(
    data=st.data(),
    name=_word,
    args=st.dictionaries(_word, _value, max_size=3),
    before=st.sampled_from(["", "Searching. ", "a < b "]),
)
def test_a_builtin_call_with_json_values_in_any_chunking(
    data: st.DataObject, name: str, args: dict[str, Any], before: str
) -> None:
    written = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
    text = f"{before}{TAG}{name}.call({written})"
    check_outcome(FMT, text, [(name, args, False)], before, data)


@pytest.mark.parametrize(
    ("text", "expected", "content"),
    [
        # the JSON call after the tag is as before
        (TAG + '{"name": "f", "parameters": {"a": 1}}', [("f", {"a": 1}, False)], ""),
        # code after the tag that is not a built-in call: text, as before
        (TAG + "print('hi')", [], TAG + "print('hi')"),
        (TAG + "brave_search", [], TAG + "brave_search"),
        (TAG + "brave_search.cal", [], TAG + "brave_search.cal"),
        (TAG + "x.callme()", [], TAG + "x.callme()"),
        # a call cut by the end of the stream: incomplete, its arguments closed
        (
            TAG + 'brave_search.call(query="what is',
            [("brave_search", {"query": "what is"}, True)],
            "",
        ),
        # malformed arguments: incomplete, the rest is text
        (TAG + "f.call(q=@)", [("f", {"q": None}, True)], "@)"),
        # text after the call; the blanks before it a gap
        (TAG + 'f.call(q="x") then text', [("f", {"q": "x"}, False)], " then text"),
        (TAG + 'f.call(q="x")\n', [("f", {"q": "x"}, False)], ""),
        # no built-in form without the tag
        ('web_search.call(query="x")', [], 'web_search.call(query="x")'),
        # positional and no arguments
        (TAG + "f.call()", [("f", {}, False)], ""),
    ],
)
def test_malformed_truncated_and_neighbours(
    text: str, expected: list[tuple[str, dict[str, Any], bool]], content: str
) -> None:
    check_outcome(FMT, text, expected, content)


def test_a_long_query_streams_before_its_closer() -> None:
    # (the value is written escaped, as in Python source, and streams as written)
    check_streams_before_closer(
        FMT, TAG + 'code_interpreter.call(code="', "x = 1\\n" * 8, '")', {"code": "x = 1\n" * 80}
    )
