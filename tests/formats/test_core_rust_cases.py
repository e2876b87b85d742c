"""The Rust crate's own tests for granite4 and gemma4, recreated, and the field bugs.

vLLM's Rust crate tests granite4 (``rust/src/tool-parser/src/json/granite4.rs``, 12 tests)
and gemma4 (``rust/src/tool-parser/src/gemma4.rs``, 20); these are streamcall's versions of
them, recreated from their descriptions against streamcall's documented behaviour, which goes further than the crate in two places:

- Granite 4 string arguments are decoded incrementally and streamed (the crate emits
  them whole at the closing quote); Gemma 4 arguments are converted and streamed while
  written (the crate emits them at the end). So these tests also assert *when* argument
  deltas arrive, and that every emitted prefix stays a prefix of the final arguments.
- "Incomplete at finish is an error" in the crate: here the call is reported, ended with
  ``incomplete=True`` and arguments that are a valid object, never lost.
  "``42`` as arguments is an error": here the block degrades to text whole.

The second half pins known field bugs of vLLM's and SGLang's parsers (cited at each
test) that touch these formats.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcall import Event, Text, ToolCallArgs, ToolCallEnd, ToolCallStart, testing
from streamcall.formats.registry import parse_tool_calls, tool_parser
from support import check_format, random_chunkings, summary

Q = '<|"|>'


def feed_each(fmt: str, chunks: Sequence[str]) -> list[list[Event]]:
    """Events per ``feed`` call, then the events of ``finish`` as the last entry."""
    p = tool_parser(fmt)
    out = [p.feed(c) for c in chunks]
    out.append(p.finish())
    return out


def flat(per_chunk: list[list[Event]]) -> list[Event]:
    return [e for events in per_chunk for e in events]


def args_of(events: Sequence[Event], index: int = 0) -> str:
    return "".join(e.delta for e in events if isinstance(e, ToolCallArgs) and e.index == index)


def ends(events: Sequence[Event]) -> list[ToolCallEnd]:
    return [e for e in events if isinstance(e, ToolCallEnd)]


def text_of(events: Sequence[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, Text))


def assert_prefix_stable(per_chunk: list[list[Event]]) -> None:
    """After every chunk, each call's deltas so far are a prefix of its final arguments."""
    final = {e.index: e.arguments for e in ends(flat(per_chunk))}
    so_far: dict[int, str] = {}
    for i, events in enumerate(per_chunk):
        for e in events:
            if isinstance(e, ToolCallArgs):
                so_far[e.index] = so_far.get(e.index, "") + e.delta
        for index, text in so_far.items():
            assert final[index].startswith(text), (i, text, final[index])


def split_everywhere(text: str, start: int = 1, stop: int | None = None) -> list[list[str]]:
    stop = len(text) if stop is None else stop
    return [[text[:cut], text[cut:]] for cut in range(start, stop)]


def assert_all_agree(fmt: str, text: str, chunkings: list[list[str]]) -> list[testing.Item]:
    return testing.check_chunkings(lambda: tool_parser(fmt), text, chunkings)


# =========================================================================================
# granite4 (Rust json/granite4.rs)
# =========================================================================================

G_OBJECT = '<tool_call>{"name": "get_weather", "arguments": {"city": "Beijing"}}</tool_call>'
G_STRING = (
    '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Beijing\\"}"}</tool_call>'
)


@given(data=st.data())
def test_granite4_object_args(data: st.DataObject) -> None:
    items = check_format("granite4", G_OBJECT, data)
    assert summary(items) == ("", [("get_weather", {"city": "Beijing"})])
    (call,) = [v for _, v in items if isinstance(v, testing.Call)]
    assert call.arguments == '{"city": "Beijing"}'  # verbatim, the model's own spacing


@given(data=st.data())
def test_granite4_string_args_are_decoded(data: st.DataObject) -> None:
    items = check_format("granite4", G_STRING, data)
    assert summary(items) == ("", [("get_weather", {"city": "Beijing"})])
    (call,) = [v for _, v in items if isinstance(v, testing.Call)]
    # The decoded string, streamed as the arguments: one level of encoding, not two.
    assert call.arguments == '{"city": "Beijing"}'


@given(data=st.data())
def test_granite4_interleaved_text_and_mixed_calls(data: st.DataObject) -> None:
    text = (
        "Before "
        '<tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call>'
        " middle "
        '<tool_call>{"name": "b", "arguments": "{\\"y\\": [2, \\"\\\\u00e9\\"]}"}</tool_call>'
        " after"
    )
    items = check_format("granite4", text, data)
    assert summary(items) == ("Before  middle  after", [("a", {"x": 1}), ("b", {"y": [2, "é"]})])
    kinds = [k for k, _ in items]
    assert kinds == ["text", "call", "text", "call", "text"]


