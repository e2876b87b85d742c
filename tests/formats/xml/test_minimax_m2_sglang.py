"""minimax_m2 against SGLang's ``MinimaxM2Detector`` unit suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_minimax_m2_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs (its ``_minimax_call``
helper), the tool schemas, the expected calls and the chunkings it feeds; the code is
ours. Its value-conversion unit tests become whole calls. Every text goes through
``check_format`` (whole, 1-char, 7-char and random chunkings).

Where SGLang's expectation differs on purpose, we assert ours and say why:
- SGLang drops calls to tools not in the list; streamcall reports them.
- A block cut before ``</minimax:tool_call>`` is text in SGLang's one-shot path; here the
  call had started, so it is reported, incomplete, with what it had.
- Only ``true``/``false`` (any case) are booleans: SGLang also reads ``1``/``yes``/``on``
  and ``0``/``no``/``off``; here such text stays the string it is (guessing would change
  what the model wrote).
- ``3.0`` for a ``number`` stays ``3.0`` (SGLang makes it the int 3; both are the same
  JSON number).
- ``null`` for a ``string`` parameter stays the string ``"null"``: string values stream
  before their end is known (SGLang gives null).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sglang_fixtures import function_tool
from streamcall import testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]
FMT = "minimax_m2"


TOOLS = [
    function_tool(
        "get_weather",
        {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        ["city"],
    ),
    function_tool("search", {"query": {"type": "string"}}, ["query"]),
    function_tool(
        "calculate",
        {
            "value": {"type": "number"},
            "count": {"type": "integer"},
            "verbose": {"type": "boolean"},
            "tags": {"type": "array"},
            "meta": {"type": "object"},
            "text": {"type": "string"},
        },
    ),
]


def _minimax_call(func_name: str, params: dict[str, str]) -> str:
    lines = "".join(f'\n<parameter name="{k}">{v}</parameter>' for k, v in params.items())
    return (
        f'<minimax:tool_call>\n<invoke name="{func_name}">{lines}\n</invoke>\n</minimax:tool_call>'
    )


CASES: list[tuple[str, str, Calls]] = [
    (_minimax_call("get_weather", {"city": "Beijing"}), "", [("get_weather", {"city": "Beijing"})]),
    (
        _minimax_call("get_weather", {"city": "London", "unit": "celsius"}),
        "",
        [("get_weather", {"city": "London", "unit": "celsius"})],
    ),
    (
        "Let me look that up. " + _minimax_call("search", {"query": "sglang"}),
        "Let me look that up. ",
        [("search", {"query": "sglang"})],
    ),
    ("The weather is nice today.", "The weather is nice today.", []),
    (
        _minimax_call("get_weather", {"city": "Tokyo"})
        + _minimax_call("search", {"query": "restaurants"}),
        "",
        [("get_weather", {"city": "Tokyo"}), ("search", {"query": "restaurants"})],
    ),
    # SGLang drops an undeclared tool; it is reported here.
    (_minimax_call("nonexistent_func", {"x": "1"}), "", [("nonexistent_func", {"x": 1})]),
    # Cut before the block closes: reported incomplete here (SGLang: text).
    (
        '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Beijing</parameter>',
        "",
        [("get_weather", {"city": "Beijing"})],
    ),
    (
        _minimax_call("calculate", {"count": "7", "verbose": "true"}),
        "",
        [("calculate", {"count": 7, "verbose": True})],
    ),
    (
        _minimax_call("get_weather", {"city": "Paris", "unit": "fahrenheit"}),
        "",
        [("get_weather", {"city": "Paris", "unit": "fahrenheit"})],
    ),
    (
        _minimax_call("calculate", {"count": "3", "verbose": "false"}),
        "",
        [("calculate", {"count": 3, "verbose": False})],
    ),
    (
        _minimax_call("get_weather", {"city": "Berlin"})
        + _minimax_call("calculate", {"count": "5"}),
        "",
        [("get_weather", {"city": "Berlin"}), ("calculate", {"count": 5})],
    ),
    ("Here is the info: ", "Here is the info: ", []),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_minimax_m2_cases(
    text: str, content: str, calls: Calls, data: st.DataObject
) -> None:
    assert summary(check_format(FMT, text, data, TOOLS)) == (content, calls)


@pytest.mark.parametrize(
    ("key", "raw", "expected"),
    [
        ("text", "hello", "hello"),
        ("count", "42", 42),
        ("value", "3.14", 3.14),
        ("value", "3.0", 3.0),
        *[("verbose", v, True) for v in ("true", "True", "TRUE")],
        *[("verbose", v, False) for v in ("false", "False", "FALSE")],
        # SGLang: True / False; here the text stays as written
        *[("verbose", v, v) for v in ("1", "yes", "on", "0", "no", "off")],
        ("text", "null", "null"),  # SGLang: null
        ("meta", '{"key": "val"}', {"key": "val"}),
        ("tags", "[1, 2, 3]", [1, 2, 3]),
        ("count", "not_a_number", "not_a_number"),
    ],
)
def test_sglang_value_conversion(key: str, raw: str, expected: Any) -> None:
    text = _minimax_call("calculate", {key: raw})
    got = summary(check_format(FMT, text, None, TOOLS))
    assert got == ("", [("calculate", {key: expected})])
    assert type(got[1][0][1][key]) is type(expected)


def test_sglang_pinned_chunking() -> None:
    # split right after the start token's '>'
    text = _minimax_call("get_weather", {"city": "Beijing"})
    mid = text.index(">") + 1
    items = check_format(FMT, text, None, TOOLS)
    pieces = [text[:mid], text[mid:]]
    assert testing.coalesce(testing.run(tool_parser(FMT, tools=TOOLS), pieces)) == items
