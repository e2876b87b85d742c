"""minimax_m3: namespaced invoke format with nested element values.

Fixtures copied from vLLM ``tests/tool_parsers/test_minimax_m3_tool_parser.py`` (Apache-2.0,
Copyright contributors to the vLLM project); the code is ours. Where streamcall differs
on purpose (see ``MiniMaxM3Parser.vllm_differences``) the test says so.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.events import ToolCallArgs
from streamcall.formats.registry import format_for_model, tool_parser
from support import check_format, summary

NS = "]<]minimax[>["

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "create_order",
            "parameters": {
                "type": "object",
                "properties": {
                    "user_id": {"type": "integer"},
                    "urgent": {"type": "boolean"},
                    "note": {"type": "string"},
                    "shipping": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}, "zip": {"type": "integer"}},
                    },
                    "items": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
                        },
                    },
                    "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
                    "duplicate_demo": {"type": "object"},
                },
            },
        },
    }
]


def order_call() -> str:
    return (
        f"{NS}<tool_call>\n"
        f'{NS}<invoke name="create_order">'
        f"{NS}<user_id>42{NS}</user_id>"
        f"{NS}<urgent>true{NS}</urgent>"
        f"{NS}<note>Please leave at front desk.{NS}</note>"
        f"{NS}<shipping>"
        f"{NS}<city>Singapore{NS}</city>"
        f"{NS}<zip>018956{NS}</zip>"
        f"{NS}</shipping>"
        f"{NS}<items>"
        f"{NS}<item>{NS}<sku>book-001{NS}</sku>{NS}<qty>2{NS}</qty>{NS}</item>"
        f"{NS}<item>{NS}<sku>pen-007{NS}</sku>{NS}<qty>5{NS}</qty>{NS}</item>"
        f"{NS}</items>"
        f"{NS}<metadata>"
        f"{NS}<source>mobile{NS}</source>"
        f"{NS}<campaign>may-launch{NS}</campaign>"
        f"{NS}</metadata>"
        f"{NS}<duplicate_demo>"
        f"{NS}<tag>a{NS}</tag>"
        f"{NS}<tag>b{NS}</tag>"
        f"{NS}</duplicate_demo>"
        f"{NS}</invoke>\n"
        f"{NS}</tool_call>"
    )


ORDER = {
    "user_id": 42,
    "urgent": True,
    "note": "Please leave at front desk.",
    "shipping": {"city": "Singapore", "zip": 18956},
    "items": [{"sku": "book-001", "qty": 2}, {"sku": "pen-007", "qty": 5}],
    "metadata": {"source": "mobile", "campaign": "may-launch"},
    "duplicate_demo": {"tag": ["a", "b"]},
}


def invocation(user_id: int) -> str:
    return f'{NS}<invoke name="create_order">{NS}<user_id>{user_id}{NS}</user_id>{NS}</invoke>'


def calls_of(items: list[testing.Item]) -> list[testing.Call]:
    return [v for k, v in items if k == "call" and isinstance(v, testing.Call)]


def test_registered_and_routed() -> None:
    assert format_for_model("MiniMaxAI/MiniMax-M3") == "minimax_m3"
    assert format_for_model("mm-m3-preview") == "minimax_m3"
    assert format_for_model("MiniMaxAI/MiniMax-M2") == "minimax_m2"


@given(data=st.data())
def test_nested_tool_call(data: st.DataObject) -> None:
    # vLLM: test_non_streaming_nested_tool_call and test_streaming_nested_tool_call
    content, calls = summary(
        check_format("minimax_m3", "I will create it.\n" + order_call(), data, TOOLS)
    )
    assert content == "I will create it.\n"
    assert calls == [("create_order", ORDER)]


@given(data=st.data())
def test_without_tool_call_keeps_content(data: st.DataObject) -> None:
    assert check_format("minimax_m3", "plain response", data, TOOLS) == [("text", "plain response")]


@given(data=st.data())
def test_multiple_tool_calls(data: st.DataObject) -> None:
    text = f"{NS}<tool_call>\n{invocation(1)}\n{invocation(2)}\n{NS}</tool_call>"
    content, calls = summary(check_format("minimax_m3", text, data, TOOLS))
    assert content == ""
    assert calls == [("create_order", {"user_id": 1}), ("create_order", {"user_id": 2})]


@given(data=st.data())
def test_partial_tool_start_is_flushed_as_text(data: st.DataObject) -> None:
    text = f"plain {NS}<tool_ca"
    assert check_format("minimax_m3", text, data, TOOLS) == [("text", text)]


@given(data=st.data())
def test_committed_call_stays_structured_when_the_stream_stops(data: st.DataObject) -> None:
    # vLLM: test_streaming_error_recovery_keeps_committed_tool_call_structured. vLLM turns
    # the unfinished second invoke into text; streamcall reports it as an incomplete call.
    second = f'\n{NS}<invoke name="create_order">{NS}<user_id>2'
    text = f"plain {NS}<tool_call>\n{invocation(1)}{second}"
    items = check_format("minimax_m3", text, data, TOOLS)
    content, _ = summary(items)
    assert content == "plain "
    calls = calls_of(items)
    assert [(c.name, json.loads(c.arguments), c.incomplete) for c in calls] == [
        ("create_order", {"user_id": 1}, False),
        ("create_order", {"user_id": 2}, True),
    ]


@given(data=st.data())
def test_parse_error_releases_the_markup_and_later_text(data: st.DataObject) -> None:
    # vLLM: test_streaming_parse_error_emits_buffer_and_later_deltas. vLLM drops the
    # block marker; streamcall keeps it (nothing is lost).
    text = f"{NS}<tool_call>\n{NS}</user_id> after error"
    assert check_format("minimax_m3", text, data, TOOLS) == [("text", text)]


def test_parser_is_fresh_after_a_parse_error() -> None:
    # vLLM: test_streaming_parser_reuse_after_parse_error (one parser per stream here)
    p = tool_parser("minimax_m3", tools=TOOLS)
    p.feed(f"{NS}<tool_call>\n{NS}</user_id>")
    p.finish()
    q = tool_parser("minimax_m3", tools=TOOLS)
    assert testing.coalesce(testing.run(q, ["next request text"])) == [
        ("text", "next request text")
    ]


# --- beyond the vLLM suite ------------------------------------------------------------


def test_string_parameter_streams_before_its_closer() -> None:
    p = tool_parser("minimax_m3", tools=TOOLS)
    events = p.feed(f'{NS}<tool_call>{NS}<invoke name="create_order">{NS}<note>Please le')
    streamed = "".join(e.delta for e in events if isinstance(e, ToolCallArgs))
    assert streamed == '{"note":"Please le'
    events = p.feed("ave")
    assert [e.delta for e in events if isinstance(e, ToolCallArgs)] == ["ave"]


@pytest.mark.parametrize(
    ("params", "tools", "args"),
    [
        # untyped leaves are strings, kept as written
        (f"{NS}<q> two words {NS}</q>", None, {"q": " two words "}),
        (f"{NS}<n>5{NS}</n>", None, {"n": "5"}),
        # untyped nesting: objects; repeated names: lists; mixed text under $text
        (f"{NS}<o>{NS}<a>1{NS}</a>{NS}<a>2{NS}</a>{NS}</o>", None, {"o": {"a": ["1", "2"]}}),
        (f"{NS}<o>{NS}<a>x{NS}</a>hi {NS}</o>", None, {"o": {"a": "x", "$text": "hi "}}),
        # text first: the value is already streaming as a string when a child element
        # comes, so the child is kept as text in it (vLLM: {"a": "1", "$text": "hi "})
        (f"{NS}<o>hi {NS}<a>1{NS}</a>{NS}</o>", None, {"o": f"hi {NS}<a>1{NS}</a>"}),
        # empty elements of container types
        (f"{NS}<items>{NS}</items>", TOOLS, {"items": []}),
        (f"{NS}<shipping>\n{NS}</shipping>", TOOLS, {"shipping": {}}),
        (f"{NS}<note>{NS}</note>", TOOLS, {"note": ""}),
        # a namespace token inside a string value is text
        (f"{NS}<note>a {NS} b{NS}</note>", TOOLS, {"note": f"a {NS} b"}),
        # JSON text in a typed container element
        (
            f'{NS}<items>[{{"sku": "x", "qty": 1}}]{NS}</items>',
            TOOLS,
            {"items": [{"sku": "x", "qty": 1}]},
        ),
        # a missing parameter closer ends at </invoke>
        (f"{NS}<note>unclosed", TOOLS, {"note": "unclosed"}),
        (f"{NS}<user_id>7", TOOLS, {"user_id": 7}),
        # single-quoted and unquoted names are in the header test below
    ],
)
@given(data=st.data())
def test_values(
    params: str, tools: list[dict[str, Any]] | None, args: dict[str, Any], data: st.DataObject
) -> None:
    text = f'{NS}<tool_call>{NS}<invoke name="create_order">{params}{NS}</invoke>{NS}</tool_call>'
    content, calls = summary(check_format("minimax_m3", text, data, tools))
    assert content == ""
    assert calls == [("create_order", args)]


@pytest.mark.parametrize("header", ['"f"', "'f'", "f"])
@given(data=st.data())
def test_invoke_name_quoting(header: str, data: st.DataObject) -> None:
    text = f"{NS}<tool_call>{NS}<invoke name={header}>{NS}<a>x{NS}</a>{NS}</invoke>{NS}</tool_call>"
    _, calls = summary(check_format("minimax_m3", text, data))
    assert calls == [("f", {"a": "x"})]


@given(data=st.data())
def test_text_after_the_block_is_kept(data: st.DataObject) -> None:
    text = f"{NS}<tool_call>{invocation(3)}{NS}</tool_call> done"
    content, calls = summary(check_format("minimax_m3", text, data, TOOLS))
    assert content == " done"
    assert calls == [("create_order", {"user_id": 3})]


@given(data=st.data(), cut=st.integers(0, 700))
def test_cut_anywhere(data: st.DataObject, cut: int) -> None:
    text = order_call()[:cut]
    for call in calls_of(check_format("minimax_m3", text, data, TOOLS)):
        assert call.name == "create_order"
        args = json.loads(call.arguments)
        for key, value in args.items():
            if key in ORDER and not call.incomplete:
                assert value == ORDER[key]


def test_a_short_parameter_is_read_with_the_chunk_that_closes_it() -> None:
    """The fast read keeps a cut parameter unread while it cannot be whole (its opener's
    own ``>``, a closer still shorter than ``NS</KEY>``); cut anywhere, in two or three
    pieces, the parameter still arrives with the chunk that brings its closer's ``>``."""
    head = f'{NS}<tool_call>\n{NS}<invoke name="create_order">'
    member = f"{NS}<user_id>42{NS}</user_id>"
    second = f"{NS}<urgent>true{NS}</urgent>"
    text = head + member + second
    start = len(head)
    close = start + len(member)  # the end of the first parameter's closer
    for i in range(start + 1, len(text)):
        for j in (i, *range(i + 1, min(len(text), i + 30))):
            parser = tool_parser("minimax_m3", tools=TOOLS)
            pieces = [text[:i], text[i:j], text[j:]] if j > i else [text[:i], text[i:]]
            args = ""
            fed = 0
            for piece in pieces:
                fed += len(piece)
                for event in parser.feed(piece):
                    if isinstance(event, ToolCallArgs):
                        args += event.delta
                if fed >= close:
                    assert '"user_id":42' in args, (pieces, args)
                else:
                    assert '"user_id"' not in args, (pieces, args)