def test_granite4_markers_split_at_5_chars() -> None:
    text = "Hi " + G_OBJECT + " and " + G_STRING + " bye"
    per_chunk = feed_each("granite4", testing.chunk_every(text, 5))
    events = flat(per_chunk)
    # No piece of a marker ever leaks into the text, whatever the cut.
    for e in events:
        if isinstance(e, Text):
            assert "<" not in e.text and ">" not in e.text, e
    assert text_of(events) == "Hi  and  bye"
    assert [json.loads(e.arguments) for e in ends(events)] == [{"city": "Beijing"}] * 2
    whole = testing.coalesce(testing.run(tool_parser("granite4"), [text]))
    assert testing.coalesce(events) == whole


def test_granite4_object_deltas_stream_per_chunk() -> None:
    p = tool_parser("granite4")
    assert p.feed('<tool_call>{"name": "get_weather", "arguments": ') == []
    seen = []
    for piece in ['{"city":', '"Beijing"', "}"]:
        events = p.feed(piece)
        deltas = [e.delta for e in events if isinstance(e, ToolCallArgs)]
        assert deltas, f"no argument delta for {piece!r}: arguments are not streamed"
        assert not ends(events), "the call ended before its object closed"
        seen.append("".join(deltas))
    assert seen == ['{"city":', '"Beijing"', "}"]
    events = p.feed("}</tool_call>") + p.finish()
    (end,) = ends(events)
    assert end.arguments == '{"city":"Beijing"}' and not end.incomplete


def test_granite4_string_args_split_at_3_chars() -> None:
    text = (
        '<tool_call>{"name": "get_weather", "arguments": '
        '"{\\"city\\": \\"Beijing\\", \\"days\\": [1, 2, 3], \\"note\\": \\"a\\\\nb \\\\u00e9\\"}"}'
        "</tool_call>"
    )
    per_chunk = feed_each("granite4", testing.chunk_every(text, 3))
    events = flat(per_chunk)
    (end,) = ends(events)
    assert json.loads(end.arguments) == {"city": "Beijing", "days": [1, 2, 3], "note": "a\nb é"}
    # Deltas arrive in many chunks, before the end: the string is streamed, not held.
    chunks_with_deltas = [i for i, ev in enumerate(per_chunk) if args_of(ev)]
    end_chunk = next(i for i, ev in enumerate(per_chunk) if ends(ev))
    assert len(chunks_with_deltas) > 10
    assert chunks_with_deltas[0] < end_chunk - 10
    assert_prefix_stable(per_chunk)
    assert_all_agree("granite4", text, [testing.chunk_every(text, 3)])


@pytest.mark.parametrize("form", ["object", "string"])
def test_granite4_64k_string_in_7_char_chunks(form: str) -> None:
    value = {"data": "x" * 65536}
    arguments: Any = value if form == "object" else json.dumps(value)
    text = "<tool_call>" + json.dumps({"name": "write", "arguments": arguments}) + "</tool_call>"
    chunks = testing.chunk_every(text, 7)
    per_chunk = feed_each("granite4", chunks)
    events = flat(per_chunk)
    (end,) = ends(events)
    assert json.loads(end.arguments) == value
    assert args_of(events) == end.arguments
    end_chunk = next(i for i, ev in enumerate(per_chunk) if ends(ev))
    assert end_chunk >= len(chunks) - 3
    with_deltas = [i for i, ev in enumerate(per_chunk) if args_of(ev)]
    # The first delta comes within the first few chunks, and nearly every chunk that
    # carries argument text yields a delta: nothing is held until the end.
    assert with_deltas[0] < 10
    assert len(with_deltas) > 0.9 * (65536 / 7)
    assert_prefix_stable(per_chunk)


