"""Gemma 4 and FunctionGemma read a bare number with an exponent as a number (issue 46).

The official Gemma 4 template writes a float as Python does, ``1e-05`` and ``1e+21`` with
no '.'; the schema says ``number``, so the arguments must carry numbers, in every chunking.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import parse_tool_calls, testing, tool_parser
from streamcall.text import bare_scalar
from support import random_chunkings

CASES = [
    ("<|tool_call>call:f{x:1e-05,y:[1e+21]}<tool_call|>", "gemma4", {"x": 1e-05, "y": [1e21]}),
    (
        "<|tool_call>call:f{a:1E5,b:-2e-3,c:{d:3e0}}<tool_call|>",
        "gemma4",
        {"a": 1e5, "b": -2e-3, "c": {"d": 3.0}},
    ),
    ("<|tool_call>call:f{a:1.5e-07, b:12}<tool_call|>", "gemma4", {"a": 1.5e-07, "b": 12}),
    # not JSON numbers: strings, as before
    (
        "<|tool_call>call:f{a:1e,b:e5,c:1e+,d:0x10}<tool_call|>",
        "gemma4",
        {"a": "1e", "b": "e5", "c": "1e+", "d": "0x10"},
    ),
    (
        "<start_function_call>call:f{x:1e-05,y:[1e+21]}<end_function_call>",
        "functiongemma",
        {"x": 1e-05, "y": [1e21]},
    ),
]


@pytest.mark.parametrize(("text", "fmt", "args"), CASES)
@given(data=st.data())
def test_exponent_numbers_are_numbers(
    text: str, fmt: str, args: object, data: st.DataObject
) -> None:
    items = testing.check_contract(lambda: tool_parser(fmt), text, random_chunkings(data, text))
    calls = [json.loads(v.arguments) for k, v in items if isinstance(v, testing.Call)]
    assert calls == [args]


def test_the_issue_case() -> None:
    got = parse_tool_calls("<|tool_call>call:f{x:1e-05,y:[1e+21]}<tool_call|>", format="gemma4")
    assert got.tool_calls[0].args == {"x": 1e-05, "y": [1e21]}


@pytest.mark.parametrize(
    ("scalar", "json_text"),
    [
        ("1e-05", "1e-05"),
        ("1e+21", "1e+21"),
        ("-1E5", "-1E5"),
        ("0e0", "0e0"),
        ("1e", '"1e"'),
        ("01e5", '"01e5"'),
        ("inf", '"inf"'),
        ("1.50", "1.50"),
        ("12", "12"),
    ],
)
def test_bare_scalar_reads_json_numbers(scalar: str, json_text: str) -> None:
    assert bare_scalar(scalar) == json_text
