"""poolside_v1 against SGLang's ``PoolsideV1Detector`` unit suites.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_poolside_v1_detector.py``
and ``test_poolside_v1_detector_finish.py`` (Apache-2.0, copyright the SGLang project):
the model outputs, the tool schemas, the expected calls and the chunkings it feeds (its
four-chunk stream, 1, 8 and 16 characters, text then call); the code is ours. Every text
goes through ``check_format`` (whole, 1-char, 7-char and random chunkings), and each
pinned chunking is replayed and compared with the one-shot result.

Found by this port and fixed (``glm.py``): a key written without a value before the next
key (``<arg_key>location</arg_key><arg_key>count</arg_key><arg_value>3``) ended the call
``incomplete`` and made the rest text; the value now belongs to the last key, as in SGLang.

Where SGLang's expectation differs on purpose, we assert ours and say why:
- SGLang drops calls to tools not in the list; streamcall reports them.
- A call cut off (in a value, or after one before ``</tool_call>``) is reported
  ``incomplete`` with what it had (SGLang drops it).
- A key with no value right before ``</tool_call>`` is malformed markup: the call ends
  ``incomplete`` and the markup is text (SGLang: a call with ``{}``).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sglang_fixtures import function_tool
from streamcall import ToolCallArgs, testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]
FMT = "poolside_v1"


TOOLS = [
    function_tool(
        "get_weather",
        {
            "location": {"type": "string"},
            "count": {"type": "integer"},
            "options": {"type": "object"},
        },
        ["location"],
    ),
    function_tool("search", {"query": {"type": "string"}}, ["query"]),
    function_tool("now", {}),
]

WEATHER_SF = (
    "<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>SF</arg_value>\n</tool_call>"
)
NYC_PIZZA = (
    "<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>NYC</arg_value>\n"
    "</tool_call>\n<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>pizza</arg_value>\n"
    "</tool_call>"
)
ORPHAN_THEN_CALL = (
    "<tool_call>get_weather\n<arg_key>location</arg_key></tool_call>"
    "<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>tacos</arg_value>\n</tool_call>"
)
ORPHAN_THEN_KEY = (
    "<tool_call>get_weather\n<arg_key>location</arg_key><arg_key>count</arg_key>"
    "<arg_value>3</arg_value>\n</tool_call>"
)

CASES: list[tuple[str, str, Calls]] = [
    (WEATHER_SF, "", [("get_weather", {"location": "SF"})]),
    (
        "<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>San Francisco"
        "</arg_value>\n</tool_call>",
        "",
        [("get_weather", {"location": "San Francisco"})],
    ),
    (
        "<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>London</arg_value>\n"
        "<arg_key>count</arg_key>\n<arg_value>3</arg_value>\n"
        '<arg_key>options</arg_key>\n<arg_value>{"verbose": true}</arg_value>\n</tool_call>',
        "",
        [("get_weather", {"location": "London", "count": 3, "options": {"verbose": True}})],
    ),
    (NYC_PIZZA, "", [("get_weather", {"location": "NYC"}), ("search", {"query": "pizza"})]),
    (
        "Sure, checking now. <tool_call>search\n<arg_key>query</arg_key>\n<arg_value>tacos"
        "</arg_value>\n</tool_call>",
        "Sure, checking now. ",
        [("search", {"query": "tacos"})],
    ),
    # SGLang drops an undeclared tool; it is reported here.
    (
        "<tool_call>nonexistent_fn\n<arg_key>x</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
        "",
        [("nonexistent_fn", {"x": 1})],
    ),
    (
        "<tool_call>get_weather\n<arg_key>options</arg_key>\n<arg_value>not_json</arg_value>\n"
        "</tool_call>",
        "",
        [("get_weather", {"options": "not_json"})],
    ),
    ("<tool_call>now\n</tool_call>", "", [("now", {})]),
    ("<tool_call>now</tool_call>", "", [("now", {})]),
    # Cut off: reported incomplete here (SGLang: no call).
    (
        "<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>San Fr",
        "",
        [("get_weather", {"location": "San Fr"})],
    ),
    (WEATHER_SF[: -len("</tool_call>")], "", [("get_weather", {"location": "SF"})]),
    (
        "<tool_call>get_weather\n<arg_key>options</arg_key>\n<arg_value>{1, 2, 3}</arg_value>\n"
        "</tool_call>",
        "",
        [("get_weather", {"options": "{1, 2, 3}"})],
    ),
    # A complete call, then a cut one: the cut key is text, its call incomplete.
    (
        NYC_PIZZA.split("\n<tool_call>search")[0] + "\n<tool_call>search\n<arg_key>q",
        "<arg_key>q",
        [("get_weather", {"location": "NYC"}), ("search", {})],
    ),
    # A key without a value before </tool_call>: malformed (SGLang: a call with {}).
    (
        "<tool_call>get_weather\n<arg_key>location</arg_key></tool_call>",
        "<arg_key>location</arg_key></tool_call>",
        [("get_weather", {})],
    ),
    (
        ORPHAN_THEN_CALL,
        "<arg_key>location</arg_key></tool_call>",
        [("get_weather", {}), ("search", {"query": "tacos"})],
    ),
    # A key without a value before the next key: dropped (the bug this port found).
    (ORPHAN_THEN_KEY, "", [("get_weather", {"count": 3})]),
    # Not calls: kept as text.
    (
        "<tool_call><arg_key>k</arg_key><arg_value>v</arg_value></tool_call>",
        "<tool_call><arg_key>k</arg_key><arg_value>v</arg_value></tool_call>",
        [],
    ),
    (
        "<arg_key>k</arg_key><arg_value>v</arg_value>",
        "<arg_key>k</arg_key><arg_value>v</arg_value>",
        [],
    ),
    ("just a sentence.", "just a sentence.", []),
    # The finish suite's texts
    ("hi <tool_call>get_weather", "hi <tool_call>get_weather", []),
    ("<tool_call>get_weather</tool_call>", "", [("get_weather", {})]),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_poolside_v1_cases(
    text: str, content: str, calls: Calls, data: st.DataObject
) -> None:
    assert summary(check_format(FMT, text, data, TOOLS)) == (content, calls)


def _replay(pieces: list[str]) -> list[testing.Item]:
    return testing.coalesce(testing.run(tool_parser(FMT, tools=TOOLS), pieces))


def _every(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize(
    "pieces",
    [
        [
            "<tool_",
            "call>get_weather\n<arg_key>",
            "location</arg_key>\n<arg_value>San Fr",
            "ancisco</arg_value>\n</tool_call>",
        ],
        list(
            "<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>hello world"
            "</arg_value>\n</tool_call>"
        ),
        list(
            "<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>tacos</arg_value>\n</tool_call>"
        ),
        _every(NYC_PIZZA, 16),
        _every(ORPHAN_THEN_CALL, 8),
        _every(ORPHAN_THEN_KEY, 8),
        list("<tool_call>now\n</tool_call>"),
        [
            "Let me check. ",
            "<tool_call>search\n<arg_key>query</arg_key>\n",
            "<arg_value>foo</arg_value>\n</tool_call>",
        ],
    ],
)
def test_sglang_pinned_chunkings(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert _replay(pieces) == check_format(FMT, text, None, TOOLS)


def test_one_char_deltas_carry_no_tag_bytes() -> None:
    text = (
        "<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>hello world"
        "</arg_value>\n</tool_call>"
    )
    events = testing.run(tool_parser(FMT, tools=TOOLS), list(text))
    args = "".join(e.delta for e in events if isinstance(e, ToolCallArgs))
    assert args == '{"location":"hello world"}'
    assert {e.index for e in events if isinstance(e, ToolCallArgs)} == {0}