@pytest.mark.parametrize(
    "text",
    [
        ' <tool_call> {"name": "spaced", "arguments": {"a": 1}} </tool_call> ',
        '<tool_call>\n{"name": "spaced", "arguments": {"a": 1}}\n</tool_call>\n',
        '\n\n<tool_call>  \n {"name": "spaced", "arguments": "{\\"a\\": 1}"} \t\n</tool_call>',
    ],
)
@given(data=st.data())
def test_granite4_spaced_markers(text: str, data: st.DataObject) -> None:
    items = check_format("granite4", text, data)
    content, calls = summary(items)
    assert calls == [("spaced", {"a": 1})]
    assert content.strip() == ""  # only whitespace, never a marker


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ('<tool_call>{"name": "get_weather", "arguments": {"city": "Bei', {"city": "Bei"}),
        ('<tool_call>{"name": "get_weather", "arguments": {"city": "Beijing", "d', None),
        ('<tool_call>{"name": "get_weather", "arguments": {"n": [1, 2', {"n": [1, 2]}),
        ('<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Bei', {"city": "Bei"}),
        ('<tool_call>{"name": "get_weather", "arguments": ', {}),
        ('<tool_call>{"name": "get_weather", "arguments": "', {}),
        ('<tool_call>{"name": "get_weather", "arguments": "  ', {}),
        ('<tool_call>{"name": "get_weather", "arguments": "{', {}),
        ('<tool_call>{"name": "get_weather"', {}),
    ],
)
def test_granite4_incomplete_at_finish_is_reported(text: str, want: dict[str, Any] | None) -> None:
    p = tool_parser("granite4")
    before = p.feed(text)
    assert not ends(before)
    after = p.finish()
    (end,) = ends(after)
    assert end.incomplete is True
    args = json.loads(end.arguments)
    assert isinstance(args, dict)
    if want is not None:
        assert args == want
    else:
        assert args["city"] == "Beijing"
    events = before + after
    assert [e.name for e in events if isinstance(e, ToolCallStart)] == ["get_weather"]
    assert args_of(events) == end.arguments
    assert_all_agree("granite4", text, [])


@pytest.mark.parametrize("value", ["42", "[1, 2]", "true", "null42", '"not json"', "-1.5"])
@given(data=st.data())
def test_granite4_non_object_arguments_are_text(value: str, data: st.DataObject) -> None:
    text = f'Hi <tool_call>{{"name": "get_weather", "arguments": {value}}}</tool_call> bye'
    items = check_format("granite4", text, data)
    assert summary(items) == (text, [])


@pytest.mark.parametrize(
    "inner",
    [
        '{"e": "\\u00e9\\ud83d\\ude00"}',  # escapes, a surrogate pair
        '{"nl": "a\\nb\\tc\\\\d\\"e"}',
        '{"u": "\\u4e2d\\u6587", "n": -1.5e3}',
        '  {"lead": "blank before the object"}',
    ],
)
def test_granite4_string_args_escapes_split_anywhere(inner: str) -> None:
    text = "<tool_call>" + json.dumps({"name": "f", "arguments": inner}) + "</tool_call>"
    items = assert_all_agree("granite4", text, split_everywhere(text))
    assert summary(items) == ("", [("f", json.loads(inner))])


@pytest.mark.parametrize(
    "inner",
    [
        "{hello world}",
        '{"a" 1, "b": "c"}',
        '{"a": 1 "b"}',
    ],
)
def test_granite4_string_args_breaking_midway_agree_in_every_chunking(inner: str) -> None:
    """Markup that breaks inside string arguments, after the call started.

    The call is ended ``incomplete`` and the rest is text; whatever the rest is, it must be
    the same text in every chunking (contract invariant 2).
    """
    text = "<tool_call>" + json.dumps({"name": "f", "arguments": inner}) + "</tool_call>"
    items = assert_all_agree("granite4", text, split_everywhere(text))
    calls = [v for _, v in items if isinstance(v, testing.Call)]
    assert [(c.name, c.incomplete) for c in calls] == [("f", True)]


# =========================================================================================
# gemma4 (Rust gemma4.rs)
# =========================================================================================


def gcall(name: str, args: str) -> str:
    return f"<|tool_call>call:{name}{{{args}}}<tool_call|>"


@pytest.mark.parametrize(
    ("scalar", "value"),
    [
        ("42", 42),
        ("-7", -7),
        ("0", 0),
        ("3.14", 3.14),
        ("-0.5", -0.5),
        ("true", True),
        ("false", False),
        ("null", None),
        ("None", None),
        ("NULL", None),
        ("nil", None),
        ("NIL", None),
        ("none", None),
        ("hello world", "hello world"),
        ("1e5", 1e5),  # a JSON number (the Rust crate's grammar: a string; issue 46)
        ("007", 7),
    ],
)
@given(data=st.data())
def test_gemma4_scalars(scalar: str, value: Any, data: st.DataObject) -> None:
    items = check_format("gemma4", gcall("f", f"v:{scalar}"), data)
    assert summary(items) == ("", [("f", {"v": value})])


