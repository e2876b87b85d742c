"""inkling (Thinking Machines Inkling) against the contract: the tool format, its reasoning
format, and the two together.

The upstream fixtures (tests/fixtures/upstream/inkling.json, from vLLM's tests, Apache-2.0;
every case composes the reasoning and the tool parser) run in every chunking through
``output_parser`` with the ``inkling`` reasoning and tool formats.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing, tool_parser
from streamcall.events import Reasoning, ToolCallArgs, ToolCallEnd, ToolCallStart
from streamcall.formats.inkling import (
    CONTENT_TEXT,
    CONTENT_THINKING,
    END_MESSAGE,
    END_SAMPLING,
    INVOKE_TOOL_JSON,
    MESSAGE_MODEL,
    InklingParser,
)
from streamcall.output import output_parser, parse_output
from support import (
    calls,
    check_contract,
    check_upstream_case,
    random_chunkings,
    same,
    summary,
    upstream_cases,
)

FMT = "inkling"


@pytest.mark.parametrize("case", upstream_cases(FMT))
def test_upstream_fixtures(case: dict[str, Any]) -> None:
    check_upstream_case(case, FMT, FMT)


def _calls(items: list[testing.Item]) -> list[tuple[str, dict[str, Any], bool]]:
    return [
        (v.name, json.loads(v.arguments), v.incomplete)
        for _, v in items
        if isinstance(v, testing.Call)
    ]


def _reasoning(items: list[testing.Item]) -> str:
    return "".join(v for k, v in items if k == "reasoning" and isinstance(v, str))


@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "a < b\n"]))
def test_rendered_calls_in_any_chunking(
    data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    text = before + InklingParser.render(call_list)
    items = check_contract(FMT, text, data)
    content, got = summary(items)
    assert content == before
    assert [n for n, _ in got] == [n for n, _ in call_list]
    for (_, g), (_, w) in zip(got, call_list, strict=True):
        assert same(g, w)


def _block(kind: str, body: str, header: str = "") -> str:
    return f"{MESSAGE_MODEL}{header}{kind}{body}{END_MESSAGE}"


WHOLE = (
    f"{CONTENT_THINKING}Plan it.{END_MESSAGE}"
    + _block(CONTENT_TEXT, "Checking a < b.")
    + _block(INVOKE_TOOL_JSON, '{"name": "f", "args": {"q": "x"}}', "f")
    + _block(CONTENT_THINKING, "Again.")
    + _block(CONTENT_TEXT, "Done.")
)


@given(data=st.data())
def test_the_tool_parser_alone_reads_every_block(data: st.DataObject) -> None:
    items = check_contract(FMT, WHOLE, data)
    assert summary(items) == ("Checking a < b.Done.", [("f", {"q": "x"})])
    assert _reasoning(items) == "Plan it.Again."


@given(data=st.data(), opened=st.sampled_from([None, False]))
def test_the_reasoning_format_alone(data: st.DataObject, opened: bool | None) -> None:
    items = check_contract(FMT, WHOLE, data, reasoning=True, prompt_opened=opened)
    assert _reasoning(items) == "Plan it.Again."
    # the framing outside reasoning is the tool parser's: it stays in the text
    text = "".join(v for k, v in items if k == "text" and isinstance(v, str))
    assert INVOKE_TOOL_JSON in text and "Done." in text


@given(data=st.data())
def test_both_stages_in_any_chunking(data: st.DataObject) -> None:
    def make() -> Any:
        return output_parser(tool_format=FMT, reasoning_format=FMT)

    whole = testing.coalesce(testing.run(make(), [WHOLE]))
    for pieces in random_chunkings(data, WHOLE):
        assert testing.coalesce(testing.run(make(), pieces)) == whole
    assert summary(whole) == ("Checking a < b.Done.", [("f", {"q": "x"})])
    assert _reasoning(whole) == "Plan it.Again."


@pytest.mark.parametrize(
    ("text", "expected", "content", "reasoning"),
    [
        # a header followed by text, not by a kind marker: text
        ("get_weather is a tool", [], "get_weather is a tool", ""),
        (f"{MESSAGE_MODEL}word{END_MESSAGE}", [], "word", ""),
        # a thinking block cut short by the next message, and by a kind marker
        (f"{CONTENT_THINKING}hm{MESSAGE_MODEL}{CONTENT_TEXT}ok", [], "ok", "hm"),
        (f"{CONTENT_THINKING}hm{CONTENT_TEXT}ok", [], "ok", "hm"),
        # a tool block whose body is not a call: text
        (f"{INVOKE_TOOL_JSON}oops{END_MESSAGE}", [], "oops", ""),
        (f'{INVOKE_TOOL_JSON}{{"x": 1}}{END_MESSAGE}', [], '{"x": 1}', ""),
        # args that are not an object: the call never starts, its text stays
        (f'{INVOKE_TOOL_JSON}{{"name": "f", "args": 42}}', [], '{"name": "f", "args": 42}', ""),
        # cut by the end of the stream: incomplete, arguments closed
        (f'{INVOKE_TOOL_JSON}{{"name": "f", "args": {{"k": "v', [("f", {"k": "v"}, True)], "", ""),
        # a name cut by the end of the stream is text
        (f'{INVOKE_TOOL_JSON}{{"name": "f', [], '{"name": "f', ""),
        # no args: {}; the end of sampling ends the block
        (f'{INVOKE_TOOL_JSON}{{"name": "f"}}{END_SAMPLING}', [("f", {}, False)], "", ""),
        # "arguments" is read too; junk after the object ends the block
        (f'{INVOKE_TOOL_JSON}{{"name": "f", "arguments": {{}}}} x', [("f", {}, False)], " x", ""),
    ],
)
def test_malformed_and_truncated(
    text: str, expected: list[tuple[str, dict[str, Any], bool]], content: str, reasoning: str
) -> None:
    items = check_contract(FMT, text)
    assert _calls(items) == expected
    assert summary(items)[0] == content
    assert _reasoning(items) == reasoning


def test_a_long_args_string_streams_before_its_closer() -> None:
    parser = tool_parser(FMT)
    events = parser.feed(
        f'{MESSAGE_MODEL}write{INVOKE_TOOL_JSON}{{"name": "write", "args": {{"s": "'
    )
    assert any(isinstance(e, ToolCallStart) for e in events)
    pieces = []
    for _ in range(10):
        out = parser.feed("abc " * 10)
        pieces += [e.delta for e in out if isinstance(e, ToolCallArgs)]
        assert not any(isinstance(e, ToolCallEnd) for e in out)
    assert "abc " * 90 in "".join(pieces)
    end = [
        e
        for e in parser.feed(f'"}}}}{END_MESSAGE}') + parser.finish()
        if isinstance(e, ToolCallEnd)
    ]
    assert json.loads(end[0].arguments) == {"s": "abc " * 100} and not end[0].incomplete


def test_the_header_never_reaches_the_content() -> None:
    body = '{"name": "search_docs", "args": {}}'
    for pieces in (
        ["search_docs", INVOKE_TOOL_JSON, body],
        [*"search_docs", INVOKE_TOOL_JSON + body],
    ):
        events = testing.run(tool_parser(FMT), pieces)
        assert summary(testing.coalesce(events)) == ("", [("search_docs", {})])


def test_routed_from_the_model_id() -> None:
    got = parse_output(WHOLE, "thinkingmachines/Inkling")
    assert (got.content, got.reasoning) == ("Checking a < b.Done.", "Plan it.Again.")
    assert [(c.name, c.args) for c in got.tool_calls] == [("f", {"q": "x"})]


def test_thinking_from_the_tool_parser_is_reasoning() -> None:
    events = tool_parser(FMT).feed(f"{CONTENT_THINKING}deep thought{END_MESSAGE}")
    assert [e for e in events if isinstance(e, Reasoning)] == [Reasoning("deep thought")]
