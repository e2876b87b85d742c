"""k2_horizon: K2 Horizon's IFM calls in its three dialects (xml, xml_typed, json).

The upstream cases (``tests/fixtures/upstream/k2_horizon.json``, from vLLM's
``tests/tool_parsers/test_k2_horizon_tool_parser.py``, Apache-2.0, Copyright contributors
to the vLLM project) run through ``output_parser`` in every chunking; the reasoning ones
are in ``tests/reasoning/test_k2_horizon_reasoning.py``. The code is ours.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import ToolCallArgs, ToolCallStart
from streamcall.formats.k2_horizon import K2HorizonParser
from streamcall.formats.registry import parse_tool_calls, tool_parser
from support import (
    calls,
    check_contract,
    check_every_end,
    check_format,
    check_rendered,
    check_upstream_case,
    merged_by_name,
    schema_for,
    summary,
    typed_tool,
    upstream_cases,
)

_DIALECT = (
    "vLLM fails closed when the wire is not the dialect the request's tool_call_format "
    "names; a text parser sees no request and reads the dialect the call is written in, "
    "as SGLang's k2_v3 does (vllm_differences)"
)
_NAMES = "names are not checked against the tools or a named tool_choice (vllm_differences)"
SKIP = {
    "mismatched_dialect_fails_closed_0": _DIALECT,
    "mismatched_dialect_fails_closed_1": _DIALECT,
    "mismatched_dialect_fails_closed_2": _DIALECT,
    "mismatched_dialect_fails_closed_3": _DIALECT,
    "unknown_tool_fails_closed": _NAMES,
    "malformed_or_incomplete_is_content_1": "a call whose </ifm|tool_call> was seen is "
    "complete though its group never closed (vLLM needs </ifm|tool_calls> to parse anything)",
    "whitespace_only_content_dropped": "whitespace before the group is text, as before any "
    "call in every format here (vLLM drops whitespace-only content)",
}
CASES = [c for c in upstream_cases("k2_horizon", skip=SKIP) if c.values[0]["parser"] == "tool"]


@pytest.mark.parametrize("case", CASES)
def test_upstream(case: dict[str, Any]) -> None:
    check_upstream_case(case, tool_format="k2_horizon")


def test_skipped_cases_give_what_we_say() -> None:
    """What the skipped cases give here, so the reasons above stay true."""
    tools = [typed_tool("lookup", query="string", limit="integer"), typed_tool("ping")]
    # every dialect is read, whatever the request asked for
    got = parse_tool_calls(
        '<ifm|tool_calls><ifm|tool_call>{"name": "ping", "arguments": {}}</ifm|tool_call>'
        "</ifm|tool_calls>",
        "k2_horizon",
        tools=tools,
    )
    assert [(c.name, c.args) for c in got.tool_calls] == [("ping", {})]
    # a group never closed: its closed call is complete
    got = parse_tool_calls("<ifm|tool_calls><ifm|tool_call>ping</ifm|tool_call>", "k2_horizon")
    assert [(c.name, c.incomplete) for c in got.tool_calls] == [("ping", False)]
    assert got.content == ""


LOOKUP = [
    {
        "type": "function",
        "function": {
            "name": "lookup",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "limit": {"type": "integer"},
                    "enabled": {"type": "boolean"},
                    "either": {"type": ["integer", "string"]},
                    "tags": {"type": "array"},
                    "maybe": {"type": ["string", "null"]},
                },
            },
        },
    }
]


def _group(*bodies: str) -> str:
    return (
        "<ifm|tool_calls>"
        + "".join(f"<ifm|tool_call>{b}</ifm|tool_call>" for b in bodies)
        + "</ifm|tool_calls>"
    )


def _json(args: str, name: str = "lookup") -> str:
    return _group(f'{{"name": "{name}", "arguments": {args}}}')


def _typed(key: str, kind: str, value: str) -> str:
    return _group(
        f"lookup<ifm|arg_key>{key}</ifm|arg_key><ifm|arg_type>{kind}</ifm|arg_type>"
        f"<ifm|arg_value>{value}</ifm|arg_value>"
    )


TYPED_CASES: list[tuple[str, Any, dict[str, Any]]] = [
    # JSON dialect: each value typed by the schema
    (_json('{"limit": "2"}'), LOOKUP, {"limit": 2}),
    (_json('{"enabled": "true", "limit": 3}'), LOOKUP, {"enabled": True, "limit": 3}),
    (_json('{"query": 42}'), LOOKUP, {"query": "42"}),  # a string parameter: the text
    (_json('{"query": {"a": [1, 2]}}'), LOOKUP, {"query": '{"a": [1, 2]}'}),
    (_json('{"tags": "[1, 2]"}'), LOOKUP, {"tags": [1, 2]}),
    (_json('{"limit": "many"}'), LOOKUP, {"limit": "many"}),  # nothing to convert to
    (_json('{"enabled": 5}'), LOOKUP, {"enabled": 5}),  # the model's own value stays
    (_json('{"maybe": null, "query": null}'), LOOKUP, {"maybe": None, "query": "null"}),
    (_json('{"either": "7"}'), LOOKUP, {"either": "7"}),  # a string is allowed
    (
        _json('{"other": "2", "x": [1, {"y": "\\u00e9"}]}'),
        LOOKUP,
        {"other": "2", "x": [1, {"y": "é"}]},
    ),
    (_json('{"limit": "2"}'), None, {"limit": "2"}),  # no schema: as written
    (_json('{"query": "a \\"q\\" \\\\ \\n"}'), LOOKUP, {"query": 'a "q" \\ \n'}),
    (_json("{}"), LOOKUP, {}),
    (_group('{"name": "ping"}'), None, {}),
    (_group('{ "name" : "lookup" , "parameters" : {"limit":"4"} }'), LOOKUP, {"limit": 4}),
    # xml_typed: a written type narrows a union, and types what the schema does not
    (_typed("either", "integer", "7"), LOOKUP, {"either": 7}),
    (_typed("either", "string", "7"), LOOKUP, {"either": "7"}),
    (_typed("limit", "string", "7"), LOOKUP, {"limit": 7}),  # the schema wins
    (_typed("free", "integer", " 7 "), LOOKUP, {"free": 7}),
    (_typed("free", "any", " 7 "), LOOKUP, {"free": " 7 "}),
    (_typed("free", "array[string]", '["a"]'), LOOKUP, {"free": ["a"]}),
    (_typed("free", "boolean", "true"), None, {"free": True}),
    (_typed("free", "", "7"), None, {"free": 7}),  # an empty type says nothing
    # xml: string values as written, newlines included
    (
        _group("lookup<ifm|arg_key>query</ifm|arg_key><ifm|arg_value>\n a\n</ifm|arg_value>"),
        LOOKUP,
        {"query": "\n a\n"},
    ),
]


@pytest.mark.parametrize(("text", "tools", "args"), TYPED_CASES)
@given(data=st.data())
def test_values_are_typed(text: str, tools: Any, args: dict[str, Any], data: st.DataObject) -> None:
    content, got = summary(check_format("k2_horizon", text, data, tools))
    assert content == ""
    assert len(got) == 1 and got[0][1] == args


@pytest.mark.parametrize("render", ["render", "render_json", "render_typed"])
@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "a < b {x}\n"]))
def test_every_dialect_round_trips(
    render: str, data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    call_list = merged_by_name(call_list)
    text = before + getattr(K2HorizonParser, render)(call_list) + " after"
    for tools in (schema_for(call_list), None):
        typed = tools is not None or render == "render_json"
        check_rendered("k2_horizon", text, data, call_list, before + " after", tools, values=typed)


def _args(events: list[Any]) -> list[str]:
    return [e.delta for e in events if isinstance(e, ToolCallArgs)]


def test_calls_and_string_values_stream_before_their_closers() -> None:
    p = tool_parser("k2_horizon", tools=LOOKUP)
    events = p.feed("<ifm|tool_calls><ifm|tool_call>lookup<ifm|arg_key>query</ifm|arg_key>")
    assert [e.name for e in events if isinstance(e, ToolCallStart)] == ["lookup"]
    assert _args(events) == ["{"]
    assert _args(p.feed("<ifm|arg_value>a long va")) == ['"query":"a long va']
    assert _args(p.feed("lue")) == ["lue"]
    # the JSON dialect too, where the schema takes the string as it is
    p = tool_parser("k2_horizon", tools=LOOKUP)
    long = "a long value " * 6  # (a short member cut by the chunk is held whole)
    head = '<ifm|tool_calls><ifm|tool_call>{"name": "lookup", "arguments": {"query": "'
    assert "".join(_args(p.feed(head + long))) == '{"query":"' + long
    assert _args(p.feed("ng value")) == ["ng value"]
    # a value the schema types waits until it is whole
    assert _args(p.feed('", "limit": "1')) == ['"']
    assert _args(p.feed('2"}}')) == [',"limit":12}']


MALFORMED = [
    # junk in a group before a call: the group is text
    "<ifm|tool_calls>junk</ifm|tool_calls>",
    "<ifm|tool_calls><ifm|tool_call></ifm|tool_call></ifm|tool_calls>",
    # a JSON body that breaks, or that is not a call
    _group('{"name": "lookup", "arguments": {"limit": 2,, }}'),
    _group('{"name": "lookup", "arguments": {"limit": "2" x}}'),
    _group('{"arguments": {}, "name": "lookup"}'),
    _group('{"name": "lookup", "arguments": "{}"}'),
    _group('{"name": "lookup", "arguments": {"limit": 2}} junk'),
    _group('{"name": "lookup", "arguments": {"limit": 2}}}'),
    _group('{"name": "lookup", "arguments": {"limit": 2}'),  # the object's '}' left out
    # tags out of place
    _group("lookup<ifm|arg_key>limit</ifm|arg_key>2</ifm|arg_value>"),
    _group(
        "lookup<ifm|arg_key>limit</ifm|arg_key><ifm|arg_type>integer<ifm|arg_value>2</ifm|arg_value>"
    ),
    _group("lookup junk<ifm|arg_key>limit</ifm|arg_key><ifm|arg_value>2</ifm|arg_value>"),
    _group("lookup<ifm|arg_key>limit</ifm|arg_key><ifm|arg_value>2</ifm|arg_value>junk"),
    "<ifm|tool_call>lookup</ifm|tool_call> bare, outside a group",
    "<ifm|think>plan</ifm|think><ifm|tool_calls>",
]


@pytest.mark.parametrize("text", MALFORMED)
@given(data=st.data())
def test_malformed_markup_degrades(text: str, data: st.DataObject) -> None:
    for tools in (LOOKUP, None):
        check_contract("k2_horizon", "Hi " + text + " bye", data, tools)


@pytest.mark.parametrize("text", MALFORMED[2:9])
def test_broken_json_bodies_end_incomplete_with_valid_arguments(text: str) -> None:
    got = parse_tool_calls(text, "k2_horizon", tools=LOOKUP)
    for call in got.tool_calls:
        assert isinstance(call.args, dict)


def test_missing_object_brace_is_tolerated() -> None:
    got = parse_tool_calls(MALFORMED[8], "k2_horizon", tools=LOOKUP)
    assert [(c.name, c.args, c.incomplete) for c in got.tool_calls] == [
        ("lookup", {"limit": 2}, False)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Before " + _json('{"query": "q \\u00e9 x", "limit": "12", "tags": [1, {"a": "}"}]}'),
        _group(
            '{"name": "lookup", "arguments": {"enabled": true}}',
            "lookup<ifm|arg_key>either</ifm|arg_key><ifm|arg_type>integer</ifm|arg_type>"
            "<ifm|arg_value>5</ifm|arg_value>",
        )
        + "\nafter",
    ],
)
def test_every_end_of_stream(text: str) -> None:
    check_every_end("k2_horizon", text, LOOKUP)
    got = parse_tool_calls(text[: len(text) // 2], "k2_horizon", tools=LOOKUP)
    assert all(c.incomplete for c in got.tool_calls[-1:])


def test_a_cut_typed_json_value_is_converted_as_far_as_it_came() -> None:
    got = parse_tool_calls(_json('{"query": "ab", "limit": "1')[:-40], "k2_horizon", tools=LOOKUP)
    assert [(c.args, c.incomplete) for c in got.tool_calls] == [({"query": "ab"}, True)]
    got = parse_tool_calls(
        '<ifm|tool_calls><ifm|tool_call>{"name": "lookup", "arguments": {"limit": 12',
        "k2_horizon",
        tools=LOOKUP,
    )
    assert [(c.args, c.incomplete) for c in got.tool_calls] == [({"limit": 12}, True)]


def test_long_held_json_values_stay_linear() -> None:
    """A held value's text is kept in parts: feeding it in many chunks costs its length."""
    big = "[" + ",".join(["1"] * 20000) + "]"
    text = _json('{"tags": "' + big + '"}')
    p = tool_parser("k2_horizon", tools=LOOKUP)
    events = []
    for i in range(0, len(text), 5):
        events.extend(p.feed(text[i : i + 5]))
    events.extend(p.finish())
    args = "".join(e.delta for e in events if isinstance(e, ToolCallArgs))
    assert json.loads(args) == {"tags": [1] * 20000}


