"""gemma4 against SGLang's ``Gemma4Detector`` unit suites.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_gemma4_detector.py``
(its array payloads, there given to ``_parse_gemma4_array``; here written as a call's
arguments) and ``test_gemma4_detector_string_delimiters.py`` (Apache-2.0, copyright the
SGLang project): the model outputs, the tool schema, the chunkings it feeds and the
expected calls; the code is ours. Every text goes through ``check_format`` (whole, 1-char,
7-char and random chunkings), and SGLang's chunkings are replayed as given and compared
with the one-shot result. The finish suite is in ``test_gemma4_sglang_finish.py``.

Where SGLang's expectation differs on purpose, we assert ours and say why: after a stray
``]`` (``42,]trailing``) or a broken array, the call ends there, its arguments closed, and
the rest of the block is text (SGLang parses the array up to the stray bracket and keeps
the call whole).

A string whose opening ``<|"|>`` the model left out (``query:weather in Tokyo<|"|>``) is
recovered as SGLang does: a bare value that ends with the delimiter, and holds no other,
is that string. One case differs: in ``Paris, France<|"|>`` the comma ends the bare value
``Paris`` before the delimiter is seen; reading it as SGLang does needs looking past the
comma for a closing delimiter, so the call ends there (``incomplete``) and the rest is
text, nothing lost.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

Q = '<|"|>'
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "web_search",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["query"],
            },
        },
    }
]


def call(args: str) -> str:
    return f"<|tool_call>call:web_search{{{args}}}<tool_call|>"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (f"query:weather in Tokyo{Q}", {"query": "weather in Tokyo"}),
        (f"filters:{{city:Tokyo{Q}}},query:{Q}x{Q}", {"filters": {"city": "Tokyo"}, "query": "x"}),
        (f"query:[{Q}a{Q},b{Q}]", {"query": ["a", "b"]}),
    ],
)
def test_sglang_omitted_opening_delimiter(args: str, expected: dict[str, Any]) -> None:
    assert summary(check_format("gemma4", call(args), None, TOOLS)) == (
        "",
        [("web_search", expected)],
    )


def test_sglang_omitted_opening_delimiter_before_a_comma() -> None:
    # SGLang: {"query": "Paris, France", "limit": 5}. Ours: the comma ends the bare value
    # "Paris" before any delimiter is seen; "France<|"|>" cannot be a key, so the call
    # ends there, incomplete, and the rest is text.
    items = check_format("gemma4", call(f"query:Paris, France{Q},limit:5"), None, TOOLS)
    assert summary(items) == (
        f"France{Q},limit:5}}<tool_call|>",
        [("web_search", {"query": "Paris"})],
    )


@given(data=st.data())
def test_sglang_omitted_opening_delimiter_keeps_the_contract(data: st.DataObject) -> None:
    # SGLang's chunking of the case: the delimiter arrives after the bare value.
    pieces = ["<|tool_call>", "call", ":", "web", "_", "search", "{", "query", ":",
              "weather", " in", " Tokyo", Q, "}", "<tool_call|>"]  # fmt: skip
    one_shot = check_format("gemma4", "".join(pieces), data, TOOLS)
    assert testing.coalesce(testing.run(tool_parser("gemma4", tools=TOOLS), pieces)) == one_shot
    assert summary(one_shot) == ("", [("web_search", {"query": "weather in Tokyo"})])
