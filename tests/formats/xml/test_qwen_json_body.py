"""qwen3_xml / qwen3_coder / mimo: Hermes JSON bodies inside ``<tool_call>``, beside XML ones.

Qwen2.5, QwQ and Qwen3 (non-coder) write ``<tool_call>\\n{"name": ..., "arguments": ...}\\n
</tool_call>``; Qwen3-Coder and Qwen3.5 write ``<function=...>`` bodies. Every ``qwen`` model
id routes to ``qwen3_xml``, so that format reads both, decided per block by the first
non-blank character. JSON bodies must come out exactly as ``hermes`` gives them.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall.formats.registry import format_for_model, parse_tool_calls
from support import check_format, summary

NAMES = ["qwen3_xml", "qwen3_coder", "mimo"]

JSON_CALL = (
    '<tool_call>\n{"name": "get_current_weather", "arguments": '
    '{"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}\n</tool_call>'
)
XML_CALL = (
    "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nOrlando\n</parameter>\n"
    "<parameter=state>\nFL\n</parameter>\n</function>\n</tool_call>"
)
DALLAS = {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}
ORLANDO = {"city": "Orlando", "state": "FL"}


@pytest.mark.parametrize("fmt", NAMES)
@given(data=st.data())
def test_json_body_streams_verbatim_like_hermes(fmt: str, data: st.DataObject) -> None:
    text = "Let me check." + JSON_CALL
    items = check_format(fmt, text, data)
    content, calls = summary(items)
    assert content == "Let me check."
    assert calls == [("get_current_weather", DALLAS)]
    hermes = parse_tool_calls(text, "hermes")
    assert [c.arguments for c in parse_tool_calls(text, fmt).tool_calls] == [
        c.arguments for c in hermes.tool_calls
    ]
    # verbatim: the model's own spacing is kept
    assert hermes.tool_calls[0].arguments == json.dumps(DALLAS)


@pytest.mark.parametrize("fmt", NAMES)
@given(data=st.data())
def test_both_bodies_mixed_in_one_output(fmt: str, data: st.DataObject) -> None:
    text = "A" + JSON_CALL + "\n" + XML_CALL + " B " + JSON_CALL.replace("Dallas", "Austin")
    content, calls = summary(check_format(fmt, text, data))
    assert content == "A B "  # the newline between two blocks is markup
    assert calls == [
        ("get_current_weather", DALLAS),
        ("get_current_weather", ORLANDO),
        ("get_current_weather", {**DALLAS, "city": "Austin"}),
    ]


@given(data=st.data())
def test_parallel_json_calls_and_ids(data: st.DataObject) -> None:
    text = JSON_CALL + "\n" + JSON_CALL + XML_CALL
    items = check_format("qwen3_xml", text, data)
    ids = [v.id for k, v in items if k == "call" and not isinstance(v, str)]
    assert len(ids) == 3 and len(set(ids)) == 3


@pytest.mark.parametrize(
    ("body", "args"),
    [
        ('{"name": "f", "arguments": {}}', {}),
        ('{"name": "f"}', {}),  # parameterless: {} (vLLM #28806)
        ('{"arguments": {"a": [1, 2]}, "name": "f"}', {"a": [1, 2]}),  # keys in any order
        ('{"name": "f", "arguments": "{\\"a\\": \\"x\\\\ny\\"}"}', {"a": "x\ny"}),  # string args
        ('{"name": "f", "parameters": {"a": null}}', {"a": None}),
        ('  \n {"name": "f", "arguments": {"q": "<function=g>"}}  \n', {"q": "<function=g>"}),
    ],
)
@given(data=st.data())
def test_json_body_forms(body: str, args: dict[str, object], data: st.DataObject) -> None:
    text = f"<tool_call>{body}</tool_call>"
    content, calls = summary(check_format("qwen3_xml", text, data))
    assert content == ""
    assert calls == [("f", args)]


@pytest.mark.parametrize(
    "text",
    [
        "<tool_call>{not json}</tool_call> after",
        '<tool_call>{"arguments": 42, "name": "f"}</tool_call>',
        "<tool_call>{",
        "x <tool_call> {} </tool_call>",
    ],
)
@given(data=st.data())
def test_malformed_json_body_is_text(text: str, data: st.DataObject) -> None:
    content, calls = summary(check_format("qwen3_xml", text, data))
    assert calls == []
    assert content == text


@given(data=st.data())
def test_json_call_cut_off_is_reported(data: st.DataObject) -> None:
    text = '<tool_call>\n{"name": "f", "arguments": {"a": "long te'
    items = check_format("qwen3_xml", text, data)
    calls = [v for k, v in items if k == "call" and not isinstance(v, str)]
    assert [(c.name, json.loads(c.arguments), c.incomplete) for c in calls] == [
        ("f", {"a": "long te"}, True)
    ]


@given(data=st.data())
def test_body_kind_is_decided_once_per_block(data: st.DataObject) -> None:
    # After a JSON call the block is JSON; an XML call that follows in the same block
    # ends it, and is then read as a bare call (Qwen3.5 sometimes drops the wrapper).
    text = '<tool_call>{"name": "f", "arguments": {}}<function=g></function></tool_call>'
    content, calls = summary(check_format("qwen3_xml", text, data))
    assert calls == [("f", {}), ("g", {})]
    assert content == "</tool_call>"


@pytest.mark.parametrize(
    ("model", "fmt"),
    [
        ("Qwen/Qwen2.5-7B-Instruct", "qwen3_xml"),
        ("Qwen/QwQ-32B", "qwen3_xml"),
        ("Qwen/Qwen3-8B", "qwen3_xml"),
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3_coder"),
    ],
)
def test_routing_qwen_models_reads_their_json_calls(model: str, fmt: str) -> None:
    assert format_for_model(model) == fmt
    parsed = parse_tool_calls("Sure." + JSON_CALL + XML_CALL, model=model)
    assert parsed.content == "Sure."
    assert [(c.name, c.args) for c in parsed.tool_calls] == [
        ("get_current_weather", DALLAS),
        ("get_current_weather", ORLANDO),
    ]


def test_qwen25_end_to_end_hermes_suite_case() -> None:
    # The shape of vLLM tests/tool_parsers/test_hermes_tool_parser.py outputs (Apache-2.0,
    # Copyright contributors to the vLLM project), routed by the Qwen2.5 model id.
    text = (
        "I'll check both.\n<tool_call>\n"
        '{"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX", '
        '"unit": "fahrenheit"}}\n</tool_call>\n<tool_call>\n'
        '{"name": "get_current_weather", "arguments": {"city": "Orlando", "state": "FL", '
        '"unit": "fahrenheit"}}\n</tool_call>'
    )
    parsed = parse_tool_calls(text, model="Qwen/Qwen2.5-7B-Instruct")
    assert parsed.content == "I'll check both.\n"  # the newline between blocks is markup
    assert [c.args["city"] for c in parsed.tool_calls] == ["Dallas", "Orlando"]
    assert [c.id for c in parsed.tool_calls] == ["call_0", "call_1"]