@given(data=st.data())
def test_gemma4_nested_objects_and_arrays(data: st.DataObject) -> None:
    args = (
        f"o:{{a:1,b:[1,2,{{c:{Q}d{Q}}}],e:{{f:{{g:[[],[true,null]]}}}}}},"
        f"arr:[{{x:1}},{{y:[{Q}z{Q}]}}],empty_o:{{}},empty_a:[],s:{Q}{Q}"
    )
    items = check_format("gemma4", gcall("f", args), data)
    want = {
        "o": {"a": 1, "b": [1, 2, {"c": "d"}], "e": {"f": {"g": [[], [True, None]]}}},
        "arr": [{"x": 1}, {"y": ["z"]}],
        "empty_o": {},
        "empty_a": [],
        "s": "",
    }
    assert summary(items) == ("", [("f", want)])


@pytest.mark.parametrize(
    ("first", "second", "want", "wrong"),
    [
        ("<|tool_call>call:f{flag:tru", "e}<tool_call|>", {"flag": True}, ["tru"]),
        ("<|tool_call>call:f{flag:fals", "e}<tool_call|>", {"flag": False}, ["fals"]),
        ("<|tool_call>call:f{flag:4", "2}<tool_call|>", {"flag": 42}, ["4"]),
        ("<|tool_call>call:f{flag:3.", "10}<tool_call|>", {"flag": 3.10}, ["3.", "3.0"]),
        ("<|tool_call>call:f{o:{flag:tru", "e}}<tool_call|>", {"o": {"flag": True}}, ["tru"]),
        ("<|tool_call>call:f{a:[1,tru", "e]}<tool_call|>", {"a": [1, True]}, ["tru"]),
        ("<|tool_call>call:f{flag:nu", "ll}<tool_call|>", {"flag": None}, ["nu"]),
    ],
)
def test_gemma4_split_scalars_never_emit_a_wrong_prefix(
    first: str, second: str, want: dict[str, Any], wrong: list[str]
) -> None:
    per_chunk = feed_each("gemma4", [first, second])
    early = args_of(per_chunk[0])
    # Nothing of the cut scalar is emitted before its terminator arrives.
    for w in wrong:
        assert not early.endswith(w) and not early.endswith('"' + w), early
    assert "tru" not in early and "fals" not in early and "nu" not in early, early
    (end,) = ends(flat(per_chunk))
    assert json.loads(end.arguments) == want
    assert repr(json.loads(end.arguments)) == repr(want)  # types too: True is not 1
    assert_prefix_stable(per_chunk)


@pytest.mark.parametrize("where", ["open", "close"])
def test_gemma4_string_delimiter_split_at_every_byte(where: str) -> None:
    text = gcall("todowrite", f"content:{Q}Buy milk{Q},n:1")
    base = text.index(Q) if where == "open" else text.index(Q, text.index(Q) + 1)
    for cut in range(base, base + len(Q) + 1):
        per_chunk = feed_each("gemma4", [text[:cut], text[cut:]])
        events = flat(per_chunk)
        args = args_of(events)
        assert "<|" not in args and "|>" not in args, (cut, args)
        assert json.loads(args) == {"content": "Buy milk", "n": 1}
        assert text_of(events) == ""
        assert_prefix_stable(per_chunk)


def test_gemma4_end_marker_split_at_every_byte() -> None:
    text = gcall("f", "a:1") + "after"
    start = text.index("<tool_call|>")
    # `<tool|_call|>` is one of these.
    for cut in range(start, start + len("<tool_call|>") + 1):
        events = flat(feed_each("gemma4", [text[:cut], text[cut:]]))
        assert text_of(events) == "after", cut
        assert [json.loads(e.arguments) for e in ends(events)] == [{"a": 1}]
    for cut in range(1, len("<|tool_call>")):
        events = flat(feed_each("gemma4", [text[:cut], text[cut:]]))
        assert text_of(events) == "after", cut


@pytest.mark.parametrize(
    "value",
    [
        "a<tool_call|>b",
        "<tool_call|>",
        "x}<tool_call|>{y",
        "<|tool_call>call:g{}<tool_call|>",
    ],
)
def test_gemma4_end_marker_inside_a_string_is_content(value: str) -> None:
    text = gcall("f", f"s:{Q}{value}{Q}") + " tail"
    items = assert_all_agree("gemma4", text, split_everywhere(text))
    assert summary(items) == (" tail", [("f", {"s": value})])


HTML = "".join(
    f'<div class="row-{i}">{{literal brace}} <span>{i}</span> &amp; <b>bold</b></div>\n'
    if i % 64
    else f"<p>line {i}: }} and <tool_call|> inside the string</p>\n"
    for i in range(256)
)


