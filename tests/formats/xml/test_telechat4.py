"""telechat4 / xingchen4 (and xing4_0): ``<tool_call>NAME<param_key>k</param_key>
<param_value>v</param_value></tool_call>``, ``NAME{json}`` or a JSON call.

The cases of ``tests/fixtures/upstream/telechat4.json`` and ``xingchen4.json`` are
constructed from SGLang's ``telechat4_detector.py`` / ``xingchen4_detector.py`` (no
upstream test exists; Apache-2.0, Copyright the SGLang authors) and run through
``output_parser`` in every chunking. The code is ours.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import ToolCallArgs, format_for_model, reasoning_format_for_model
from streamcall.formats.registry import parse_tool_calls, parser_class, tool_parser
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

_UNKNOWN = "names are not checked against the tools (SGLang keeps the block as text)"
CASES = [
    pytest.param(fmt, *c.values, id=f"{fmt}-{c.id}", marks=c.marks)
    for fmt in ("telechat4", "xingchen4")
    for c in upstream_cases(fmt, skip={"unknown_tool_is_text": _UNKNOWN})
]


@pytest.mark.parametrize(("fmt", "case"), CASES)
def test_upstream(fmt: str, case: Any) -> None:
    check_upstream_case(case, tool_format=fmt)


def test_unknown_tool_is_a_call_here() -> None:
    got = parse_tool_calls(
        "<tool_call>nope<param_key>a</param_key><param_value>1</param_value></tool_call>",
        "telechat4",
        tools=[typed_tool("get_weather", city="string")],
    )
    assert [(c.name, c.args) for c in got.tool_calls] == [("nope", {"a": 1})]


TOOLS = [typed_tool("f", s="string", n="integer", b="boolean", u="null")]


def _call(*params: tuple[str, str]) -> str:
    body = "".join(f"<param_key>{k}</param_key><param_value>{v}</param_value>" for k, v in params)
    return f"<tool_call>f{body}</tool_call>"


STRIPPED: list[tuple[str, Any, dict[str, Any]]] = [
    # every blank around a value goes, as SGLang strips it; inside it stays
    (_call(("s", "  two  words \n")), TOOLS, {"s": "two  words"}),
    (_call(("s", "\n\n")), TOOLS, {"s": ""}),
    (_call(("n", " 42 ")), TOOLS, {"n": 42}),
    (_call(("b", "\ttrue ")), TOOLS, {"b": True}),
    (_call(("x", " true  ")), TOOLS, {"x": True}),  # untyped: the literal
    (_call(("x", " true story ")), TOOLS, {"x": "true story"}),
    (_call(("x", " nul ")), TOOLS, {"x": "nul"}),
    (_call(("x", " [1, 2] ")), TOOLS, {"x": [1, 2]}),
    (_call(("x", "  hi  ")), None, {"x": "hi"}),
    (_call(("s", " a"), ("n", "1 ")), TOOLS, {"s": "a", "n": 1}),
    (
        "<tool_call>\nf\n<param_key>s</param_key>\n<param_value> v </param_value>\n</tool_call>",
        TOOLS,
        {"s": "v"},
    ),
    # NAME{json} and a JSON call: the arguments as written
    ('<tool_call>f{"n": "1", "s": 2}</tool_call>', TOOLS, {"n": "1", "s": 2}),
    ('<tool_call> f {"s": "x"} </tool_call>', TOOLS, {"s": "x"}),
    ('<tool_call>{"name": "f", "parameters": {"s": "x"}}</tool_call>', TOOLS, {"s": "x"}),
    ('<tool_call>{"name": "f"}</tool_call>', TOOLS, {}),
    ("<tool_call>f</tool_call>", TOOLS, {}),
]


@pytest.mark.parametrize(("text", "tools", "args"), STRIPPED)
@given(data=st.data())
def test_values(text: str, tools: Any, args: dict[str, Any], data: st.DataObject) -> None:
    for fmt in ("telechat4", "xingchen4", "xing4_0"):
        assert summary(check_format(fmt, text, data, tools)) == ("", [("f", args)])


def test_blanks_in_a_string_value_wait_for_what_follows() -> None:
    p = tool_parser("telechat4", tools=TOOLS)

    def deltas(chunk: str) -> list[str]:
        return [e.delta for e in p.feed(chunk) if isinstance(e, ToolCallArgs)]

    assert deltas("<tool_call>f<param_key>s</param_key><param_value>  a long") == ["{"]
    assert deltas(" string") == ['"s":"a long string']

    assert deltas("   ") == []
    assert deltas("\n ") == []
    assert deltas("value ") == ["   \\n value"]
    assert deltas("  </param_value>") == ['"']


def test_long_blank_runs_stay_linear() -> None:
    text = _call(("s", "a" + " " * 200_000 + "b" + " " * 200_000), ("x", "true" + " " * 200_000))
    p = tool_parser("telechat4", tools=TOOLS)
    events = []
    for i in range(0, len(text), 3):
        events.extend(p.feed(text[i : i + 3]))
    events.extend(p.finish())
    got = parse_tool_calls(text, "telechat4", tools=TOOLS)
    assert got.tool_calls[0].args == {"s": "a" + " " * 200_000 + "b", "x": True}


@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "a < b {x}\n"]))
def test_round_trip(data: st.DataObject, call_list: Any, before: str) -> None:
    call_list = merged_by_name(call_list)
    text = before + parser_class("telechat4").render(call_list) + " after"
    check_rendered("telechat4", text, data, call_list, before + " after", schema_for(call_list))


MALFORMED = [
    "<tool_call>f<param_key>s</param_key>x</param_value></tool_call>",
    "<tool_call>f<param_key>s</param_key><param_value>x</tool_call>",
    '<tool_call>f{"s": "x",}</tool_call>',
    '<tool_call>f{"s": "x"} junk</tool_call>',
    '<tool_call>{"arguments": {}, "name": "f"}</tool_call>',
    "<tool_call>{x}</tool_call>",
    "<tool_call></tool_call>",
    "<tool_call>f<param_key>s</param_key><param_value>  ",
]


@pytest.mark.parametrize("text", MALFORMED)
@given(data=st.data())
def test_malformed_markup_degrades(text: str, data: st.DataObject) -> None:
    for tools in (TOOLS, None):
        check_contract("telechat4", "Hi " + text + " bye", data, tools)


def test_every_end_of_stream() -> None:
    check_every_end(
        "telechat4",
        "Hi "
        + _call(("s", " a b "), ("x", " true "), ("n", " 7"))
        + '<tool_call>f{"s": 1}</tool_call> bye',
        TOOLS,
    )


def test_routing() -> None:
    assert format_for_model("Tele-AI/TeleChat4-32B") == "telechat4"
    assert format_for_model("org/XingChen4-Instruct") == "xingchen4"
    assert format_for_model("org/Xing4.0-chat") == "xingchen4"
    assert reasoning_format_for_model("Tele-AI/TeleChat4-32B") == "telechat4"
    assert reasoning_format_for_model("org/XingChen4-Instruct") == "xingchen4"
    for model in ("Tele-AI/TeleChat2-7B", "Tele-AI/telechat-7B", "Tele-AI/TeleChat3-36B"):
        assert format_for_model(model) is None
