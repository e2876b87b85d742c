"""ServiceNow Apriel 1.5 (llama.cpp ``APRIEL_1_5``): ``<thinking>`` … ``</thinking>``
reasoning (``apriel``), then ``<tool_calls>[{"name": …, "arguments": {…}}, …]</tool_calls>``
Jamba's block exactly (llama.cpp writes it with json.dumps' spelling), so the tool format
is ``jamba`` (routed from ``apriel-1.5``). llama.cpp tests the format only through its
template, so the fixtures are built from its parser source (``constructed``).
"""

from __future__ import annotations

import json

import pytest
from _reasoning_check import check_output, check_reasoning, split
from hypothesis import given
from hypothesis import strategies as st

from streamcall import ToolCallArgs, parse_tool_calls, testing
from streamcall.formats.registry import parser_class
from streamcall.output import output_parser
from support import calls, check_contract, check_upstream_case, upstream_cases


@pytest.mark.parametrize("case", upstream_cases("apriel"))
def test_upstream(case: dict) -> None:
    check_upstream_case(case, "jamba", "apriel")


@pytest.mark.parametrize(
    ("text", "opened", "reasoning", "content"),
    [
        ("<thinking>a</thinking>b", None, "a", "b"),
        ("plain", None, "", "plain"),
        ("a</thinking>b", True, "a", "b"),
        ("<thinking>a", None, "a", ""),
        ("<thinking>a</thinking>b</thinking>c", None, "a", "b</thinking>c"),
        ("<think>a</think>b", None, "", "<think>a</think>b"),  # not Apriel's marker
        ("<thinkin", None, "", "<thinkin"),
        ("<thinking>a</thinki", None, "a</thinki", ""),
    ],
)
@given(data=st.data())
def test_reasoning_cases(
    text: str, opened: bool | None, reasoning: str, content: str, data: st.DataObject
) -> None:
    check_reasoning("apriel", text, reasoning, content, data, prompt_opened=opened)


@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "<b>x</b>\n"]))
def test_rendered_calls_in_any_chunking(data: st.DataObject, call_list: list, before: str) -> None:
    text = before + parser_class("jamba").render(call_list) + " done"
    items = check_contract("jamba", text, data)
    got = [(v.name, json.loads(v.arguments)) for _, v in items if isinstance(v, testing.Call)]
    assert got == [(n, a) for n, a in call_list]


@pytest.mark.parametrize(
    ("text", "content", "names", "incomplete"),
    [
        # Truncated: the call is reported incomplete, its arguments closed.
        ('<tool_calls>[{"name": "f", "arguments": {"a": "x', "", ["f"], [True]),
        # The block never closed: the call is incomplete too (the incomplete rule).
        ('<tool_calls>[{"name": "f", "arguments": {"a": 1}}', "", ["f"], [True]),
        # Malformed: text, nothing lost.
        ("<tool_calls>not json</tool_calls>", "<tool_calls>not json</tool_calls>", [], []),
        ("<tool_calls", "<tool_calls", [], []),
    ],
)
def test_truncated_and_malformed(
    text: str, content: str, names: list[str], incomplete: list[bool]
) -> None:
    items = testing.check_chunkings(lambda: output_parser(tool_format="jamba"), text)
    assert split(items)[1] == content
    got = [v for k, v in items if k == "call" and isinstance(v, testing.Call)]
    assert [c.name for c in got] == names
    assert [c.incomplete for c in got] == incomplete


def test_arguments_stream_while_written() -> None:
    p = output_parser(reasoning_format="apriel", tool_format="jamba")
    p.feed('<thinking>r</thinking><tool_calls>[{"name": "f", "arguments": {"text": "')
    events = p.feed("a long value, " * 4)
    assert "".join(e.delta for e in events if isinstance(e, ToolCallArgs)) == "a long value, " * 4
    p.feed('"}}]</tool_calls>')
    p.finish()


@given(data=st.data())
def test_routed_by_model(data: st.DataObject) -> None:
    call = parser_class("jamba").render([("get_weather", {"city": "Paris"})])
    text = "<thinking>Weather.</thinking>" + call
    items = check_output(text, data, model="ServiceNow-AI/Apriel-1.5-15b-Thinker")
    assert split(items) == ("Weather.", "")
    assert parse_tool_calls(call, model="ServiceNow-AI/Apriel-1.5-15b-Thinker").tool_calls[
        0
    ].args == {"city": "Paris"}