def test_gemma4_html_arguments_without_duplication() -> None:
    text = "Writing it.\n" + gcall("write_file", f"path:{Q}index.html{Q},content:{Q}{HTML}{Q}")
    per_chunk = feed_each("gemma4", testing.chunk_every(text, 7))
    events = flat(per_chunk)
    (end,) = ends(events)
    assert json.loads(end.arguments) == {"path": "index.html", "content": HTML}
    assert args_of(events).count("<div") == HTML.count("<div") == 252
    assert text_of(events) == "Writing it.\n"
    assert_prefix_stable(per_chunk)
    # And it streams: deltas in most chunks, long before the end.
    with_deltas = sum(1 for ev in per_chunk if args_of(ev))
    assert with_deltas > 0.9 * len(HTML) / 7


def test_gemma4_trailing_bare_bool_not_duplicated() -> None:
    for chunks in (
        ["<|tool_call>call:Edit{", f"path:{Q}a.py{Q},", "replace_all:", "false}", "<tool_call|>"],
        ["<|tool_call>call:Edit{", f"path:{Q}a.py{Q},replace_all:f", "alse", "}<tool_call|>"],
        ["<|tool_call>call:Edit{", f"path:{Q}a.py{Q},replace_all:false", "}", "<tool_call|>"],
    ):
        per_chunk = feed_each("gemma4", chunks)
        args = args_of(flat(per_chunk))
        assert args == '{"path":"a.py","replace_all":false}'
        assert args.count("false") == 1 and args.count("replace_all") == 1
        assert_prefix_stable(per_chunk)


@pytest.mark.parametrize(
    ("text", "calls", "content"),
    [
        # a header that never completes, then a good call
        (
            "<|tool_call>garbage<|tool_call>call:g{a:1}<tool_call|>",
            [("g", {"a": 1}, False)],
            "<|tool_call>garbage",
        ),
        # a call that breaks after it started, then a good call
        (
            "<|tool_call>call:f{a:1]}<tool_call|> then <|tool_call>call:g{k:[1,2]}<tool_call|>",
            [("f", {"a": 1}, True), ("g", {"k": [1, 2]}, False)],
            "]}<tool_call|> then ",
        ),
        # an end marker while a container is still open, then a good call
        (
            "<|tool_call>call:f{a:[1,2<tool_call|><|tool_call>call:g{}<tool_call|>",
            [("f", {"a": [1, 2]}, True), ("g", {}, False)],
            "",
        ),
        # a key with no colon
        (
            "<|tool_call>call:f{,}<tool_call|>x<|tool_call>call:g{b:true}<tool_call|>",
            [("f", {}, True), ("g", {"b": True}, False)],
            None,
        ),
    ],
)
@given(data=st.data())
def test_gemma4_recovery_after_a_malformed_call(
    text: str, calls: list[tuple[str, Any, bool]], content: str | None, data: st.DataObject
) -> None:
    items = check_format("gemma4", text, data)
    got = [
        (v.name, json.loads(v.arguments), v.incomplete)
        for _, v in items
        if isinstance(v, testing.Call)
    ]
    assert got == calls
    if content is not None:
        assert summary(items)[0] == content


def test_gemma4_byte_at_a_time_10k_string() -> None:
    body = "".join(chr(ord("a") + i % 26) for i in range(10 * 1024))
    text = gcall("save", f"body:{Q}{body}{Q},n:1")
    per_chunk = feed_each("gemma4", list(text))
    events = flat(per_chunk)
    (end,) = ends(events)
    assert json.loads(end.arguments) == {"body": body, "n": 1}
    with_deltas = [i for i, ev in enumerate(per_chunk) if args_of(ev)]
    end_chunk = next(i for i, ev in enumerate(per_chunk) if ends(ev))
    assert len(with_deltas) > 0.9 * len(body)
    assert with_deltas[0] < 40 and end_chunk > len(body)
    assert_prefix_stable(per_chunk)


@pytest.mark.parametrize("emoji", ["😀", "𝄞", "👩\u200d💻", "中"])
def test_gemma4_delimiter_split_right_after_a_4_byte_character(emoji: str) -> None:
    text = gcall("say", f"msg:{Q}hi {emoji}{Q},to:{Q}{emoji}{Q}") + " ok"
    first = text.index(emoji) + len(emoji)
    chunkings = [[text[:cut], text[cut:]] for cut in range(first - 1, first + len(Q) + 1)]
    chunkings += [
        [text[:a], text[a:b], text[b:]]
        for a, b in zip(range(first, first + 5), range(first + 1, first + 6), strict=True)
    ]
    items = assert_all_agree("gemma4", text, chunkings)
    assert summary(items) == (" ok", [("say", {"msg": f"hi {emoji}", "to": emoji})])
    # The UTF-8 view: the JSON text re-encodes to the same bytes however it was cut.
    for chunks in chunkings:
        (end,) = ends(flat(feed_each("gemma4", chunks)))
        assert json.loads(end.arguments.encode("utf-8")) == {"msg": f"hi {emoji}", "to": emoji}


keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True)
leaf_floats = st.floats(allow_nan=False, allow_infinity=False, width=64).filter(
    lambda f: "." in repr(f) and "e" not in repr(f)
)
leaves = (
    st.none()
    | st.booleans()
    | st.integers(-(10**9), 10**9)
    | leaf_floats
    | st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=12).filter(
        lambda s: Q not in s
    )
)
values = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=10,
)


def gemma_value(value: Any) -> str:
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return Q + value + Q
    if isinstance(value, list):
        return "[" + ",".join(gemma_value(v) for v in value) + "]"
    return "{" + ",".join(f"{k}:{gemma_value(v)}" for k, v in value.items()) + "}"


@settings(max_examples=150)
@given(data=st.data(), args=st.dictionaries(keys, values, max_size=4))
def test_gemma4_every_emitted_prefix_is_a_prefix_of_the_final_arguments(
    data: st.DataObject, args: dict[str, Any]
) -> None:
    text = "x " + gcall("f", gemma_value(args)[1:-1]) + " y"
    for chunks in [*random_chunkings(data, text, count=2), list(text)]:
        per_chunk = feed_each("gemma4", chunks)
        assert_prefix_stable(per_chunk)
        (end,) = ends(flat(per_chunk))
        assert json.loads(end.arguments) == args


@given(data=st.data())
def test_gemma4_trailing_commas_and_whitespace(data: st.DataObject) -> None:
    text = gcall("f", " a : 1 , b : [ 1 , 2 , ] , c : { d : true , } , ")
    items = check_format("gemma4", text, data)
    assert summary(items) == ("", [("f", {"a": 1, "b": [1, 2], "c": {"d": True}})])


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (f"<|tool_call>call:f{{s:{Q}open", {"s": "open"}),
        (f"<|tool_call>call:f{{o:{{a:[1,{{b:{Q}x", {"o": {"a": [1, {"b": "x"}]}}),
        ("<|tool_call>call:f{n:12", {"n": 12}),
        ("<|tool_call>call:f{k:", {"k": None}),
        ("<|tool_call>call:f{", {}),
    ],
)
def test_gemma4_incomplete_at_finish_is_reported(text: str, want: dict[str, Any]) -> None:
    per_chunk = feed_each("gemma4", [text])
    assert not ends(per_chunk[0])
    (end,) = ends(per_chunk[1])
    assert end.incomplete is True
    assert json.loads(end.arguments) == want
    assert_all_agree("gemma4", text, split_everywhere(text))


MIXED = (
    "Let me do two things.\n"
    + gcall(
        "plan",
        f"steps:[{{id:1,done:true,note:null}},{{id:2,done:false,note:{Q}{Q}}}],"
        f"meta:{{owner:{Q}me{Q},tags:[{Q}a{Q},{Q}b{Q}],ratio:0.25}}",
    )
    + gcall("notify", f"to:{Q}team{Q},urgent:false")
)


@given(data=st.data())
def test_gemma4_mixed_benchmark_fixture(data: st.DataObject) -> None:
    items = check_format("gemma4", MIXED, data)
    content, calls = summary(items)
    assert content == "Let me do two things.\n"
    assert calls == [
        (
            "plan",
            {
                "steps": [
                    {"id": 1, "done": True, "note": None},
                    {"id": 2, "done": False, "note": ""},
                ],
                "meta": {"owner": "me", "tags": ["a", "b"], "ratio": 0.25},
            },
        ),
        ("notify", {"to": "team", "urgent": False}),
    ]


# =========================================================================================
# Known field bugs (vLLM and SGLang issues)
# =========================================================================================

SEVERAL = {
    "hermes": "".join(
        f'<tool_call>{{"name": "f{i}", "arguments": {{"i": {i}, "s": "v{i}"}}}}</tool_call>'
        for i in range(5)
    ),
    "granite4": "".join(
        f'<tool_call> {{"name": "f{i}", "arguments": '
        + (
            f'{{"i": {i}, "s": "v{i}"}}'
            if i % 2
            else json.dumps(json.dumps({"i": i, "s": f"v{i}"}))
        )
        + "} </tool_call>"
        for i in range(5)
    ),
    "gemma4": "".join(gcall(f"f{i}", f"i:{i},s:{Q}v{i}{Q}") for i in range(5)),
}


