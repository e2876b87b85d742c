"""hy_v3 and hy_v4 against SGLang's ``HunyuanDetector`` suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_hunyuan_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs, the tool schemas, the
expected calls and content, and the chunkings it feeds; the code is ours. Every text goes
through ``check_format`` (whole, 1-char, 7-char and random chunkings), and SGLang's own
chunkings are replayed as given.

SGLang reads HY v3 and v4 with one detector (the v4 form, without ``<tool_sep>``, when the
tokenizer has no ``<tool_sep>``); here they are ``hy_v3`` and ``hy_v4``, as in vLLM.
Where SGLang's expectation differs on purpose, we assert ours and say why:
- SGLang drops a call to a tool that is not in the tools list; streamcall does not check
  names against the list (the call is reported, as vLLM does).
- ``has_tool_call``, ``structure_info`` and the parser registry are SGLang's API, not
  ported.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]


def _tool(name: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


TOOLS = [
    _tool("get_current_date", {}),
    _tool(
        "get_weather",
        {
            "type": "object",
            "properties": {"city": {"type": "string"}, "date": {"type": "string"}},
            "required": ["city"],
        },
    ),
    _tool(
        "search",
        {
            "type": "object",
            "properties": {"query": {"type": "string"}, "count": {"type": "integer"}},
            "required": ["query"],
        },
    ),
    _tool(
        "calculate",
        {
            "type": "object",
            "properties": {
                "expression": {"type": "string"},
                "precision": {"type": "number"},
                "verbose": {"type": "boolean"},
            },
        },
    ),
]

DATE = "<tool_calls><tool_call>get_current_date<tool_sep></tool_call></tool_calls>"
DATE_NL = "<tool_calls>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls>"


def weather(city: str) -> str:
    return (
        "<tool_calls><tool_call>get_weather<tool_sep>"
        f"<arg_key>city</arg_key><arg_value>{city}</arg_value></tool_call></tool_calls>"
    )


V3_CASES: list[tuple[str, str, Calls]] = [
    ("This is a plain response.", "This is a plain response.", []),
    ("The weather in Beijing is sunny today.", "The weather in Beijing is sunny today.", []),
    (DATE, "", [("get_current_date", {})]),
    (DATE_NL, "", [("get_current_date", {})]),
    (weather("Beijing"), "", [("get_weather", {"city": "Beijing"})]),
    (
        "<tool_calls><tool_call>get_weather<tool_sep>"
        "<arg_key>city</arg_key><arg_value>Beijing</arg_value>"
        "<arg_key>date</arg_key><arg_value>2026-03-30</arg_value>"
        "</tool_call></tool_calls>",
        "",
        [("get_weather", {"city": "Beijing", "date": "2026-03-30"})],
    ),
    (
        "<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n"
        "<arg_value>Beijing</arg_value>\n<arg_key>date</arg_key>\n"
        "<arg_value>2026-03-30</arg_value>\n</tool_call>\n</tool_calls>",
        "",
        [("get_weather", {"city": "Beijing", "date": "2026-03-30"})],
    ),
    ("Checking." + DATE_NL, "Checking.", [("get_current_date", {})]),
    (
        "<tool_calls>\n<tool_call>get_weather<tool_sep>\n"
        "<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n</tool_call>\n"
        "<tool_call>get_weather<tool_sep>\n"
        "<arg_key>city</arg_key>\n<arg_value>Hangzhou</arg_value>\n</tool_call>\n</tool_calls>",
        "",
        [("get_weather", {"city": "Beijing"}), ("get_weather", {"city": "Hangzhou"})],
    ),
    # SGLang skips calls to tools not in the list; streamcall reports them.
    (
        "<tool_calls><tool_call>nonexistent_func<tool_sep>"
        "<arg_key>x</arg_key><arg_value>1</arg_value></tool_call></tool_calls>",
        "",
        [("nonexistent_func", {"x": 1})],
    ),
    (
        "<tool_calls><tool_call>get_current_date<tool_sep></tool_call>"
        "<tool_call>nonexistent<tool_sep></tool_call>"
        "<tool_call>search<tool_sep><arg_key>query</arg_key><arg_value>test</arg_value>"
        "</tool_call></tool_calls>",
        "",
        [("get_current_date", {}), ("nonexistent", {}), ("search", {"query": "test"})],
    ),
    (
        "<tool_calls><tool_call>get_weather<tool_sep>"
        "<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>"
        "<tool_call>get_weather<tool_sep>"
        "<arg_key>city</arg_key><arg_value>Tokyo</arg_value></tool_call>"
        "<tool_call>get_current_date<tool_sep></tool_call></tool_calls>",
        "",
        [
            ("get_weather", {"city": "Beijing"}),
            ("get_weather", {"city": "Tokyo"}),
            ("get_current_date", {}),
        ],
    ),
    # typed by the schema
    (
        "<tool_calls><tool_call>search<tool_sep>"
        "<arg_key>query</arg_key><arg_value>restaurants</arg_value>"
        "<arg_key>count</arg_key><arg_value>5</arg_value></tool_call></tool_calls>",
        "",
        [("search", {"query": "restaurants", "count": 5})],
    ),
    (
        "<tool_calls><tool_call>calculate<tool_sep>"
        "<arg_key>expression</arg_key><arg_value>1+1</arg_value>"
        "<arg_key>precision</arg_key><arg_value>0.01</arg_value></tool_call></tool_calls>",
        "",
        [("calculate", {"expression": "1+1", "precision": 0.01})],
    ),
    (
        "<tool_calls><tool_call>calculate<tool_sep>"
        "<arg_key>expression</arg_key><arg_value>2+2</arg_value>"
        "<arg_key>verbose</arg_key><arg_value>true</arg_value></tool_call></tool_calls>",
        "",
        [("calculate", {"expression": "2+2", "verbose": True})],
    ),
    (  # a string-typed value that looks like JSON stays a string
        "<tool_calls><tool_call>search<tool_sep>"
        '<arg_key>query</arg_key><arg_value>{"key": "value"}</arg_value>'
        "</tool_call></tool_calls>",
        "",
        [("search", {"query": '{"key": "value"}'})],
    ),
    (  # a value that does not convert stays a string
        "<tool_calls><tool_call>search<tool_sep>"
        "<arg_key>query</arg_key><arg_value>hello world</arg_value>"
        "<arg_key>count</arg_key><arg_value>not a number</arg_value></tool_call></tool_calls>",
        "",
        [("search", {"query": "hello world", "count": "not a number"})],
    ),
    (weather("San Francisco"), "", [("get_weather", {"city": "San Francisco"})]),
    (weather("NYC"), "", [("get_weather", {"city": "NYC"})]),
    (
        "Checking.<tool_calls><tool_call>get_weather<tool_sep>"
        "<arg_key>city</arg_key><arg_value>Tokyo</arg_value></tool_call></tool_calls>",
        "Checking.",
        [("get_weather", {"city": "Tokyo"})],
    ),
    ("<tool_calls>foo</tool_calls>", "<tool_calls>foo</tool_calls>", []),
]


@pytest.mark.parametrize(("text", "content", "calls"), V3_CASES)
@given(data=st.data())
def test_sglang_hy_v3_cases(text: str, content: str, calls: Calls, data: st.DataObject) -> None:
    assert summary(check_format("hy_v3", text, data, TOOLS)) == (content, calls)


@pytest.mark.parametrize(
    ("keyword", "schema", "raw", "expected"),
    [
        ("anyOf", {"type": "integer"}, "7", 7),
        ("oneOf", {"type": "boolean"}, "true", True),
        ("allOf", {"type": "array", "items": {"type": "integer"}}, "[1,2]", [1, 2]),
    ],
)
def test_sglang_top_level_composed_schema(
    keyword: str, schema: dict[str, Any], raw: str, expected: Any
) -> None:
    # The parameters schema is a composition, not an object with properties: the value is
    # untyped here, and the first-character rule gives SGLang's result.
    tools = [_tool("f", {keyword: [{"type": "object", "properties": {"value": schema}}]})]
    text = (
        "<tool_calls><tool_call>f<tool_sep><arg_key>value</arg_key>"
        f"<arg_value>{raw}</arg_value></tool_call></tool_calls>"
    )
    assert summary(check_format("hy_v3", text, None, tools)) == ("", [("f", {"value": expected})])


# SGLang's streaming tests, with the chunkings they feed.
CHUNKED: list[list[str]] = [
    [DATE],
    [
        "<tool_calls>",
        "<tool_call>get_weather<tool_sep>",
        "<arg_key>city</arg_key>",
        "<arg_value>Tokyo</arg_value>",
        "</tool_call>",
        "</tool_calls>",
    ],
    ["Let me check. ", DATE],
    [
        "<tool_calls>\n",
        "<tool_call>get_weather<tool_sep>\n",
        "<arg_key>city</arg_key><arg_value>Beijing</arg_value>\n",
        "</tool_call>\n",
        "<tool_call>get_weather<tool_sep>\n",
        "<arg_key>city</arg_key><arg_value>Tokyo</arg_value>\n",
        "</tool_call>\n",
        "</tool_calls>",
    ],
    ["Hello <tool_", "calls>"],
    [
        "<tool_calls>",
        "<tool_call>get_current_date<tool_sep></tool_call>",
        "<tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>SF</arg_value>"
        "</tool_call>",
        "<tool_call>search<tool_sep><arg_key>query</arg_key><arg_value>test</arg_value>"
        "</tool_call>",
        "</tool_calls>",
    ],
    ["I will ", "check the ", "date now. ", DATE],
    [
        "<tool_calls>",
        "<tool_call>search<tool_sep>",
        "<arg_key>query</arg_key><arg_value>pizza</arg_value>",
        "<arg_key>count</arg_key><arg_value>7</arg_value>",
        "</tool_call></tool_calls>",
    ],
    [DATE_NL],
    [
        "Checking.",
        "<tool_calls>",
        "\n<tool_call>",
        "get_current_date",
        "<tool_sep>",
        "\n</tool_call>",
        "\n</tool_calls>",
    ],
    ["<tool_calls>", "<tool_call>get_current_date<tool_sep></tool_call>", "</tool_calls>"],
]


@pytest.mark.parametrize("pieces", CHUNKED)
def test_sglang_hy_v3_chunkings(pieces: list[str]) -> None:
    items = check_format("hy_v3", "".join(pieces), None, TOOLS)
    assert testing.coalesce(testing.run(tool_parser("hy_v3", tools=TOOLS), pieces)) == items


def test_sglang_partial_block_opener_is_held() -> None:
    parser = tool_parser("hy_v3", tools=TOOLS)
    assert [getattr(e, "text", None) for e in parser.feed("Hello <tool_")] == ["Hello "]


def test_sglang_name_comes_before_args() -> None:
    text = (
        "<tool_calls><tool_call>get_weather<tool_sep>"
        "<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call></tool_calls>"
    )
    events = testing.run(tool_parser("hy_v3", tools=TOOLS), list(text))
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("ToolCallStart") < kinds.index("ToolCallArgs")


# SGLang's HY v4 form (its _Hy4Tokenizer: suffixed tokens, no <tool_sep>): our hy_v4.
HY4 = (
    "<tool_calls:opensource><tool_call:opensource>get_weather"
    "<arg_key:opensource>city</arg_key:opensource>"
    "<arg_value:opensource>{city}</arg_value:opensource>"
    "</tool_call:opensource></tool_calls:opensource>"
)


@pytest.mark.parametrize("city", ["Beijing", "Tokyo"])
@given(data=st.data())
def test_sglang_hy4_without_tool_separator(city: str, data: st.DataObject) -> None:
    text = HY4.format(city=city)
    assert summary(check_format("hy_v4", text, data, TOOLS)) == (
        "",
        [("get_weather", {"city": city})],
    )
    # hy_v3 needs its <tool_sep>: the v4 form is text there.
    assert summary(check_format("hy_v3", text, None, TOOLS)) == (text, [])
