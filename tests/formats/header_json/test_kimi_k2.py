"""kimi_k2 against the contract.

Cases marked "vLLM" are taken from vLLM's ``tests/tool_parsers/test_kimi_k2_tool_parser.py``
(Apache-2.0, copyright the vLLM project).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.kimi import KimiK2Parser
from streamcall.formats.registry import parse_tool_calls, tool_parser
from support import check_format, summary

SECTION_BEGIN = "<|tool_calls_section_begin|>"
SECTION_END = "<|tool_calls_section_end|>"
TOOL_BEGIN = "<|tool_call_begin|>"
TOOL_END = "<|tool_call_end|>"
ARG_BEGIN = "<|tool_call_argument_begin|>"


def _tool(tool_id: str, args: str) -> str:
    return f"{TOOL_BEGIN}{tool_id} {ARG_BEGIN}{args}{TOOL_END}"


def _wrap(*tool_strs: str) -> str:
    return SECTION_BEGIN + "".join(tool_strs) + SECTION_END


def _tools(*names: str) -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
        for n in names
    ]


# (model output, [(id, name, args)], content) -- vLLM
CASES: list[tuple[str, list[tuple[str, str, dict[str, Any]]], str]] = [
    ("This is a test", [], "This is a test"),
    (
        "I'll check. " + _wrap(_tool("functions.get_weather:0", '{"city": "Beijing"}')),
        [("functions.get_weather:0", "get_weather", {"city": "Beijing"})],
        "I'll check. ",
    ),
    (
        "Compare weather. "
        + _wrap(
            _tool("functions.get_weather:0", '{"city": "Beijing"}'),
            _tool("functions.get_weather:1", '{"city": "Shanghai"}'),
        ),
        [
            ("functions.get_weather:0", "get_weather", {"city": "Beijing"}),
            ("functions.get_weather:1", "get_weather", {"city": "Shanghai"}),
        ],
        "Compare weather. ",
    ),
    (
        "Multiple tasks. "
        + _wrap(
            _tool("functions.get_weather:0", '{"city": "New York"}'),
            _tool("functions.get_news:1", '{"topic": "technology"}'),
            _tool(
                "functions.send_email:2", '{"to": "user@example.com", "subject": "Daily Update"}'
            ),
        ),
        [
            ("functions.get_weather:0", "get_weather", {"city": "New York"}),
            ("functions.get_news:1", "get_news", {"topic": "technology"}),
            (
                "functions.send_email:2",
                "send_email",
                {"to": "user@example.com", "subject": "Daily Update"},
            ),
        ],
        "Multiple tasks. ",
    ),
    (
        "Process HTML. "
        + _wrap(_tool("functions.process_html:0", '{"html": "<div>content</div>"}')),
        [("functions.process_html:0", "process_html", {"html": "<div>content</div>"})],
        "Process HTML. ",
    ),
    (
        "Formatted. "
        + _wrap(_tool("functions.process_data:0", '{\n  "name": "test",\n  "value": 123\n}')),
        [("functions.process_data:0", "process_data", {"name": "test", "value": 123})],
        "Formatted. ",
    ),
    (
        "No prefix. " + _wrap(_tool("get_weather:0", '{"city": "Tokyo"}')),
        [("get_weather:0", "get_weather", {"city": "Tokyo"})],
        "No prefix. ",
    ),
    (
        "Empty args. " + _wrap(_tool("functions.test:0", "{}")),
        [("functions.test:0", "test", {})],
        "Empty args. ",
    ),
    # vLLM skips a call whose id is not NAME:IDX; here its markup stays text
    (
        "Help. "
        + SECTION_BEGIN
        + _tool("functions.invalid.0", '{"city": "Beijing"}')
        + _tool("functions.valid:1", '{"city": "Shanghai"}')
        + SECTION_END,
        [("functions.valid:1", "valid", {"city": "Shanghai"})],
        "Help. "
        + SECTION_BEGIN
        + TOOL_BEGIN
        + "functions.invalid.0 "
        + ARG_BEGIN
        + '{"city": "Beijing"}'
        + TOOL_END,
    ),
]


@pytest.mark.parametrize(("text", "calls", "content"), CASES)
@given(data=st.data())
def test_vllm_cases(
    text: str, calls: list[tuple[str, str, dict[str, Any]]], content: str, data: st.DataObject
) -> None:
    items = check_format("kimi_k2", text, data)
    got = [
        (v.id, v.name, json.loads(v.arguments))
        for k, v in items
        if k == "call" and isinstance(v, testing.Call)
    ]
    assert got == calls
    assert summary(items)[0] == content


def test_invalid_json_still_extracted() -> None:
    """vLLM: a call whose JSON is cut short is still returned (here: closed, incomplete)."""
    text = (
        "Help. "
        + SECTION_BEGIN
        + _tool("functions.bad:0", '{"city": "Beijing"')
        + _tool("functions.good:1", '{"city": "Shanghai"}')
        + SECTION_END
    )
    parsed = parse_tool_calls(text, "kimi_k2")
    assert [(c.name, c.args, c.incomplete) for c in parsed.tool_calls] == [
        ("bad", {"city": "Beijing"}, True),
        ("good", {"city": "Shanghai"}, False),
    ]
    assert parsed.content == "Help. "


@given(data=st.data())
def test_bare_counter_with_one_tool(data: st.DataObject) -> None:
    """vLLM test_bare_counter: id "0" names the only tool."""
    args = {"city": "Tokyo", "unit": "celsius"}
    text = "Let me check. " + _wrap(_tool("0", json.dumps(args)))
    items = check_format("kimi_k2", text, data, tools=_tools("get_weather"))
    got = [
        (v.id, v.name, json.loads(v.arguments))
        for k, v in items
        if k == "call" and isinstance(v, testing.Call)
    ]
    assert got == [("0", "get_weather", args)]
    assert summary(items)[0] == "Let me check. "


def test_bare_counter_with_several_tools_is_not_guessed() -> None:
    """vLLM skips unsafe inference (ambiguous tools): no call."""
    text = "Let me check. " + _wrap(_tool("0", '{"city": "Tokyo"}'))
    parsed = parse_tool_calls(text, "kimi_k2", tools=_tools("get_weather", "book_flight"))
    assert parsed.tool_calls == []


def test_streaming_special_tokens_as_separate_deltas() -> None:
    """vLLM _split_tool_output_to_deltas: every special token is its own delta."""
    deltas = ["I'll help. ", SECTION_BEGIN]
    for tool_id, args in [
        ("functions.get_weather:0", '{"city": "Tokyo"}'),
        ("functions.get_weather:1", '{"city": "NYC"}'),
    ]:
        deltas += [TOOL_BEGIN, f"{tool_id} ", ARG_BEGIN, f"{args} ", TOOL_END]
    deltas.append(SECTION_END)
    items = testing.coalesce(testing.run(tool_parser("kimi_k2"), deltas))
    got = [
        (v.id, v.name, json.loads(v.arguments))
        for k, v in items
        if k == "call" and isinstance(v, testing.Call)
    ]
    assert got == [
        ("functions.get_weather:0", "get_weather", {"city": "Tokyo"}),
        ("functions.get_weather:1", "get_weather", {"city": "NYC"}),
    ]
    assert summary(items)[0] == "I'll help. "


def test_incremental_arguments_are_streamed_before_the_end() -> None:
    """vLLM test_incremental_arguments; Kimi K3 had 32 s of silence (vLLM #50627)."""
    parser = tool_parser("kimi_k2")
    parser.feed("Help. " + SECTION_BEGIN + TOOL_BEGIN + "functions.get_weather:0 " + ARG_BEGIN)
    events = parser.feed('{"city": "Bei')
    assert any(getattr(e, "delta", "") == '{"city": "Bei' for e in events)


def test_repeated_model_ids_are_made_unique() -> None:
    text = _wrap(_tool("functions.f:0", "{}"), _tool("functions.f:0", "{}"))
    parsed = parse_tool_calls(text, "kimi_k2")
    assert [c.id for c in parsed.tool_calls] == ["functions.f:0", "functions.f:0~2"]


def test_several_calls_in_one_chunk_sglang_37634() -> None:
    calls = [(f"f{i}", {"i": i}) for i in range(5)]
    items = testing.coalesce(testing.run(tool_parser("kimi_k2"), [KimiK2Parser.render(calls)]))
    assert summary(items) == ("", calls)


def test_one_char_streaming_agrees_with_one_shot_sglang_35564() -> None:
    text = "a " + KimiK2Parser.render([("f", {"x": "<|tool_call_end|"}), ("g", {})]) + " b"
    one_char = testing.coalesce(testing.run(tool_parser("kimi_k2"), list(text)))
    whole = testing.coalesce(testing.run(tool_parser("kimi_k2"), [text]))
    assert one_char == whole
    assert summary(whole) == ("a  b", [("f", {"x": "<|tool_call_end|"}), ("g", {})])


@pytest.mark.parametrize(
    ("tool_id", "name"),
    [
        ("functions.calendar.events.create:0", "calendar.events.create"),
        ("crm.contacts.find:2", "crm.contacts.find"),
        ("functions.get_weather:0", "get_weather"),
        ("get_weather:3", "get_weather"),
        ("functions.functions.x:1", "functions.x"),  # only one leading prefix is markup
        ("functions:0", "functions"),
        ("ns-1.tool_a:10", "ns-1.tool_a"),
    ],
)
@given(data=st.data())
def test_a_dotted_name_keeps_its_dots(tool_id: str, name: str, data: st.DataObject) -> None:
    """Only a leading ``functions.`` and the ``:index`` suffix are markup; the name is
    everything between them (it used to be cut to its last segment)."""
    text = "Booking. " + _wrap(_tool(tool_id, '{"title": "sync"}')) + " Done."
    items = check_format("kimi_k2", text, data)
    got = [(v.id, v.name, v.incomplete) for k, v in items if isinstance(v, testing.Call)]
    assert got == [(tool_id, name, False)]
    assert summary(items) == ("Booking.  Done.", [(name, {"title": "sync"})])


@pytest.mark.parametrize("tool_id", ["functions.:0", "functions.a..b:0", ".a:0", "a.:0", "a.b"])
def test_a_malformed_dotted_id_is_text(tool_id: str) -> None:
    text = _wrap(_tool(tool_id, "{}"))
    items = check_format("kimi_k2", text)
    assert summary(items) == (text, [])