@pytest.mark.parametrize("fmt", sorted(SEVERAL))
def test_several_complete_calls_in_one_chunk(fmt: str) -> None:
    # SGLang #37634: several complete calls in one delta lost their arguments.
    p = tool_parser(fmt)
    events = p.feed(SEVERAL[fmt])  # before finish(): all decided by this one chunk
    got = [(e.index, json.loads(e.arguments), e.incomplete) for e in ends(events)]
    assert got == [(i, {"i": i, "s": f"v{i}"}, False) for i in range(5)]
    assert [e.name for e in events if isinstance(e, ToolCallStart)] == [f"f{i}" for i in range(5)]
    for i in range(5):
        assert args_of(events, i) == ends(events)[i].arguments
    assert text_of(events + p.finish()) == ""


ONE_CHAR_CORPUS = [
    ("hermes", "Sure. " + SEVERAL["hermes"] + " done"),
    ("hermes", '<tool_call>\n{"name": "search_order", "arguments": {}}\n</tool_call>'),
    ("hermes", '<tool_call>{"arguments": {"q": "x"}, "name": "late"}</tool_call>'),
    ("granite4", "Calling. " + SEVERAL["granite4"] + " ok"),
    ("granite4", G_STRING + "\n" + G_OBJECT),
    ("gemma4", MIXED),
    ("gemma4", gcall("f", f"html:{Q}<p>a}}b<tool_call|>c</p>{Q}") + " after"),
]


@pytest.mark.parametrize(("fmt", "text"), ONE_CHAR_CORPUS)
def test_one_char_streaming_equals_one_shot(fmt: str, text: str) -> None:
    # SGLang #35564: streaming disagreed with non-streaming when fed one char at a time.
    one_shot = testing.coalesce(testing.run(tool_parser(fmt), [text]))
    one_char = testing.coalesce(testing.run(tool_parser(fmt), list(text)))
    assert one_char == one_shot
    parsed = parse_tool_calls(text, fmt)
    calls = [v for _, v in one_char if isinstance(v, testing.Call)]
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [
        (c.name, c.arguments) for c in calls
    ]


@pytest.mark.parametrize(
    "chunks",
    [
        # SGLang's token-by-token chunking of the report (test_zero_argument_tool_call)
        [
            "正在",
            "帮",
            "您",
            "查询",
            "订单",
            "\n\n",
            "<tool_call>",
            "\n",
            '{"',
            "name",
            '":',
            ' "',
            "search",
            "_order",
            '",',
            ' "',
            "arguments",
            '":',
            " {}",
            "}",
            "\n",
            "</tool_call>",
        ],
        [
            "正在帮您查询订单\n\n",
            "<tool_call>\n",
            '{"name": "search_order", "arguments": {}}',
            "\n</tool_call>",
        ],
        ["<tool_call>\n", '{"name": "search_order"', ', "arguments": {}}', "\n</tool_call>"],
        ["<tool_call>\n", '{"name": "search_order"}', "\n</tool_call>"],
        ["<tool_call>\n", '{"name": "search_order", "arguments": null}', "\n</tool_call>"],
        ["<tool_call>\n", '{"name": "search_order", "arguments": ""}', "\n</tool_call>"],
    ],
)
def test_hermes_parameterless_call_gets_empty_object(chunks: list[str]) -> None:
    # vLLM #28806: hermes dropped the empty {} arguments of a parameterless tool.
    per_chunk = feed_each("hermes", chunks)
    events = flat(per_chunk)
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [s.name for s in starts] == ["search_order"]  # exactly one, not re-emitted
    (end,) = ends(events)
    assert end.arguments == "{}" and args_of(events) == "{}" and not end.incomplete
    assert text_of(events) == "".join(chunks).split("<tool_call>")[0]
    text = "".join(chunks)
    assert testing.coalesce(events) == testing.coalesce(testing.run(tool_parser("hermes"), [text]))


@pytest.mark.parametrize("fmt", ["granite4", "hermes"])
@pytest.mark.parametrize("size", [1, 3, 7])
def test_granite_string_arguments_are_not_double_encoded(fmt: str, size: int) -> None:
    # vLLM #54964, #35421: Granite 4 string arguments were passed on double-encoded.
    value = {"param": "max_connections", "nested": {"q": 'say "hi"', "n": [1.5, None]}}
    text = (
        "<tool_call>\n"
        + json.dumps({"name": "get_db_config", "arguments": json.dumps(value)})
        + "\n</tool_call>"
    )
    events = flat(feed_each(fmt, testing.chunk_every(text, size)))
    (end,) = ends(events)
    decoded = json.loads(end.arguments)
    assert isinstance(decoded, dict) and decoded == value
    assert not end.arguments.startswith('"')
    assert '\\"param\\"' not in args_of(events)


