"""generic_json (llama.cpp's generic JSON answer) against the contract.

The upstream fixtures (tests/fixtures/upstream/generic_json.json, from llama.cpp's
``test-chat.cpp``, MIT) run in every chunking. llama.cpp's partial cases are its view of an
unfinished stream (``is_partial``); streamcall's runner ends the stream, where a cut call is
reported incomplete with its arguments closed and a cut envelope that gave nothing is text.
Those cases are checked here both ways: mid-stream (fed, not finished) and at the end.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import parse_tool_calls, testing, tool_parser
from streamcall.events import Text, ToolCallArgs, ToolCallEnd, ToolCallStart
from streamcall.formats.generic_json import GenericJsonParser
from support import (
    calls,
    check_contract,
    check_format,
    check_outcome,
    check_rendered,
    check_streams_before_closer,
    check_upstream_case,
    random_chunkings,
    summary,
    unfinished_events,
    upstream_cases,
)

FMT = "generic_json"

_PARTIAL = (
    "llama.cpp's partial parse is a view of an unfinished stream; at the end of the "
    "stream streamcall "
)
SKIP = {
    "cut_before_name": _PARTIAL + "releases the cut envelope as text; test_partial_cases",
    "cut_args": _PARTIAL
    + "closes the cut arguments so that they load (llama.cpp passes the cut text on); "
    "test_partial_cases",
    "cut_after_name": _PARTIAL + "reports the call incomplete with {}; test_partial_cases",
    "cut_inside_key": _PARTIAL + "closes the cut arguments so that they load; test_partial_cases",
}


@pytest.mark.parametrize("case", upstream_cases(FMT, skip=SKIP))
def test_upstream_fixtures(case: dict[str, Any]) -> None:
    # cut_name_no_tool_parsing (llama.cpp with tool parsing off) gives the whole text as
    # content here too: a name cut by the end of the stream is text
    check_upstream_case(case, FMT)


# (text, events while unfinished: (started names, argument text so far), at the end:
# calls, content)
PARTIAL = [
    ('{ "tool_call" : { "name" : "t', ([], ""), [], '{ "tool_call" : { "name" : "t'),
    (
        '{"tool_call": {"name": "puppeteer_screenshot", "arguments": {"name": '
        '"servethehome_homepage",',
        (["puppeteer_screenshot"], '{"name": "servethehome_homepage",'),
        [("puppeteer_screenshot", {"name": "servethehome_homepage", "": None}, True)],
        "",
    ),
    # llama.cpp reports the call once its name is complete; here it starts with its
    # arguments' first character
    (
        '{ "tool_call" : { "name" : "special_function"',
        ([], ""),
        [("special_function", {}, True)],
        "",
    ),
    (
        '{ "tool_call" : { "name" : "special_function", "arguments" : { "arg',
        (["special_function"], '{ "arg'),
        [("special_function", {"arg": None}, True)],
        "",
    ),
]


@pytest.mark.parametrize(("text", "unfinished", "calls_at_end", "content"), PARTIAL)
def test_partial_cases(
    text: str,
    unfinished: tuple[list[str], str],
    calls_at_end: list[tuple[str, dict[str, Any], bool]],
    content: str,
) -> None:
    for events in unfinished_events(FMT, text):
        assert not any(isinstance(e, Text | ToolCallEnd) for e in events)
        names = [e.name for e in events if isinstance(e, ToolCallStart)]
        args = "".join(e.delta for e in events if isinstance(e, ToolCallArgs))
        # as far as the arguments go, as written (a cut member may be held)
        assert names == unfinished[0] and unfinished[1].startswith(args)
        assert bool(args) == bool(unfinished[1])
    check_outcome(FMT, text, calls_at_end, content, whole_contract=False)


@given(data=st.data(), call_list=calls, after=st.sampled_from(["", "\n", "\nThat is all."]))
def test_rendered_calls_in_any_chunking(
    data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], after: str
) -> None:
    text = GenericJsonParser.render(call_list) + after
    check_rendered(FMT, text, data, call_list, after if after.strip() else "")


@given(data=st.data(), answer=st.text(max_size=40))
def test_a_response_is_the_content_decoded(data: st.DataObject, answer: str) -> None:
    text = json.dumps({"response": answer}, indent=2)
    items = check_format(FMT, text, data)
    assert summary(items) == (answer, [])


@pytest.mark.parametrize(
    ("text", "expected", "content"),
    [
        # a lone call, with its id written before the arguments
        (
            '{"tool_call": {"name": "f", "id": "abcd", "arguments": {"a": 1}}}',
            [("f", {"a": 1}, False)],
            "",
        ),
        # a response that is not a string: text as written
        ('{"response": {"answer": 42}}', [], '{"answer": 42}'),
        # other members are markup
        ('{"thought": "hm", "response": "ok", "extra": [1, 2]}', [], "ok"),
        # not an envelope: text, whole
        ("Hello there.", [], "Hello there."),
        ('{"foo": 1}', [], '{"foo": 1}'),
        ("{}", [], "{}"),
        ('{"tool_calls": []}', [], '{"tool_calls": []}'),
        ('  {"tool_call": oops}', [], '  {"tool_call": oops}'),
        # junk after a call: incomplete, the junk is text
        ('{"tool_call": {"name": "f", "arguments": {}} oops', [("f", {}, False)], " oops"),
        ('{"tool_calls": [{"name": "f", "arguments": {}} oops', [("f", {}, True)], " oops"),
        # a call cut by the end of the stream
        ('{"tool_calls": [{"name": "f", "arguments": {"q": "ab', [("f", {"q": "ab"}, True)], ""),
        # a list closed, the envelope cut: the list's ']' completed the call
        ('{"tool_calls": [{"name": "f", "arguments": {}}]', [("f", {}, False)], ""),
        # text after the envelope is text; the blanks before it a gap
        ('{"response": "a"}\n\nmore', [], "a\n\nmore"),
        ('{"response": "a"}\n\n', [], "a"),
        # a cut response streams what came
        ('{"response": "half an ans', [], "half an ans"),
    ],
)
def test_malformed_truncated_and_other_members(
    text: str, expected: list[tuple[str, dict[str, Any], bool]], content: str
) -> None:
    # a response is text decoded, not as written: the whole contract holds elsewhere
    check_outcome(FMT, text, expected, content, whole_contract='"response"' not in text)


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        (
            '{"tool_calls": [{"id": "call-1234", "name": "f", "arguments": {}}, '
            '{"name": "g", "arguments": {}, "id": "late"}]}',
            # an id after the arguments comes too late: the call has started
            ["call-1234", "call_1"],
        ),
        # llama.cpp's own order (name, arguments, id): the generated ids stay
        (
            '{"tool_calls": [{"name": "f", "arguments": {"a": 1}, "id": "abcd"}, '
            '{"name": "g", "arguments": {}, "id": "efgh"}]}',
            ["call_0", "call_1"],
        ),
        # before the name, when the arguments come first: the call starts at its name
        ('{"tool_call": {"arguments": {"a": 1}, "id": "abcd", "name": "f"}}', ["abcd"]),
        ('{"tool_call": {"name": "f", "id": "abcd", "arguments": {"a": [1, 2]}}}', ["abcd"]),
        # a repeated id, or one a generated id already took, is made unique
        (
            '{"tool_calls": [{"id": "same", "name": "f", "arguments": {}}, '
            '{"id": "same", "name": "g", "arguments": {}}, '
            '{"name": "h", "arguments": {}}, {"id": "call_2", "name": "i", "arguments": {}}]}',
            ["same", "same~2", "call_2", "call_2~2"],
        ),
        # an id that is not a string, or empty: the generated id
        ('{"tool_call": {"id": 7, "name": "f", "arguments": {}}}', ["call_0"]),
        ('{"tool_call": {"id": "", "name": "f", "arguments": {}}}', ["call_0"]),
    ],
)
@given(data=st.data())
def test_the_models_id_names_the_call(text: str, ids: list[str], data: st.DataObject) -> None:
    items = check_contract(FMT, text, data)
    assert [v.id for k, v in items if k == "call" and isinstance(v, testing.Call)] == ids
    for pieces in [[text], testing.chunk_every(text, 1), *random_chunkings(data, text)]:
        events = testing.run(tool_parser(FMT), pieces)
        assert [e.id for e in events if isinstance(e, ToolCallStart)] == ids, pieces


def test_a_long_response_and_a_long_argument_stream_as_written() -> None:
    parser = tool_parser(FMT)
    parser.feed('{"response": "')
    seen = []
    for _ in range(10):
        seen += [e.text for e in parser.feed("a line\\n" * 8) if isinstance(e, Text)]
    assert "".join(seen) == "a line\n" * 80

    check_streams_before_closer(
        FMT,
        '{"tool_call": {"name": "write", "arguments": {"body": "',
        "words " * 10,
        '"}}}',
        {"body": "words " * 100},
    )


def test_one_shot_is_the_stream() -> None:
    parsed = parse_tool_calls('{"tool_call": {"name": "f", "arguments": {"a": 1}}}', FMT)
    assert [(c.name, c.args, c.incomplete) for c in parsed.tool_calls] == [("f", {"a": 1}, False)]
    assert parsed.content == ""
