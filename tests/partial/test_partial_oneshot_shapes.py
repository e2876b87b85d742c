"""The one-shot fast path's C-speed routes (_oneshot.py), against the reference and the
incremental scanner: the open string read with ``rfind``, ``_walk_strings`` or json's
error position; the open containers read from the bracket bytes (``_open_at_dense``); an
open key; a top-level string. For every cut: the fast path's repaired text and value equal
the reference's (the whole text through PartialJSON), and PartialJSON fed the same text in
any chunking has that value too. Every test runs twice: with the quote routes for long
texts taken at every length (``_LONG`` = 0), and as shipped.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_partial_oneshot_fast import JUNK, assert_same, assert_same_every_cut, fast_path

from streamcall import PartialJSON
from streamcall.partial import _oneshot
from streamcall.partial.repair import parse_partial_json

sys.path.insert(0, str(Path(__file__).parents[2]))
from benchmarks.partial import (
    code_file_document,
    list_of_objects_document,
    prose_document,
)


@pytest.fixture(autouse=True, params=[0, _oneshot._LONG], ids=["every-route", "as-shipped"])
def long_routes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_oneshot, "_LONG", request.param)


def reference_value(text: str) -> str:
    with fast_path(False):
        return repr(parse_partial_json(text))


def incremental_value(text: str, cuts: list[int]) -> str:
    pj = PartialJSON()
    prev = 0
    for cut in sorted({c for c in cuts if 0 < c < len(text)}):
        pj.feed(text[prev:cut])
        prev = cut
    pj.feed(text[prev:])
    return repr(pj.value)


def assert_all_agree(text: str, cuts: list[int]) -> None:
    """One-shot (fast path on) == reference == incremental in the given chunking."""
    assert_same(text)
    with fast_path(True):
        fast = repr(parse_partial_json(text))
    assert fast == reference_value(text) == incremental_value(text, cuts), text[-80:]


SHAPES = {
    "code file": code_file_document(1200),
    "ASCII prose": prose_document(600),
    "list of objects": list_of_objects_document(1500),
    "nested list": json.dumps(
        {"query": "q", "results": json.loads(list_of_objects_document(1200))}
    ),
    "long key": json.dumps({"a": 1, 'say "hi" \\ ' * 30 + "end": 2}),
    "top-level string": json.dumps('line "one"\n\tline \\two\\ ' * 20),
    "escaped quotes last": json.dumps({"path": "p", "content": 'x = "a" + "b"\n' * 40}),
    "escaped backslash before a quote": json.dumps({"a": "c:\\", "b": ["\\\\", "x\\"]}),
    "strings holding brackets": json.dumps([{"a": "[{", "b": ["]}", {"c": "{[}]"}]}] * 12),
}


def test_shapes_every_cut_fast_equals_reference() -> None:
    for doc in SHAPES.values():
        assert_same_every_cut(doc, ["", "\\", '"', " xyz"])


@given(st.sampled_from(sorted(SHAPES)), st.data())
def test_shapes_cut_anywhere_in_any_chunking(name: str, data: st.DataObject) -> None:
    doc = SHAPES[name]
    cut = data.draw(st.integers(0, len(doc)), label="cut")
    text = doc[:cut] + data.draw(st.sampled_from(JUNK), label="junk")
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=12), label="chunks")
    assert_all_agree(text, cuts)


def test_shapes_take_the_fast_path() -> None:
    # What the benchmark measures must be decided here, not left to the reference.
    for name in ("code file", "ASCII prose", "list of objects", "nested list", "long key"):
        doc = SHAPES[name]
        for k in range(len(doc) // 3, len(doc) - 1, 41):
            assert _oneshot.fast_parse(doc[:k]) is not _oneshot.MISS, (name, doc[:k][-30:])


# --- the routes, each forced and checked ---------------------------------------------


def test_open_string_found_by_rfind() -> None:
    text = '{"a": [1, "x\\ty"], "b": "' + "plain text, no escape " * 100
    plain, q, content = _oneshot._quotes(text)
    assert q == text.rindex('"') and content is None
    if len(text) >= _oneshot._LONG:
        assert plain == _oneshot._plain(text[:q])
    assert_all_agree(text, [7, 100])
    no_backslash = '{"a": [1, "x"], "b": "' + "plain text " * 10
    assert _oneshot._quotes(no_backslash) == (no_backslash, no_backslash.rindex('"'), None)


def test_open_string_found_by_walking_the_strings() -> None:
    text = '{"path": "p", "content": "say \\"hi\\" ' + 'and \\n more \\"x\\"' * 150
    _, q, content = _oneshot._quotes(text)
    assert q == text.index('"content": "') + len('"content": ')
    if len(text) >= _oneshot._LONG:
        assert content == json.loads(text + '"}')["content"]
    assert_all_agree(text, [3, 50])


def test_open_string_found_by_the_decoder_past_the_walk() -> None:
    head = ", ".join(f'"k{i}": "v{i}"' for i in range(_oneshot._WALK_MAX + 4))
    text = "{" + head + ', "z": "a \\"quoted\\" word'
    assert _oneshot._walk_strings(text) is None
    assert _oneshot._unterminated(text) == text.rindex('"z": "') + len('"z": ')
    assert_all_agree(text, [11])


@given(st.lists(st.sampled_from(['"', "\\", "a", "[", "{", "}", "]", ",", ":", " "]), max_size=40))
def test_quote_routes_on_noise(chars: list[str]) -> None:
    text = '{"a": "' + "".join(chars)
    assert_same(text)
    assert_same('["x", "' + "".join(chars))


def test_top_level_string_is_certainly_cut() -> None:
    assert _oneshot.certainly_cut('"abc')
    assert _oneshot.certainly_cut('  "abc\\"')
    assert _oneshot.certainly_cut('"')
    assert not _oneshot.certainly_cut('"abc"')
    assert not _oneshot.certainly_cut('"abc\\\\" ')
    for text in ('"abc', '"abc\\"', '"abc"', '"a\\\\"', ' "x" y', '"\\ud83d'):
        assert_same(text)


# --- the open containers of bracket-dense text ----------------------------------------


def walk_open_at(plain: str, p: int) -> list[int] | None:
    """The plain definition: every bracket outside strings, matched one by one."""
    openers: list[int] = []
    inside = False
    for i, c in enumerate(plain[:p]):
        if c == '"':
            inside = not inside
        elif inside:
            continue
        elif c in "{[":
            openers.append(i)
        elif c in "}]":
            if not openers or plain[openers[-1]] != ("{" if c == "}" else "["):
                return None
            openers.pop()
    return None if len(openers) > _oneshot._DEPTH_MAX else openers


values = st.recursive(
    st.sampled_from([1, "s", True, None, "a[b", "}{", 'q"x', "\\"]),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.sampled_from("abc"), inner),
    max_leaves=60,
)


@given(st.lists(values, min_size=8, max_size=40), st.booleans(), st.data())
def test_dense_open_containers_equal_the_plain_walk(
    items: list[object], wrap: bool, data: st.DataObject
) -> None:
    doc = json.dumps({"x": [0, {"r": items}]} if wrap else items)
    cut = data.draw(st.integers(0, len(doc)))
    text = doc[:cut]
    plain = _oneshot._plain(text)
    p = len(plain)
    while plain.count('"', 0, p) & 1:
        p -= 1
    assert _oneshot._open_at(plain, p) == walk_open_at(plain, p)
    assert_all_agree(text, data.draw(st.lists(st.integers(0, len(text)), max_size=8)))


def test_dense_routes_far_and_near() -> None:
    # Many closed records between open containers: the ranks far back are found by
    # skipping brackets from the start, the near ones from a window before the cut.
    records = [{"i": i, "t": [i, [i]], "o": {"k": [i]}} for i in range(400)]
    doc = json.dumps([{"head": records, "tail": [records[:50], {"x": [1, {"y": ["z"]}]}]}])
    for cut in (len(doc) // 3, len(doc) // 2, len(doc) - 40, len(doc) - 12, len(doc) - 3):
        text = doc[:cut]
        plain = _oneshot._plain(text)
        p = len(plain)
        while plain.count('"', 0, p) & 1:
            p -= 1
        assert _oneshot._open_at(plain, p) == walk_open_at(plain, p)
        assert_same(text)


def test_dense_mismatch_and_depth() -> None:
    for text in ("[" + "{}," * 40 + "}", "[" + "[]," * 40 + "{]", "[" * 250 + "1," + "[]," * 40):
        plain = _oneshot._plain(text)
        assert _oneshot._open_at(plain, len(plain)) == walk_open_at(plain, len(plain))
        assert_same(text)