@pytest.mark.parametrize(
    "chunks",
    [
        ['<|tool_call>call:todowrite{content:<|"|>Buy milk<|', '"|>}<tool_call|>'],
        ["<|tool_call>call:todowrite{content:<", '|"|>Buy milk<|"|>}<tool_call|>'],
        ['<|tool_call>call:todowrite{content:<|"', '|>Buy milk<|"', "|>}<tool_call|>"],
        ['<|tool_call>call:todowrite{content:<|"|>Buy milk<|"|', ">}<tool_call|>"],
    ],
)
def test_gemma4_split_string_delimiter(chunks: list[str]) -> None:
    # vLLM #38946: a <|"|> split across deltas leaked '<|' into the arguments.
    per_chunk = feed_each("gemma4", chunks)
    events = flat(per_chunk)
    args = args_of(events)
    assert json.loads(args) == {"content": "Buy milk"} and "<|" not in args
    assert text_of(events) == ""
    assert_prefix_stable(per_chunk)


@pytest.mark.parametrize(
    "chunks",
    [
        ["<|tool_call>call:search{input:{all:tru", "e}}<tool_call|>"],
        ["<|tool_call>call:set{flag:fals", "e}<tool_call|>"],
        ["<|tool_call>call:set{count:4", "2}<tool_call|>"],
        ["<|tool_call>call:set{count:-", "4", "2}<tool_call|>"],
        ["<|tool_call>call:set{v:n", "u", "l", "l}<tool_call|>"],
    ],
)
def test_gemma4_split_booleans_and_numbers(chunks: list[str]) -> None:
    # vLLM #39114: "search_all": "trutrue — a split literal streamed as a string first.
    per_chunk = feed_each("gemma4", chunks)
    assert_prefix_stable(per_chunk)
    (end,) = ends(flat(per_chunk))
    whole = ends(flat(feed_each("gemma4", ["".join(chunks)])))[0]
    assert end.arguments == whole.arguments
    assert '"tru' not in end.arguments and '"fals' not in end.arguments


FLOATS = ["3.10", "1.0", "0.1", "108.2", "-0.0", "2.5e-7", "1.0E+3", "0.30000000000000004"]


@pytest.mark.parametrize("literal", FLOATS)
def test_gemma4_floats_keep_their_value_in_any_chunking(literal: str) -> None:
    # vLLM #42128 (#42047): 108.2 streamed as 108.02 after a cut right behind the '.'.
    text = gcall("f", f"x:{literal},y:1")
    dot = text.index(".", text.index("x:"))
    chunkings = [[text[:c], text[c:]] for c in range(dot - 1, dot + 3)]
    items = assert_all_agree("gemma4", text, chunkings + split_everywhere(text))
    (call,) = [v for _, v in items if isinstance(v, testing.Call)]
    got = json.loads(call.arguments)["x"]
    assert isinstance(got, float)
    assert got == float(literal) and math.copysign(1, got) == math.copysign(1, float(literal))
    # A literal that is already JSON is passed through as written (3.10 stays 3.10).
    assert f'"x":{literal}' in call.arguments
    for chunks in chunkings:
        assert_prefix_stable(feed_each("gemma4", chunks))


def test_gemma4_exponent_without_a_dot_is_a_number() -> None:
    # The Rust crate's grammar makes 1e-7 (no '.') a string; the template writes small
    # floats that way, so ``gemma_scalar`` reads any JSON number as a number (issue 46).
    items = assert_all_agree("gemma4", gcall("f", "a:1e-7,b:1.0e-7"), [])
    (call,) = [v for _, v in items if isinstance(v, testing.Call)]
    assert json.loads(call.arguments) == {"a": 1e-7, "b": 1.0e-7}


@pytest.mark.parametrize("fmt", ["hermes", "granite4"])
@pytest.mark.parametrize("literal", FLOATS)
def test_json_formats_pass_floats_through_verbatim(fmt: str, literal: str) -> None:
    text = f'<tool_call>{{"name": "f", "arguments": {{"x": {literal}}}}}</tool_call>'
    items = assert_all_agree(fmt, text, split_everywhere(text))
    (call,) = [v for _, v in items if isinstance(v, testing.Call)]
    assert call.arguments == f'{{"x": {literal}}}'
