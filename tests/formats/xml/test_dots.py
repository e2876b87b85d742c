"""dots: rednote dots, MiniMax-M2's invokes inside ``<dots_function_call>``.

The upstream cases (``tests/fixtures/upstream/dots.json``: vLLM's dots tool parser tests,
Apache-2.0) run through the tool parser in every chunking; the rest is ours.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcall.formats.dots import DotsParser
from streamcall.formats.registry import format_for_model, parse_tool_calls
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
    "unknown_tool_left_as_content": (
        "names are not validated against the request's tools: the call to 'ghost' is a call "
        "(vLLM drops it and returns the output as content)"
    ),
    "streaming_malformed_block_then_valid": (
        "a block that does not parse is text with its wrapper (vLLM's streaming drops the "
        "wrapper, its one-shot path returns no content)"
    ),
    "streaming_strips_stray_end_marker": (
        "nothing is lost: a stray </dots_function_call> is text (vLLM's streaming drops it, "
        "its one-shot path keeps it)"
    ),
}


@pytest.mark.parametrize("case", upstream_cases("dots", skip=SKIP))
def test_upstream(case: dict[str, Any]) -> None:
    check_upstream_case(case, "dots")


OPEN, CLOSE = "<dots_function_call>", "</dots_function_call>"
SEARCH = [typed_tool("search", query="string"), typed_tool("open", id="integer")]


def test_the_skipped_cases_as_we_read_them() -> None:
    ghost = f'{OPEN}<invoke name="ghost"><parameter name="query">chairs</parameter></invoke>{CLOSE}'
    parsed = parse_tool_calls(ghost, "dots", tools=SEARCH)
    assert [(c.name, c.args) for c in parsed.tool_calls] == [("ghost", {"query": "chairs"})]
    bad = parse_tool_calls(f"{OPEN}garbage{CLOSE}", "dots")
    assert (bad.content, bad.tool_calls) == (f"{OPEN}garbage{CLOSE}", [])
    stray = parse_tool_calls(f"some text {CLOSE}", "dots")
    assert stray.content == f"some text {CLOSE}"


def test_routed() -> None:
    assert format_for_model("rednote-hilab/dots.llm1.inst") == "dots"
    assert format_for_model("rednote-hilab/dots.ocr") is None


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ('"search"', "search"),
        ("'search'", "search"),
        ("search", "search"),
        (' = "search" ', "search"),
    ],
)
@given(data=st.data())
def test_names_quoted_or_bare(header: str, name: str, data: st.DataObject) -> None:
    eq = "" if header.lstrip().startswith("=") else "="
    pname = header.replace("search", "query")
    text = (
        f"{OPEN}<invoke name{eq}{header}><parameter name{eq}{pname}>chairs</parameter>"
        f"</invoke>{CLOSE}"
    )
    assert summary(check_contract("dots", text, data, SEARCH)) == (
        "",
        [(name, {"query": "chairs"})],
    )


@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        # several blocks, several invokes, text around them (kept after the calls too)
        (f'a {OPEN}\n<invoke name="open">\n<parameter name="id">\n7\n</parameter>\n</invoke>\n'
         f'<invoke name="search"><parameter name="query">x</parameter></invoke>\n{CLOSE}\n'
         f'{OPEN}<invoke name="open"></invoke>{CLOSE} b',
         "a  b", [("open", {"id": 7}), ("search", {"query": "x"}), ("open", {})]),
        # the JSON body, "parameters" too; mixed with an XML block
        (f'{OPEN}\n{{"name": "search", "parameters": {{"query": "t"}}}}\n{CLOSE}'
         f'{OPEN}<invoke name="open"><parameter name="id">1</parameter></invoke>{CLOSE}',
         "", [("search", {"query": "t"}), ("open", {"id": 1})]),
        # a string value holding markup-like text
        (f'{OPEN}<invoke name="search"><parameter name="query">a < b > c</parameter></invoke>'
         f"{CLOSE}", "", [("search", {"query": "a < b > c"})]),
        # untyped values follow the first-character rule
        (f'{OPEN}<invoke name="f"><parameter name="a">[1]</parameter>'
         f'<parameter name="b">true</parameter><parameter name="c">yes</parameter></invoke>{CLOSE}',
         "", [("f", {"a": [1], "b": True, "c": "yes"})]),
    ],
)  # fmt: skip
@given(data=st.data())
def test_cases(text: str, content: str, calls: Any, data: st.DataObject) -> None:
    assert summary(check_contract("dots", text, data, SEARCH)) == (content, calls)


@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        (f"{OPEN}<invoked>{CLOSE}", f"{OPEN}<invoked>{CLOSE}", []),
        (f'{OPEN}<invoke name="search">junk</invoke>{CLOSE}', f"junk</invoke>{CLOSE}",
         [("search", {})]),
        # broken JSON: what streamed is closed, the call incomplete, the rest text
        (f'{OPEN}{{"name": "search", "arguments": {{"query": 1 x}}}}{CLOSE}', f"x}}}}{CLOSE}",
         [("search", {"query": 1})]),
    ],
)  # fmt: skip
@given(data=st.data())
def test_malformed(text: str, content: str, calls: Any, data: st.DataObject) -> None:
    assert summary(check_format("dots", text, data, SEARCH)) == (content, calls)


def test_every_cut_keeps_the_contract() -> None:
    text = (
        f'ok {OPEN}<invoke name="search"><parameter name="query">a<b</parameter></invoke>'
        f"<invoke name=open><parameter name=id>12</parameter></invoke>{CLOSE}"
        f'{OPEN}{{"name": "search", "arguments": {{"query": "z"}}}}{CLOSE}'
    )
    check_every_end("dots", text, SEARCH)


def test_a_long_string_streams_before_its_closer() -> None:
    opener = f'{OPEN}<invoke name="search"><parameter name="query">red chairs, '
    check_value_streams("dots", opener, '{"query":"red chairs, ', "and tables, ", tools=SEARCH)


@settings(max_examples=40)
@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "a < b\n"]))
def test_rendered_calls_in_any_chunking(
    data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    text = before + DotsParser.render(call_list)
    check_rendered("dots", text, data, call_list, before, schema_for(call_list), values=False)
