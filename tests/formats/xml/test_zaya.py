"""zaya / zaya_xml (Zyphra ZAYA1) and granite_toolcall_parser (IBM Granite 4.2): Qwen3's XML.

vLLM 0.34 has no tests of its own for either (its ``ZayaParser`` is ``Qwen3Parser`` with
other wrapper tokens, its ``GraniteToolCallParser`` is ``NemotronV3Parser`` unchanged), so
the upstream cases (``tests/fixtures/upstream/zaya.json``,
``granite_toolcall_parser.json``) are vLLM's Nemotron V3 tests (the same grammar;
Apache-2.0), transposed to ZAYA1's wrapper where it differs; they run through the combined
parser in every chunking. The rest is ours.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcall import ToolCallArgs, testing
from streamcall.formats.qwen3 import QwenCoderParser
from streamcall.formats.registry import parse_tool_calls, parser_class, tool_parser
from streamcall.formats.zaya import ZayaParser
from streamcall.output import output_parser
from support import (
    calls,
    check_contract,
    check_every_end,
    check_upstream_case,
    schema_for,
    summary,
    typed_tool,
    upstream_cases,
)

ZAYA = ["zaya", "zaya_xml"]


@pytest.mark.parametrize("fmt", ZAYA)
@pytest.mark.parametrize("case", upstream_cases("zaya"))
def test_zaya_upstream(case: dict[str, Any], fmt: str) -> None:
    check_upstream_case(case, fmt, "zaya")


@pytest.mark.parametrize("case", upstream_cases("granite_toolcall_parser"))
def test_granite_toolcall_upstream(case: dict[str, Any]) -> None:
    check_upstream_case(case, "granite_toolcall_parser", "granite_thinking_parser")


def test_the_names() -> None:
    assert parser_class("zaya") is parser_class("zaya_xml") is ZayaParser
    # granite_toolcall_parser is an alias: Granite 4.2's wire is Qwen3-Coder's
    assert parser_class("granite_toolcall_parser") is QwenCoderParser


def call(name: str, block: str = "zyphra_tool_call", **params: str) -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params.items())
    return f"<{block}>\n<function={name}>\n{body}</function>\n</{block}>"


TOOLS = [typed_tool("write", text="string", n="integer")]


@pytest.mark.parametrize("fmt", ZAYA)
@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        ("Sure.\n" + call("write", text="a") + "\n" + call("write", n="2") + "\nok",
         "Sure.\n\nok", [("write", {"text": "a"}), ("write", {"n": 2})]),
        # a Hermes JSON body in the ZAYA1 wrapper is a JSON call, streamed verbatim
        ('<zyphra_tool_call>\n{"name": "write", "arguments": {"n": 3}}\n</zyphra_tool_call>',
         "", [("write", {"n": 3})]),
        # Qwen's own wrapper is not ZAYA1's: only the bare <function=...> in it is a call
        (call("write", "tool_call", text="x"), "<tool_call>\n\n</tool_call>",
         [("write", {"text": "x"})]),
        # the one newline around a value is framing, the rest is the value's
        (call("write", text="\n  x  \n"), "", [("write", {"text": "\n  x  \n"})]),
    ],
)  # fmt: skip
@given(data=st.data())
def test_zaya_cases(fmt: str, text: str, content: str, calls: Any, data: st.DataObject) -> None:
    assert summary(check_contract(fmt, text, data, TOOLS)) == (content, calls)


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("<zyphra_tool_call>", "<zyphra_tool_call>"),  # nothing after the wrapper: text
        ("<zyphra_tool_call>\njunk</zyphra_tool_call>", "<zyphra_tool_call>\njunk</zyphra_tool_call>"),
        ("a <zyphra_tool_cal b", "a <zyphra_tool_cal b"),  # a partial marker, released
        ("</zyphra_tool_call> stray", "</zyphra_tool_call> stray"),
    ],
)  # fmt: skip
def test_zaya_malformed_is_text(text: str, content: str) -> None:
    got = parse_tool_calls(text, "zaya", tools=TOOLS)
    assert (got.content, got.tool_calls) == (content, [])
    testing.check_chunkings(lambda: tool_parser("zaya", tools=TOOLS), text)


def test_zaya_cut_and_every_end() -> None:
    whole = call("write", text="abc")
    cut = parse_tool_calls("Hi " + whole[: whole.index("</parameter>")], "zaya", tools=TOOLS)
    assert cut.content == "Hi "
    assert [(c.args, c.incomplete) for c in cut.tool_calls] == [({"text": "abc\n"}, True)]
    junk = parse_tool_calls("<zyphra_tool_call>\n<function=write>\njunk</function>", "zaya")
    assert [(c.args, c.incomplete) for c in junk.tool_calls] == [({}, True)]
    assert junk.content == "\njunk</function>"
    check_every_end("zaya", "ok " + call("write", text="a<b", n="1") + " done", TOOLS)
    check_every_end("granite_toolcall_parser", call("write", "tool_call", text="a<b"), TOOLS)


def test_zaya_a_long_string_streams_before_its_closer() -> None:
    p = tool_parser("zaya", tools=TOOLS)
    events = p.feed("<zyphra_tool_call>\n<function=write>\n<parameter=text>\nline one, ")
    assert "".join(e.delta for e in events if isinstance(e, ToolCallArgs)) == '{"text":"line one, '
    for _ in range(40):
        events = p.feed("more words. ")
        assert [e.delta for e in events if isinstance(e, ToolCallArgs)] == ["more words. "]


@pytest.mark.parametrize("fmt", [*ZAYA, "granite_toolcall_parser"])
@settings(max_examples=30)
@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "\n\n", "Sure.\n"]))
def test_rendered_calls_in_any_chunking(
    fmt: str, data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    text = before + parser_class(fmt).render(call_list)
    content, got = summary(check_contract(fmt, text, data, schema_for(call_list)))
    assert content == before
    assert [name for name, _ in got] == [name for name, _ in call_list]


def test_zaya_reasoning_is_qwen3s_with_its_wrapper() -> None:
    p = output_parser(model="Zyphra/ZAYA1-8B", tools=TOOLS)
    items = testing.coalesce(testing.run(p, ["plan\n", call("write", text="x")]))
    assert items[0] == ("reasoning", "plan\n")
    assert isinstance(items[1][1], testing.Call) and items[1][1].arguments == '{"text":"x"}'
    # the wrapper only mentioned (no call after it) stays reasoning
    p = output_parser(tool_format="zaya", reasoning_format="zaya")
    text = "use <zyphra_tool_call> then stop</think>done"
    items = testing.coalesce(testing.run(p, testing.chunk_every(text, 3)))
    assert items == [("reasoning", "use <zyphra_tool_call> then stop"), ("text", "done")]


ONE_SHOT = [
    call("write", text="hello"),
    "Let me write.\n\n" + call("write", text="a", n="1"),
    call("write", text="a") + call("write", text="b"),
    call("write", text="a") + "\n\n" + call("write", n="7") + "\n",
    call("write", text="x") + " trailing words",
    "<zyphra_tool_call><function=write><parameter=n>5</parameter></function></zyphra_tool_call>",
    "<zyphra_tool_call>\n<function=write>\n<parameter=text>\nno closer\n</function>\n"
    "</zyphra_tool_call>",
    "<zyphra_tool_call>\n<function=write>\n<parameter=text>\nnext opener\n<parameter=n>\n2\n"
    "</parameter>\n</function>\n</zyphra_tool_call>",
    "<zyphra_tool_call>\n<function=write>\n</function>\n</zyphra_tool_call>",
    call("write", text="<b>bold</b> & 'quotes' \"too\""),
    call("write", text="multi\nline\n\nvalue"),
    "text only, no calls at all",
    "<function=write>\n<parameter=text>\nbare\n</parameter>\n</function>",
    '<zyphra_tool_call>\n{"name": "write", "arguments": {"text": "json"}}\n</zyphra_tool_call>',
    "Before " + call("write", text="a") + " between " + call("write", text="b") + " after",
    call("write", text="a")[:-5],
    call("write", text="unicode: café ☕ 日本"),
    "<zyphra_tool_call>\n<function=write>\n<parameter=n>\nnot a number\n</parameter>\n"
    "</function>\n</zyphra_tool_call>",
    "<zyphra_tool_call>\n\n<function=write>\n<parameter=text>\nspaced\n</parameter>\n"
    "</function>\n\n</zyphra_tool_call>",
    "a < b and c > d, " + call("write", text="ok"),
]


@pytest.mark.parametrize("fmt", ZAYA)
@pytest.mark.parametrize("text", ONE_SHOT)
def test_one_shot_is_the_stream_run_to_the_end(fmt: str, text: str) -> None:
    whole = parse_tool_calls(text, fmt, tools=TOOLS)
    items = testing.check_chunkings(lambda: tool_parser(fmt, tools=TOOLS), text)
    assert summary(items) == (
        whole.content,
        [(c.name, c.args) for c in whole.tool_calls],
    )