# --- the fast reads of the typed JSON arguments (_jsonmembers) ----------------------------

FAST_ARGS = [
    '{"query": "plain", "limit": "12", "enabled": true, "tags": [1, "x"], "free": null, '
    '"either": 3, "maybe": "m", "n": -1.5e3, "e": "a\\"b", "u": "\\u00e9", "k\\"ey": 1}',
    '{ "limit" : 7 ,\n "query" : "q" }',
    '{"limit": "1", "query": 5,}',
    '{"limit": tru, "query": "x"}',
    '{"a,b": "x,y", "limit": "3", "query": ",", "c": 1}',  # commas inside strings
    "{}",
]


@pytest.mark.parametrize("args", FAST_ARGS)
@pytest.mark.parametrize("tools", [LOOKUP, None])
def test_fast_reads_equal_the_reference(args: str, tools: Any) -> None:
    from streamcall import testing
    from streamcall.text import fast

    text = "Hi " + _json(args) + " bye"
    for pieces in (
        *([text[:i], text[i:]] for i in range(1, len(text))),
        *(testing.chunk_every(text, n) for n in (1, 2, 3, 5, 7, 11)),
        *([text[:i]] for i in range(1, len(text), 3)),
    ):
        got = testing.coalesce(testing.run(tool_parser("k2_horizon", tools=tools), pieces))
        with fast.reference():
            want = testing.coalesce(testing.run(tool_parser("k2_horizon", tools=tools), pieces))
        assert got == want, pieces


def test_whole_json_members_are_read_by_one_regex() -> None:
    from streamcall.formats.engines import json_members as _jsonmembers

    args = _jsonmembers.TypedJsonArgs({"limit": {"type": "integer"}})
    calls = []
    original = _jsonmembers.ArgsStreamer

    class Counting(original):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            calls.append(1)
            super().__init__()

    _jsonmembers.ArgsStreamer = Counting  # type: ignore[misc]
    try:
        text = '{"a": "x", "limit": "3", "b": 1, "c": "cut'
        delta, end = args.push(text, 0)
    finally:
        _jsonmembers.ArgsStreamer = original  # type: ignore[misc]
    assert (delta, calls) == ('{"a":"x","limit":3,"b":1', [])
    assert end == text.index('"c"')  # the cut member: held whole
