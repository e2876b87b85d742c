"""hy_v4 (Tencent HY v4), and the per-checkpoint marker suffix that HY v3 and v4 share.

Cases are taken from vLLM's ``tests/tool_parsers/test_hy_v4_tool_parser.py`` (Apache-2.0,
Copyright contributors to the vLLM project): the model outputs (built with its ``arg``,
``call`` and ``block`` helpers and its ``:opensource`` suffix), the tool schemas, the
expected calls and content, and the chunkings it pins; the code is ours. Every text goes
through ``check_format`` (whole, 1-char, 7-char and random chunkings).

Where vLLM's expectation differs on purpose, we assert ours and say why:
- vLLM reports content ``None`` when there is no text; here it is ``""``.
- Untyped values (no tool, or no schema for the key) are typed by their first character,
  as everywhere in the XML family (``engines.xml_params``: ``1`` is a number); vLLM keeps them
  as strings.
- vLLM's wrapper is strict: any malformed block makes the whole output content. Here a
  well-formed call is kept whatever follows it (a missing ``</tool_calls>`` or
  ``</tool_call>``), and junk ends a started call incomplete, the junk being text: a
  streaming parser has already handed the call out when the junk arrives.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]

FMT = "hy_v4"
SUFFIX = ":opensource"

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "strict": True,
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_current_date",
            "parameters": {"type": "object", "properties": {}},
        },
    },
]

TYPED_TOOL: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "typed",
            "parameters": {
                "type": "object",
                "properties": {
                    "s": {"type": "string"},
                    "i": {"type": "integer"},
                    "b": {"type": "boolean"},
                    "n": {"type": "number"},
                    "arr": {"type": "array"},
                    "obj": {"type": "object"},
                    "alias_int": {"type": "int"},
                    "alias_list": {"type": "list"},
                    "prefix_uint": {"type": "uint32"},
                    "union": {"type": ["string", "object"]},
                    "any_of": {"anyOf": [{"type": "string"}, {"type": "array"}]},
                    "one_of": {"oneOf": [{"type": "number"}]},
                    "untyped": {},
                },
            },
        },
    }
]


def arg(key: str, value: str, sfx: str = SUFFIX) -> str:
    return f"<arg_key{sfx}>{key}</arg_key{sfx}><arg_value{sfx}>{value}</arg_value{sfx}>"


def call(name: str, args: str = "", sfx: str = SUFFIX) -> str:
    return f"<tool_call{sfx}>{name}{args}</tool_call{sfx}>"


def block(body: str, sfx: str = SUFFIX) -> str:
    return f"<tool_calls{sfx}>{body}</tool_calls{sfx}>"


# --- value typing (vLLM TestArgumentValueTypes) ----------------------------------------


@pytest.mark.parametrize(
    ("key", "raw", "expected"),
    [
        ("s", "Beijing", "Beijing"),
        ("s", "", ""),
        ("i", "3", 3),
        ("i", "-7", -7),
        ("b", "true", True),
        ("b", "True", True),
        ("b", "false", False),
        ("n", "5", 5),
        ("n", "5.5", 5.5),
        ("n", "1e3", 1000.0),
        ("arr", '["a", "b"]', ["a", "b"]),
        ("obj", '{"k": 1}', {"k": 1}),
        ("alias_int", "7", 7),
        ("alias_list", "[1]", [1]),
        ("prefix_uint", "42", 42),
        ("union", '{"a": 1}', {"a": 1}),
        ("union", "plain", "plain"),
        ("any_of", '["x"]', ["x"]),
        ("any_of", "plain", "plain"),
        ("one_of", "2.5", 2.5),
        ("untyped", "v", "v"),
        # unparsable values are kept as text, never dropped
        ("i", "notanint", "notanint"),
        ("b", "yes", "yes"),
        ("arr", "notjson", "notjson"),
        ("nope", "v", "v"),  # an unknown argument
    ],
)
@given(data=st.data())
def test_value_coercion(key: str, raw: str, expected: Any, data: st.DataObject) -> None:
    text = block(call("typed", arg(key, raw)))
    content, calls = summary(check_format(FMT, text, data, TYPED_TOOL))
    assert content == ""
    assert calls == [("typed", {key: expected})]
    assert type(calls[0][1][key]) is type(expected)


# --- whole outputs (vLLM TestExtractToolCalls, TestExtractToolCallsStreaming) -----------

CASES: list[tuple[str, str, Calls]] = [
    ("A plain response.", "A plain response.", []),
    (
        "sure!" + block(call("get_weather", arg("city", "Beijing") + arg("days", "3"))),
        "sure!",
        [("get_weather", {"city": "Beijing", "days": 3})],
    ),
    (block(call("get_current_date")), "", [("get_current_date", {})]),
    (
        block(call("get_weather", arg("city", "A")) + call("get_current_date")),
        "",
        [("get_weather", {"city": "A"}), ("get_current_date", {})],
    ),
    (
        block(call("get_weather", arg("city", "Beijing")) + call("get_current_date")),
        "",
        [("get_weather", {"city": "Beijing"}), ("get_current_date", {})],
    ),
    (block(call("get_weather", arg("city", "北京"))), "", [("get_weather", {"city": "北京"})]),
    (
        block(call("get_weather", arg("city", "A") + arg("days", "7"))),
        "",
        [("get_weather", {"city": "A", "days": 7})],
    ),
    (
        "hi" + block("\n  " + call("get_weather", arg("city", "Beijing"))),
        "hi",
        [("get_weather", {"city": "Beijing"})],
    ),
    (  # vLLM test_request_tools_are_used_when_none_at_construction
        block(call("get_weather", arg("days", "3"))),
        "",
        [("get_weather", {"days": 3})],
    ),
    # Unknown tool, no schema: vLLM keeps "1" a string; untyped values are typed by their
    # first character here (see the module docstring).
    (block(call("mystery", arg("x", "1"))), "", [("mystery", {"x": 1})]),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_vllm_cases(text: str, content: str, calls: Calls, data: st.DataObject) -> None:
    got_content, got_calls = summary(check_format(FMT, text, data, TOOLS))
    assert got_content == content
    assert got_calls == calls


def test_no_tools_declared() -> None:
    text = block(call("x", arg("a", "1")))
    assert summary(check_format(FMT, text, None, None)) == ("", [("x", {"a": 1})])


@pytest.mark.parametrize("sfx", [":a+b(c", ""])
def test_suffix_is_not_a_pattern(sfx: str) -> None:
    """vLLM test_regex_metacharacters_in_suffix, and an unsuffixed checkpoint."""
    text = f"<tool_calls{sfx}><tool_call{sfx}>get_current_date</tool_call{sfx}></tool_calls{sfx}>"
    assert summary(check_format(FMT, text, None, TOOLS)) == ("", [("get_current_date", {})])


# The chunkings vLLM pins: markers split across deltas (guided decoding emits them as text).
SPLIT_MARKERS = "hi" + block("\n  " + call("get_weather", arg("city", "Beijing")))
_HEAD = ["hi", "<tool_call", f"s{SUFFIX}>", "\n ", " <tool_", f"call{SUFFIX}>"]
SPLIT_VALUE_CLOSE = [
    f"<tool_calls{SUFFIX}><tool_call{SUFFIX}>get_weather"
    f"<arg_key{SUFFIX}>city</arg_key{SUFFIX}><arg_value{SUFFIX}>Beijing",
    "</arg_",
    f"value{SUFFIX}>",
    f"</tool_call{SUFFIX}>",
    f"</tool_calls{SUFFIX}>",
]


@pytest.mark.parametrize(
    "pieces",
    [
        _HEAD + list(SPLIT_MARKERS[len("".join(_HEAD)) :]),
        SPLIT_VALUE_CLOSE,
        [block(call("get_weather", arg("city", "Beijing")))],  # the whole block in one delta
        ["Plain ", "answer."],
    ],
)
def test_vllm_pinned_chunkings(pieces: list[str]) -> None:
    text = "".join(pieces)
    items = check_format(FMT, text, None, TOOLS)
    assert testing.coalesce(testing.run(tool_parser(FMT, tools=TOOLS), pieces)) == items


# --- malformed blocks (vLLM MALFORMED; its strict mode makes each one content) ---------

MALFORMED: list[tuple[str, str, str, Calls]] = [
    # A well-formed call is kept although </tool_calls> never comes.
    (
        "missing_tool_calls_end",
        f"<tool_calls{SUFFIX}>" + call("get_current_date"),
        "",
        [("get_current_date", {})],
    ),
    # </tool_calls> ends the call whose </tool_call> is missing (as in hy_v3).
    (
        "unbalanced_tool_call",
        block(f"<tool_call{SUFFIX}>get_weather" + arg("city", "X")),
        "",
        [("get_weather", {"city": "X"})],
    ),
    # An empty name is no call: the block is text (vLLM drops the call).
    ("empty_function_name", block(call("")), block(call("")), []),
    # Junk after a parameter ends the call (incomplete, with what it had); the junk is text.
    (
        "unparsed_argument_payload",
        block(f"<tool_call{SUFFIX}>get_weather" + arg("city", "X") + f"JUNK</tool_call{SUFFIX}>"),
        f"JUNK</tool_call{SUFFIX}></tool_calls{SUFFIX}>",
        [("get_weather", {"city": "X"})],
    ),
    # A key with no value: the call ends incomplete and the markup is text.
    (
        "unbalanced_arg_tags",
        block(
            f"<tool_call{SUFFIX}>get_weather<arg_key{SUFFIX}>city</arg_key{SUFFIX}>"
            f"</tool_call{SUFFIX}>"
        ),
        f"<arg_key{SUFFIX}>city</arg_key{SUFFIX}></tool_call{SUFFIX}></tool_calls{SUFFIX}>",
        [("get_weather", {})],
    ),
    (
        "end_before_start",
        f"</tool_calls{SUFFIX}>" + call("get_current_date") + f"<tool_calls{SUFFIX}>",
        f"</tool_calls{SUFFIX}>" + call("get_current_date") + f"<tool_calls{SUFFIX}>",
        [],
    ),
]


@pytest.mark.parametrize(("name", "text", "content", "calls"), MALFORMED)
@given(data=st.data())
def test_malformed(name: str, text: str, content: str, calls: Calls, data: st.DataObject) -> None:
    got_content, got_calls = summary(check_format(FMT, text, data, TOOLS))
    assert (got_content, got_calls) == (content, calls), name


# --- the marker suffix (ours) -----------------------------------------------------------

SUFFIX_CASES: list[tuple[str, str, str, Calls]] = [
    # '<tool_calls' that opens no block is text, wherever the stream cuts it
    ("hy_v4", "a <tool_calls are> b", "a <tool_calls are> b", []),
    ("hy_v4", "a <tool_calls", "a <tool_calls", []),
    ("hy_v4", "a <tool_calls:x", "a <tool_calls:x", []),
    ("hy_v4", "a <tool_calls:" + "x" * 80 + ">", "a <tool_calls:" + "x" * 80 + ">", []),
    (
        "hy_v4",
        "<tool_calls<tool_calls>" + call("f", "", "") + "</tool_calls>",
        "<tool_calls",
        [("f", {})],
    ),
    # each block reads its own suffix; markers of another suffix are not markers
    (
        "hy_v4",
        block(call("f", arg("a", "x", ""), ""), "") + "\n" + block(call("g", arg("b", "y"))),
        "",
        [("f", {"a": "x"}), ("g", {"b": "y"})],
    ),
    (  # the name ends at '<'; an unsuffixed parameter is then junk, and text
        "hy_v4",
        block(call("f", arg("a", "x", ""))),
        arg("a", "x", "") + f"</tool_call{SUFFIX}></tool_calls{SUFFIX}>",
        [("f", {})],
    ),
    # blanks after a block come back as text when what follows is not a block after all
    (
        "hy_v4",
        block(call("f")) + "\n <tool_calls are text",
        "\n <tool_calls are text",
        [("f", {})],
    ),
    (
        "hy_v3",
        block(
            f"<tool_call{SUFFIX}>get_weather<tool_sep{SUFFIX}>"
            + arg("city", "B")
            + f"</tool_call{SUFFIX}>"
        ),
        "",
        [("get_weather", {"city": "B"})],
    ),
    (  # v3 needs its <tool_sep>
        "hy_v3",
        "<tool_calls><tool_call>get_weather<arg_key>city</arg_key>",
        "<tool_calls><tool_call>get_weather<arg_key>city</arg_key>",
        [],
    ),
]


@pytest.mark.parametrize(("fmt", "text", "content", "calls"), SUFFIX_CASES)
@given(data=st.data())
def test_marker_suffix(
    fmt: str, text: str, content: str, calls: Calls, data: st.DataObject
) -> None:
    got_content, got_calls = summary(check_format(fmt, text, data, TOOLS))
    assert (got_content, got_calls) == (content, calls)


def test_string_values_stream() -> None:
    parser = tool_parser(FMT, tools=TOOLS)
    head = f"<tool_calls{SUFFIX}><tool_call{SUFFIX}>get_weather<arg_key{SUFFIX}>city"
    parser.feed(head + f"</arg_key{SUFFIX}><arg_value{SUFFIX}>Llanfair")
    events = parser.feed("pwllgwyngyll")
    assert json.dumps([type(e).__name__ for e in events]) == '["ToolCallArgs"]'
