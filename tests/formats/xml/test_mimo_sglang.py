"""mimo against SGLang's ``MiMoDetector`` unit suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_mimo_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs, the tool schemas and the
expected calls; the code is ours. Its ``_convert_param_value`` unit tests become whole
calls (one parameter each); its ``_get_param_type``/``structure_info`` tests test
SGLang's internals and have no counterpart. Every text goes through ``check_format``
(whole, 1-char, 7-char and random chunkings).

Where SGLang's expectation differs on purpose, we assert ours and say why:
- SGLang drops calls to tools not in the list; streamcall reports them.
- Only lowercase ``null`` is null for a typed value (SGLang: any case, even for a string):
  ``NULL`` for an integer stays the text it is, and ``null`` for a string stays the
  string ``"null"`` (string values stream before their end is known).
- ``3.0`` for a ``number`` stays ``3.0`` (SGLang: the int 3; the same JSON number).
- A boolean that is not ``true``/``false`` stays the text it is (SGLang: ``False``).
- A type it does not know (``tuple``) gets JSON or the text as written (SGLang: a Python
  literal, ``(1, 2)``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sglang_fixtures import function_tool
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]
FMT = "mimo"


TOOLS = [
    function_tool("execute_bash", {"command": {"type": "string"}}, ["command"]),
    function_tool(
        "get_weather",
        {"city": {"type": "string"}, "days": {"type": "integer"}, "verbose": {"type": "boolean"}},
    ),
]

CASES: list[tuple[str, str, Calls]] = [
    (
        "<tool_call>\n<function=execute_bash>\n<parameter=command>pwd && ls</parameter>\n"
        "</function>\n</tool_call>",
        "",
        [("execute_bash", {"command": "pwd && ls"})],
    ),
    (
        "<tool_call><function=execute_bash><parameter=command>ls</parameter></function>"
        "</tool_call><tool_call><function=get_weather><parameter=city>Tokyo</parameter>"
        "</function></tool_call>",
        "",
        [("execute_bash", {"command": "ls"}), ("get_weather", {"city": "Tokyo"})],
    ),
    (
        "Sure, running now. <tool_call><function=execute_bash><parameter=command>ls"
        "</parameter></function></tool_call>",
        "Sure, running now. ",
        [("execute_bash", {"command": "ls"})],
    ),
    ("Just prose.", "Just prose.", []),
    (
        "<tool_call><function=get_weather><parameter=city>Berlin</parameter>"
        "<parameter=days>5</parameter><parameter=verbose>true</parameter></function></tool_call>",
        "",
        [("get_weather", {"city": "Berlin", "days": 5, "verbose": True})],
    ),
    # SGLang drops an undeclared tool; it is reported here.
    (
        "<tool_call><function=unknown_fn><parameter=x>1</parameter></function></tool_call>",
        "",
        [("unknown_fn", {"x": 1})],
    ),
    # No <function=...> inside: not a call, so the text is kept as written.
    (
        "<tool_call>no function here</tool_call>",
        "<tool_call>no function here</tool_call>",
        [],
    ),
    ("<tool_call><function=execute_bash></function></tool_call>", "", [("execute_bash", {})]),
    # has_tool_call's texts, whole
    ("<tool>inner</tool>", "<tool>inner</tool>", []),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_mimo_cases(text: str, content: str, calls: Calls, data: st.DataObject) -> None:
    assert summary(check_format(FMT, text, data, TOOLS)) == (content, calls)


def test_start_token_alone_is_an_incomplete_call() -> None:
    # has_tool_call("prefix <tool_call><function=f>"): the stream ends inside the call,
    # which is reported incomplete with what it had.
    items = check_format(FMT, "prefix <tool_call><function=f>", None, TOOLS)
    assert summary(items) == ("prefix ", [("f", {})])
    assert [v.incomplete for k, v in items if k == "call" and not isinstance(v, str)] == [True]


CONVERT_TOOLS = [
    function_tool(
        "f",
        {
            "s": {"type": "string"},
            "i": {"type": "integer"},
            "n": {"type": "number"},
            "fl": {"type": "float"},
            "b": {"type": "boolean"},
            "o": {"type": "object"},
            "a": {"type": "array"},
            "untyped": {"description": "no type"},
        },
    )
]


@pytest.mark.parametrize(
    ("key", "raw", "expected"),
    [
        ("i", "null", None),
        ("s", "null", "null"),  # SGLang: None
        ("i", "NULL", "NULL"),  # SGLang: None
        ("b", "Null", "Null"),  # SGLang: None
        ("s", "hello", "hello"),
        ("i", "42", 42),
        ("i", "-7", -7),
        ("i", "abc", "abc"),
        ("n", "3.14", 3.14),
        ("n", "3.0", 3.0),  # SGLang: 3
        ("n", "3", 3),
        ("n", "abc", "abc"),
        ("fl", "2.5", 2.5),
        ("b", "true", True),
        ("b", "TRUE", True),
        ("b", "false", False),
        ("b", "yes", "yes"),  # SGLang: False
        ("o", '{"k": "v"}', {"k": "v"}),
        ("a", "[1, 2, 3]", [1, 2, 3]),
        ("o", "{'k': 'v'}", {"k": "v"}),  # a Python literal, as SGLang reads it
        ("o", "{not valid", "{not valid"),
        ("untyped", "raw value", "raw value"),
    ],
)
def test_sglang_value_conversion(key: str, raw: str, expected: Any) -> None:
    text = f"<tool_call><function=f><parameter={key}>{raw}</parameter></function></tool_call>"
    got = summary(check_format(FMT, text, None, CONVERT_TOOLS))
    assert got == ("", [("f", {key: expected})])
    assert type(got[1][0][1][key]) is type(expected)


@pytest.mark.parametrize(
    ("kind", "raw", "expected"),
    [
        ("uint32", "42", 42),
        ("long", "42", 42),
        ("tuple", "(1, 2)", "(1, 2)"),  # SGLang: the tuple (1, 2)
        ("tuple", "abc", "abc"),
    ],
)
def test_sglang_other_type_names(kind: str, raw: str, expected: Any) -> None:
    tools = [function_tool("f", {"x": {"type": kind}})]
    text = f"<tool_call><function=f><parameter=x>{raw}</parameter></function></tool_call>"
    items = check_format(FMT, text, None, tools)
    assert summary(items) == ("", [("f", {"x": expected})])
    assert json.dumps(summary(items)[1][0][1]["x"]) == json.dumps(expected)
