"""The XML-parameter engine (``engines.xml_params``) through ``qwen3_coder``: streaming, typing,
incomplete and malformed markup. Format-specific cases live in each family's file."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import Text, ToolCallArgs, ToolCallEnd, ToolCallStart
from streamcall.formats.registry import tool_parser
from streamcall.formats.schema import AUTO, HELD, STRING, convert_value, value_plan
from support import check_format, summary


def tools(props: dict[str, Any], name: str = "f") -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {"name": name, "parameters": {"type": "object", "properties": props}},
        }
    ]


def call(name: str, **params: str) -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params.items())
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


def test_a_long_string_streams_before_its_closer() -> None:
    p = tool_parser("qwen3_coder", tools=tools({"code": {"type": "string"}}))
    events = p.feed("<tool_call>\n<function=f>\n<parameter=code>\n")
    body = "print('hello')\n" * 400
    streamed = []
    for i in range(0, len(body), 7):
        streamed.extend(e.delta for e in p.feed(body[i : i + 7]) if isinstance(e, ToolCallArgs))
    # Everything but a held trailing newline (and a partial closer) is already out.
    so_far = "".join(e.delta for e in events if isinstance(e, ToolCallArgs)) + "".join(streamed)
    assert so_far == '{"code":"' + json.dumps(body)[1:-3]
    rest = p.feed("</parameter>\n</function>\n</tool_call>") + p.finish()
    end = next(e for e in rest if isinstance(e, ToolCallEnd))
    assert json.loads(end.arguments) == {"code": body[:-1]}


def test_a_held_value_is_not_quadratic_to_collect() -> None:
    p = tool_parser("qwen3_coder", tools=tools({"data": {"type": "object"}}))
    doc = json.dumps({"k" + str(i): "v" * 20 for i in range(3000)})
    text = call("f", data=doc)
    events = []
    for i in range(0, len(text), 7):
        events.extend(p.feed(text[i : i + 7]))
        assert len(p._tail) < 40  # the held value lives in parts, not in the tail
    events.extend(p.finish())
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert json.loads(end.arguments) == {"data": json.loads(doc)}


# The no-schema rule: decided by the first character (after the one stripped newline).
NO_SCHEMA = [
    ("42", 42),
    ("-3.5", -3.5),
    ("[1, 2]", [1, 2]),
    ('{"a": {"b": null}}', {"a": {"b": None}}),
    ("{'a': 1}", {"a": 1}),  # a Python literal, as vLLM's literal_eval fallback
    ("true", True),
    ("false", False),
    ("null", None),
    ("nullable", "nullable"),
    ("t", "t"),
    ("truth", "truth"),
    ("123 Main Street", "123 Main Street"),
    ("[not json", "[not json"),
    ("Dallas", "Dallas"),
    ("", ""),
    (" true", " true"),
    ("line one\nline two", "line one\nline two"),
    ("\nleading blank line kept", "\nleading blank line kept"),
]


@pytest.mark.parametrize(("raw", "value"), NO_SCHEMA)
@given(data=st.data())
def test_untyped_values(raw: str, value: Any, data: st.DataObject) -> None:
    text = call("f", x=raw)
    _, calls = summary(check_format("qwen3_coder", text, data))
    assert calls == [("f", {"x": value})]
    assert type(calls[0][1]["x"]) is type(value)


TYPED = [
    ({"type": "integer"}, "42", 42),
    ({"type": "integer"}, "forty", "forty"),
    ({"type": "number"}, "3.14", 3.14),
    ({"type": "number"}, "7", 7),
    ({"type": "float"}, "2.5", 2.5),
    ({"type": "boolean"}, "True", True),
    ({"type": "boolean"}, "maybe", "maybe"),
    ({"type": "string"}, "42", "42"),
    ({"type": "string"}, "null", "null"),
    ({"type": ["string", "null"]}, "null", None),
    ({"anyOf": [{"type": "string"}, {"type": "null"}]}, "nullish", "nullish"),
    ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, "null", None),
    ({"type": "array"}, '["a", "b"]', ["a", "b"]),
    ({"type": "object"}, '{"k": 1}', {"k": 1}),
    ({"type": "object"}, "not an object", "not an object"),
    ({"enum": ["a", "b"]}, "a", "a"),
    ({"type": "integer"}, "NaN", "NaN"),
    ({"type": "object"}, "NaN", "NaN"),
]


@pytest.mark.parametrize(("schema", "raw", "value"), TYPED)
@given(data=st.data())
def test_typed_values(schema: dict[str, Any], raw: str, value: Any, data: st.DataObject) -> None:
    _, calls = summary(check_format("qwen3_coder", call("f", x=raw), data, tools({"x": schema})))
    assert calls == [("f", {"x": value})]
    assert type(calls[0][1]["x"]) is type(value)


def test_value_plans() -> None:
    assert value_plan({"type": "string"})[0] == STRING
    assert value_plan({"type": "integer"})[0] == HELD
    assert value_plan(None)[0] == AUTO
    assert value_plan({"description": "anything"})[0] == AUTO
    assert value_plan({"anyOf": [{"type": "string"}, {}]})[0] == AUTO
    assert convert_value("1e400", frozenset({"number"})) == '"1e400"'


FULL = 'Let me look.<tool_call>\n<function=get_weather>\n<parameter=city>\nSan Francisco\n</parameter>\n<parameter=days>\n3\n</parameter>\n<parameter=opts>\n{"a": [1, 2]}\n</parameter>\n<parameter=flag>\ntrue\n</parameter>\n</function>\n</tool_call> Done.'
FULL_TOOLS = tools(
    {"city": {"type": "string"}, "days": {"type": "integer"}, "opts": {"type": "object"}},
    "get_weather",
)


@given(data=st.data(), cut=st.integers(0, len(FULL)))
def test_every_prefix_is_a_valid_stream(data: st.DataObject, cut: int) -> None:
    """Cut anywhere: the invariants hold and an open call ends incomplete with valid JSON."""
    items = check_format("qwen3_coder", FULL[:cut], data, FULL_TOOLS)
    text, calls = summary(items)
    assert "Let me look."[:cut] in text or cut < 12
    for _, args in calls:
        assert isinstance(args, dict)


def test_incomplete_call_is_reported() -> None:
    items = check_format("qwen3_coder", FULL[:75], None, FULL_TOOLS)
    call_item = next(v for k, v in items if k == "call")
    assert call_item.incomplete  # type: ignore[union-attr]
    assert json.loads(call_item.arguments) == {"city": "San Francis"}  # type: ignore[union-attr]


@given(data=st.data())
def test_malformed_header_is_text(data: st.DataObject) -> None:
    text = "a <tool_call>\n<function=\nbad> b"
    items = check_format("qwen3_coder", text, data)
    assert items == [("text", text)]


@given(data=st.data())
def test_junk_between_parameters_ends_the_call(data: st.DataObject) -> None:
    text = "<tool_call><function=f><parameter=a>1</parameter> oops </function></tool_call>"
    items = check_format("qwen3_coder", text, data)
    content, calls = summary(items)
    assert calls == [("f", {"a": 1})]
    assert next(v for k, v in items if k == "call").incomplete  # type: ignore[union-attr]
    assert content == " oops </function></tool_call>"


def test_events_in_order() -> None:
    p = tool_parser("qwen3_coder")
    events = p.feed("Hi<tool_call><function=f><parameter=a>x</parameter></function></tool_call>")
    events += p.finish()
    assert events[0] == Text("Hi")
    assert isinstance(events[1], ToolCallStart) and events[1].name == "f"
    assert "".join(e.delta for e in events if isinstance(e, ToolCallArgs)) == '{"a":"x"}'


@given(data=st.data())
def test_several_calls_in_one_chunk(data: st.DataObject) -> None:
    """SGLang #37634: several complete calls in one delta lose nothing."""
    text = "".join(call("f", a=str(i)) for i in range(5))
    _, calls = summary(check_format("qwen3_coder", text, data))
    assert calls == [("f", {"a": i}) for i in range(5)]
