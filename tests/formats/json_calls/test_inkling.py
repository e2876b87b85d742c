"""inkling (Thinking Machines Inkling) against the contract: the tool format, its reasoning
format, and the two together.

The upstream fixtures (tests/fixtures/upstream/inkling.json, from vLLM's tests, Apache-2.0;
every case composes the reasoning and the tool parser) run in every chunking through
``output_parser`` with the ``inkling`` reasoning and tool formats.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing, tool_parser
from streamcall.events import Reasoning
from streamcall.formats.inkling import InklingParser
from streamcall.framing.inkling import (
    CONTENT_TEXT,
    CONTENT_THINKING,
    END_MESSAGE,
    END_SAMPLING,
    INVOKE_TOOL_JSON,
    INVOKE_TOOL_TEXT,
    MESSAGE_MODEL,
    TOOL_ERROR,
)
from streamcall.output import output_parser, parse_output
from support import (
    calls,
    check_contract,
    check_outcome,
    check_rendered,
    check_streams_before_closer,
    check_upstream_case,
    random_chunkings,
    reasoning_of,
    summary,
    upstream_cases,
)

FMT = "inkling"


@pytest.mark.parametrize("case", upstream_cases(FMT))
def test_upstream_fixtures(case: dict[str, Any]) -> None:
    check_upstream_case(case, FMT, FMT)


@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "a < b\n"]))
def test_rendered_calls_in_any_chunking(
    data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    check_rendered(FMT, before + InklingParser.render(call_list), data, call_list, before)


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
    assert reasoning_of(items) == "Plan it.Again."


@given(data=st.data(), opened=st.sampled_from([None, False]))
def test_the_reasoning_format_alone(data: st.DataObject, opened: bool | None) -> None:
    items = check_contract(FMT, WHOLE, data, reasoning=True, prompt_opened=opened)
    assert reasoning_of(items) == "Plan it.Again."
    # with no tool stage the framing is dropped, as vLLM's reasoning pass drops it; the
    # tool block stays in the text as written (vLLM hands it on so), its header dropped
    text = "".join(v for k, v in items if k == "text" and isinstance(v, str))
    tool = f'{INVOKE_TOOL_JSON}{{"name": "f", "args": {{"q": "x"}}}}{END_MESSAGE}'
    assert text == f"Checking a < b.{tool}Done."


@pytest.mark.parametrize(
    ("text", "content", "reasoning"),
    [
        # the kind and end markers, and a message's header before its kind, are dropped
        (
            f"{CONTENT_TEXT}Hi{END_MESSAGE}{MESSAGE_MODEL}{CONTENT_TEXT}there{END_SAMPLING}",
            "Hithere",
            "",
        ),
        (f"{MESSAGE_MODEL}hdr{CONTENT_TEXT}a{END_MESSAGE}", "a", ""),
        (f"{TOOL_ERROR}bad{END_MESSAGE}{MESSAGE_MODEL}x{INVOKE_TOOL_TEXT}raw", "badraw", ""),
        # a header before a thinking block is dropped with it
        (f"{MESSAGE_MODEL}f{CONTENT_THINKING}hm{END_MESSAGE}ok", "ok", "hm"),
        # a header followed by anything but a kind marker is text (the prompt's message)
        ("get_weather is a tool", "get_weather is a tool", ""),
        (f"{MESSAGE_MODEL}word{END_MESSAGE}", "word", ""),
        ("word", "word", ""),
        # a tool block as written, its end included; a cut one as far as it came
        (
            f'{INVOKE_TOOL_JSON}{{"a": 1}}{END_SAMPLING}b',
            f'{INVOKE_TOOL_JSON}{{"a": 1}}{END_SAMPLING}b',
            "",
        ),
        (f"{CONTENT_TEXT}a{INVOKE_TOOL_JSON}{{", f"a{INVOKE_TOOL_JSON}{{", ""),
        # a marker cut by the end of the stream is text
        (f"{CONTENT_TEXT}a<|end_mess", "a<|end_mess", ""),
    ],
)
@given(data=st.data())
def test_the_reasoning_format_alone_drops_the_framing(
    text: str, content: str, reasoning: str, data: st.DataObject
) -> None:
    items = check_contract(FMT, text, data, reasoning=True)
    got = "".join(v for k, v in items if k == "text" and isinstance(v, str))
    assert (got, reasoning_of(items)) == (content, reasoning)


@given(data=st.data())
def test_both_stages_in_any_chunking(data: st.DataObject) -> None:
    def make() -> Any:
        return output_parser(tool_format=FMT, reasoning_format=FMT)

    whole = testing.coalesce(testing.run(make(), [WHOLE]))
    for pieces in random_chunkings(data, WHOLE):
        assert testing.coalesce(testing.run(make(), pieces)) == whole
    assert summary(whole) == ("Checking a < b.Done.", [("f", {"q": "x"})])
    assert reasoning_of(whole) == "Plan it.Again."


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
    items = check_outcome(FMT, text, expected, content)
    assert reasoning_of(items) == reasoning


def test_a_long_args_string_streams_before_its_closer() -> None:
    opener = f'{MESSAGE_MODEL}write{INVOKE_TOOL_JSON}{{"name": "write", "args": {{"s": "'
    check_streams_before_closer(
        FMT, opener, "abc " * 10, f'"}}}}{END_MESSAGE}', {"s": "abc " * 100}
    )


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


def test_thinking_from_the_tool_parser_isreasoning_of() -> None:
    events = tool_parser(FMT).feed(f"{CONTENT_THINKING}deep thought{END_MESSAGE}")
    assert [e for e in events if isinstance(e, Reasoning)] == [Reasoning("deep thought")]
