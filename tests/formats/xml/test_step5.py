"""step5: StepFun Step-5, Qwen3-Coder's XML with the text around the calls kept.

The upstream cases (``tests/fixtures/upstream/step5.json``) are constructed from vLLM
0.33's ``step5`` configuration (no upstream test exists; Apache-2.0 source, see the
fixtures' README); they run through the combined parser in every chunking. The rest is
ours.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcall import ToolCallArgs, testing
from streamcall.formats.registry import parse_tool_calls, parser_class, tool_parser
from streamcall.output import output_parser
from streamcall.reasoning import reasoning_format_for_model
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


@pytest.mark.parametrize("case", upstream_cases("step5"))
def test_upstream(case: dict[str, Any]) -> None:
    check_upstream_case(case, "step5", "step5")


def call(name: str, **params: str) -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params.items())
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


TOOLS = [typed_tool("write", text="string", n="integer")]


@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        # whitespace-only text before, between and after blocks
        (" \n" + call("write", text="a") + "\n\n" + call("write", n="2") + "\n",
         " \n", [("write", {"text": "a"}), ("write", {"n": 2})]),
        ("\t" + call("write", text="a") + "\n\nok\n", "\t\n\nok\n", [("write", {"text": "a"})]),
        # the one newline around a value is framing, the rest is the value's
        (call("write", text="\n  x  \n"), "", [("write", {"text": "\n  x  \n"})]),
        # <function name="..."> is read too (the Step-3.5 spelling)
        ('<tool_call><function name="write"><parameter name="n">3</parameter></function>'
         "</tool_call>", "", [("write", {"n": 3})]),
    ],
)  # fmt: skip
@given(data=st.data())
def test_cases(text: str, content: str, calls: Any, data: st.DataObject) -> None:
    assert summary(check_contract("step5", text, data, TOOLS)) == (content, calls)


def test_malformed_and_cut() -> None:
    whole = call("write", text="abc")
    cut = parse_tool_calls("Hi " + whole[: whole.index("</parameter>")], "step5", tools=TOOLS)
    assert cut.content == "Hi "
    assert [(c.args, c.incomplete) for c in cut.tool_calls] == [({"text": "abc\n"}, True)]
    junk = parse_tool_calls("<tool_call>\n<function=write>\njunk</function>", "step5")
    assert [(c.args, c.incomplete) for c in junk.tool_calls] == [({}, True)]
    assert junk.content == "\njunk</function>"  # the blanks before junk are text
    check_every_end("step5", "ok " + call("write", text="a<b", n="1") + " done", TOOLS)


def test_a_long_string_streams_before_its_closer() -> None:
    p = tool_parser("step5", tools=TOOLS)
    events = p.feed("<tool_call>\n<function=write>\n<parameter=text>\nline one, ")
    assert "".join(e.delta for e in events if isinstance(e, ToolCallArgs)) == '{"text":"line one, '
    for _ in range(40):
        events = p.feed("more words. ")
        assert [e.delta for e in events if isinstance(e, ToolCallArgs)] == ["more words. "]


@settings(max_examples=40)
@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "\n\n", "Sure.\n"]))
def test_rendered_calls_in_any_chunking(
    data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    text = before + parser_class("step5").render(call_list)
    content, got = summary(check_contract("step5", text, data, schema_for(call_list)))
    assert content == before
    assert [name for name, _ in got] == [name for name, _ in call_list]


def test_reasoning_is_the_pre_filled_think() -> None:
    assert reasoning_format_for_model("stepfun-ai/Step-5") == "step5"
    p = output_parser(model="stepfun-ai/Step-5", tools=TOOLS)
    items = testing.coalesce(testing.run(p, ["plan\n</think>\n\n", call("write", text="x")]))
    # the blanks between </think> and the call are framing (streamcall.framing.blanks)
    assert items[0] == ("reasoning", "plan\n")
    assert isinstance(items[1][1], testing.Call) and items[1][1].arguments == '{"text":"x"}'
    # a <tool_call> inside reasoning is reasoning (no implicit end)
    p = output_parser(tool_format="step5", reasoning_format="step5")
    items = testing.coalesce(testing.run(p, ["a " + call("write", text="x")]))
    assert items == [("reasoning", "a " + call("write", text="x"))]
