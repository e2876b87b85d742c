"""The whole JSON-call engine gives the same events with the text layer's fast reads on
(the default) and on their reference paths (``streamcall.text.fast.reference``): every
format built on it, Granite 4's string arguments in any chunking and cut anywhere.

A fast read is kept only if it measures faster (docs/performance.md) and gives what the
path it shortcuts gives; the primitives have their own equivalence tests (tests/text)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.events import ToolCallArgs
from streamcall.formats.engines.json_calls import JsonCallsParser
from streamcall.formats.registry import formats, parser_class
from streamcall.text import fast
from streamcall.text.fast import reference

JSON_FORMATS = [n for n in formats() if issubclass(parser_class(n), JsonCallsParser)]

TEXTS = [
    'Hi <tool_call>{"name": "f", "arguments": {"a": [1, 2.5e3, true, null, "x\\ty"], "b": {"c": "d"}}}</tool_call> tail',
    '<tool_call>{"name": "f", "arguments": {"a": tru',
    '<tool_call>{"name": "f", "arguments": {"a": 01}}</tool_call>after',
    '<tool_call>{"name": "f", "arguments": {"a": "raw\ncontrol"}} junk</tool_call>',
    '<tool_call>{"arguments": {"q": 1}, "name": "late"}</tool_call><tool_call>{"name": "g", "arguments": {}}</tool_call>',
]


def general_loop(fmt: str, pieces: list[str]) -> list[testing.Item]:
    """The events with every fast read on its reference path."""
    with reference():
        return testing.coalesce(testing.run(parser_class(fmt)(), pieces))


@pytest.mark.parametrize("text", TEXTS)
@given(cuts=st.lists(st.integers(1, 200), max_size=30))
def test_the_fast_reads_equal_the_reference_paths(text: str, cuts: list[int]) -> None:
    pieces = testing.chunk_at(text, cuts)
    fast_items = testing.coalesce(testing.run(parser_class("hermes")(), pieces))
    assert fast_items == general_loop("hermes", pieces)


@pytest.mark.parametrize("fmt", JSON_FORMATS)
def test_the_fast_reads_equal_the_reference_paths_for_every_json_format(fmt: str) -> None:
    args = {"k": [1, {"x": "y"}], "n": -1.5, "s": 'a"b'}
    text = "Sure. " + parser_class(fmt).render([("f", args), ("g", {})])
    for size in (1, 3, 7):
        pieces = testing.chunk_every(text, size)
        fast_items = testing.coalesce(testing.run(parser_class(fmt)(), pieces))
        assert fast_items == general_loop(fmt, pieces)
        assert next(json.loads(v.arguments) for k, v in fast_items if k == "call") == args  # type: ignore[union-attr]


def test_the_nested_string_path_is_on() -> None:
    """It measured faster (docs/performance.md), so it is on by default."""
    assert fast.FAST is True


# Strings that make the escaped-JSON-string form of Granite 4 hard: quotes, backslashes,
# control characters, slashes, non-ASCII (written raw or as \u escapes by the outer and the
# inner encoder), surrogate pairs, and text that looks like escapes.
tricky = st.lists(
    st.sampled_from([*'ab "\\/\n\t\x01éü東😀', "\\u00e9", "\\n", '\\"', "u00", "\ud83d"]),
    max_size=30,
).map("".join)


def granite_text(value: str, inner_ascii: bool, outer_ascii: bool, extra: str) -> str:
    inner = json.dumps(
        {"s": value, "n": [1, "x", True, None, -2.5e3], value: {"k": value}},
        ensure_ascii=inner_ascii,
    )
    outer = json.dumps({"name": "f", "arguments": inner + extra}, ensure_ascii=outer_ascii)
    return f"Sure <tool_call> {outer} </tool_call> after"


@given(
    value=tricky,
    inner_ascii=st.booleans(),
    outer_ascii=st.booleans(),
    extra=st.sampled_from(["", " ", "x", "}", '"']),
    cuts=st.lists(st.integers(1, 400), max_size=40),
)
def test_nested_string_path_equals_the_general_path(
    value: str,
    inner_ascii: bool,
    outer_ascii: bool,
    extra: str,
    cuts: list[int],
) -> None:
    text = granite_text(value, inner_ascii, outer_ascii, extra)
    if cuts and cuts[0] % 3 == 0:  # the stream may also end anywhere
        text = text[: cuts[0] % len(text)]
    pieces = testing.chunk_at(text, cuts)
    fast_items = testing.coalesce(testing.run(parser_class("granite4")(), pieces))
    with reference():
        assert general_loop("granite4", pieces) == fast_items


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7])
def test_nested_string_path_in_small_chunks(size: int) -> None:
    for value in ['<div class="row">Ünï 東京 "q" \\ path</div>\n', "\x01\t/\\u", "😀" * 3]:
        for inner_ascii in (True, False):
            text = granite_text(value, inner_ascii, True, "")
            pieces = testing.chunk_every(text, size)
            fast_items = testing.coalesce(testing.run(parser_class("granite4")(), pieces))
            with reference():
                assert general_loop("granite4", pieces) == fast_items
            call = next(v for k, v in fast_items if k == "call")
            assert json.loads(call.arguments)["s"] == value  # type: ignore[union-attr]


def test_the_members_path_is_on() -> None:
    """It measured faster (docs/performance.md), so it is on by default."""
    assert fast.FAST is True


# Inner JSON text made of the pieces the members path reads (keys, short strings, numbers,
# keywords, commas, spaces) and of pieces it must leave to the general path (escapes,
# newlines, nested containers, numbers that are not JSON, a trailing comma, a bare word).
member_piece = st.sampled_from(
    [
        '"k": 1, ',
        '"key_2": "v2", ',
        '"a":true,',
        '"b" :  false ,  ',
        '"n": null, ',
        '"x": -1.5e3, ',
        '"e": "", ',
        '"": 0, ',
        '"s": "a\\"b", ',
        '"u": "\\u00e9", ',
        '"t": "tab\\tnl\\n", ',
        '"o": {"p": [1, 2]}, ',
        '"z": 01, ',
        '"y": 1., ',
        '"w": tru, ',
        '\n  "i": 2,',
        '"long": "' + "x" * 80 + '", ',
        '"é東": "😀", ',
        '"v": 7',
        "}",
        ",",
        " ",
        "nope",
    ]
)
inner_text = st.lists(member_piece, max_size=25).map(lambda ps: "{" + "".join(ps))


@given(
    inner=inner_text,
    close=st.sampled_from(['"k": 1}', "}", "", '"q": "r"}', '"c": 3}}']),
    bad=st.sampled_from(["", "", "\\q", "\\u12", "\\ud83d\\q", '"', "\\"]),
    at=st.integers(0, 10**6),
    cut=st.integers(0, 3),
    cuts=st.lists(st.integers(1, 60), max_size=60),
)
def test_members_path_equals_the_general_path(
    inner: str, close: str, bad: str, at: int, cut: int, cuts: list[int]
) -> None:
    """Whatever the inner object holds (an escape the outer string may not hold included),
    however it is chunked or cut, the events are those of the general path (members path
    off, and both shortcuts off)."""
    text = granite_json(inner + close)
    if bad:  # somewhere inside the arguments string
        start = text.index('"arguments": "') + 14
        at = start + at % (text.rindex('"}') - start)
        text = text[:at] + bad + text[at:]
    if cut == 0 and cuts:  # the stream may also end anywhere
        text = text[: cuts[0] * 5 % len(text)]
    pieces = testing.chunk_at(text, cuts)
    fast_items = testing.coalesce(testing.run(parser_class("granite4")(), pieces))
    with reference():
        assert testing.coalesce(testing.run(parser_class("granite4")(), pieces)) == fast_items
        assert general_loop("granite4", pieces) == fast_items


def granite_json(inner: str) -> str:
    outer = json.dumps({"name": "f", "arguments": inner})
    return f"Sure <tool_call> {outer} </tool_call> after"


@pytest.mark.parametrize("size", [1, 2, 3, 7, 16])
def test_members_path_holds_a_cut_member_whole_and_briefly(size: int) -> None:
    """A member cut by a chunk comes out whole with the chunk that completes it, and the
    parser never holds more than one bounded member."""
    args = {f"key_{i}": [i, i % 3 == 0, f"v{i}", None][i % 4] for i in range(200)}
    args["last"] = "x" * 300
    text = granite_json(json.dumps(args))
    parser = parser_class("granite4")()
    deltas = []
    for piece in testing.chunk_every(text, size):
        deltas += [e.delta for e in parser.feed(piece) if isinstance(e, ToolCallArgs)]
        assert len(parser._tail) <= 64 + size
    deltas += [e.delta for e in parser.finish() if isinstance(e, ToolCallArgs)]
    assert json.loads("".join(deltas)) == args
    # every delta of the small members ends a member (or is the '{' or spaces)
    members = [d for d in deltas if '"key_' in d]
    assert members and all(d.rstrip().endswith(",") for d in members[1:-1])


# The engine embedded in others (a JSON body among Qwen's XML calls, LFM2's JSON list) and
# handed the rest of the stream (Mistral's pre-v11 list): the same events either way.
EMBEDDED = [
    (
        "qwen3_coder",
        'Sure <tool_call>\n{"name": "f", "arguments": {"a": [1, 2.5], "b": "x\\ty"}}\n'
        "</tool_call>\n<tool_call>\n<function=g>\n<parameter=x>\n1\n</parameter>\n</function>"
        '\n</tool_call> then <tool_call>\n{"name": "h", "arguments": "{\\"k\\": 1}"}',
    ),
    (
        "lfm2",
        '<|tool_call_start|>[{"name": "f", "arguments": {"a": 1, "s": "q\\"r"}}, '
        '{"name": "g", "arguments": {}}]<|tool_call_end|> after',
    ),
    (
        "mistral",
        'Hi [TOOL_CALLS] [{"name": "f", "arguments": {"a": true, "b": null}}, '
        '{"name": "g", "arguments": "{\\"c\\": \\"d\\"}"}] bye',
    ),
]


@pytest.mark.parametrize(("fmt", "text"), EMBEDDED, ids=[f for f, _ in EMBEDDED])
@given(cuts=st.lists(st.integers(1, 60), max_size=30), end=st.integers(0, 10**6))
def test_the_embedded_engine_gives_the_reference_paths_events(
    fmt: str, text: str, cuts: list[int], end: int
) -> None:
    if end % 3 == 0:  # the stream may also end anywhere
        text = text[: end % (len(text) + 1)]
    pieces = testing.chunk_at(text, cuts)
    fast_items = testing.coalesce(testing.run(parser_class(fmt)(), pieces))
    assert general_loop(fmt, pieces) == fast_items
