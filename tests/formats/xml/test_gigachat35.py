"""gigachat35: GigaChat 3.5's GCML (DeepSeek's DSML grammar with ``｜GCML｜`` tags).

The upstream cases (``tests/fixtures/upstream/gigachat35.json``: vLLM's GigaChat 3.5 tool
and reasoning parser tests, Apache-2.0) run through the combined parser in every chunking;
the rest is ours.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.gigachat import GigaChat35Parser
from streamcall.formats.registry import parse_tool_calls
from streamcall.output import output_parser
from support import (
    calls,
    check_contract,
    check_every_end,
    check_format,
    check_rendered,
    check_upstream_case,
    check_value_streams,
    schema_for,
    summary,
    typed_tool,
    upstream_cases,
)

SKIP = {
    "malformed_0": (
        "an invoke cut off by the end of the stream is reported, incomplete with {} (vLLM "
        "returns the text as content)"
    ),
}


@pytest.mark.parametrize("case", upstream_cases("gigachat35", skip=SKIP))
def test_upstream(case: dict[str, Any]) -> None:
    check_upstream_case(case, "gigachat35", "gigachat35")


P, Q = "<｜GCML｜", "</｜GCML｜"
BLOCK, END = f"{P}tool_calls>", f"{Q}tool_calls>"


def invoke(name: str, *params: tuple[str, str, bool | None]) -> str:
    body = "".join(
        f'{P}parameter name="{k}"'
        + ("" if flag is None else f' string="{str(flag).lower()}"')
        + f">{v}{Q}parameter>"
        for k, v, flag in params
    )
    return f'{P}invoke name="{name}">{body}{Q}invoke>'


def test_the_skipped_case_as_we_read_it() -> None:
    parsed = parse_tool_calls(f'{BLOCK}{P}invoke name="broken">', "gigachat35")
    assert parsed.content == ""
    assert [(c.name, c.args, c.incomplete) for c in parsed.tool_calls] == [("broken", {}, True)]


TOOLS = [typed_tool("f", n="integer", s="string")]


@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        # the schema types a key it knows, the flag one it does not
        (BLOCK + invoke("f", ("n", "7", True), ("s", "8", False), ("x", "[1]", False)) + END,
         "", [("f", {"n": 7, "s": "8", "x": [1]})]),
        # string="true" is raw text; without the flag the untyped rule holds
        (BLOCK + invoke("f", ("x", "null", True), ("y", "null", None), ("z", "{bad", False))
         + END, "", [("f", {"x": "null", "y": None, "z": "{bad"})]),
        # several invokes, and text around the block
        ("Checking.\n" + BLOCK + "\n" + invoke("f") + "\n" + invoke("g") + "\n" + END + " Done.",
         "Checking.\n Done.", [("f", {}), ("g", {})]),
        # an invoke outside a block, and a JSON body (DSML's rules)
        (invoke("f", ("s", "a", True)) + f'{P}invoke name="g">{{"k": [1]}}{Q}invoke>', "",
         [("f", {"s": "a"}), ("g", {"k": [1]})]),
        # DeepSeek's DSML is not GCML
        ('<｜DSML｜invoke name="f"></｜DSML｜invoke>', '<｜DSML｜invoke name="f"></｜DSML｜invoke>',
         []),
    ],
)  # fmt: skip
@given(data=st.data())
def test_cases(text: str, content: str, calls: Any, data: st.DataObject) -> None:
    assert summary(check_contract("gigachat35", text, data, TOOLS)) == (content, calls)


@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        (BLOCK + f'{P}parameter name="x">1{Q}parameter>',
         f'{BLOCK}{P}parameter name="x">1{Q}parameter>', []),
        (BLOCK + END, BLOCK + END, []),
        (BLOCK + invoke("f", ("s", "a", True)) + "junk" + END, "junk" + END, [("f", {"s": "a"})]),
        (BLOCK + f'{P}invoke name="f">junk{Q}invoke>' + END, f"junk{Q}invoke>{END}", [("f", {})]),
    ],
)  # fmt: skip
@given(data=st.data())
def test_malformed(text: str, content: str, calls: Any, data: st.DataObject) -> None:
    assert summary(check_format("gigachat35", text, data, TOOLS)) == (content, calls)


def test_every_cut_keeps_the_contract() -> None:
    text = "Hi " + BLOCK + invoke("f", ("s", "a<b", True), ("n", "12", False)) + invoke("g") + END
    check_every_end("gigachat35", text, TOOLS)


def test_a_long_string_streams_before_its_closer() -> None:
    opener = BLOCK + f'{P}invoke name="f">{P}parameter name="s" string="true">Москва, ул'
    # (a value of at most 8 characters so far is held with its parameter: ShortMembers)
    check_value_streams("gigachat35", opener, '{"s":"Москва, ул', "улица " * 5, tools=TOOLS)


@settings(max_examples=40)
@given(data=st.data(), call_list=calls)
def test_rendered_calls_in_any_chunking(
    data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]]
) -> None:
    text = "Let me see. " + GigaChat35Parser.render(call_list)
    tools = schema_for(call_list)
    check_rendered("gigachat35", text, data, call_list, "Let me see. ", tools, values=False)


def test_reasoning_switch_and_tool_call_after_it() -> None:
    text = (
        "Need the weather tool.</think>\n\n"
        + BLOCK
        + invoke("get_weather", ("city", "Москва", True))
        + END
    )
    # the base template: reasoning off unless the request turns it on
    on = output_parser(
        model="ai-sage/GigaChat3.5-432B-A28B", request={"chat_template_kwargs": {"reasoning": True}}
    )
    items = testing.coalesce(testing.run(on, [text]))
    # the blanks between </think> and the call are framing (streamcall.framing.blanks)
    assert items[0] == ("reasoning", "Need the weather tool.")
    assert isinstance(items[1][1], testing.Call) and items[1][1].name == "get_weather"
    off = output_parser(model="ai-sage/GigaChat3.5-432B-A28B")
    items = testing.coalesce(testing.run(off, [text]))
    assert items[0] == ("text", "Need the weather tool.</think>\n\n")
