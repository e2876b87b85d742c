"""PartialJSON snapshot mode keeps the last snapshot's open containers and brings them up to
date in place when the caller has dropped it (sys.getrefcount), instead of copying them.

A snapshot the caller still holds, or any container inside it, must never change; every
read must still equal parse_partial_json of the prefix. The properties run with the size
threshold lowered (every container kept), at its default, and with reuse off, and mostly
without the pause in keeping that follows a held snapshot (so that reuse is tried often).
"""

from __future__ import annotations

import copy
import json
import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcall import PartialJSON, parse_partial_json
from streamcall.partial import incremental
from streamcall.partial import snapshot as snapshots

REUSE = sys.maxsize > snapshots._REUSE_MIN  # CPython with exact refcounts: kept at all
BIG = 300 if not REUSE else snapshots._REUSE_MIN + 20  # entries: big enough to keep


@contextmanager
def reuse_from(size: int, *, skip_max: int = 0) -> Iterator[None]:
    """Keep open containers from ``size`` entries on (sys.maxsize: never); after a held
    snapshot, copy without keeping for at most ``skip_max`` reads (0: try at every read).
    ``feed`` (incremental) notes a container grown to the size, ``snapshots`` keeps it."""
    saved = incremental._REUSE_MIN, snapshots._REUSE_MIN, snapshots._SKIP_MAX
    incremental._REUSE_MIN = snapshots._REUSE_MIN = size  # type: ignore[misc]
    snapshots._SKIP_MAX = skip_max  # type: ignore[misc]
    try:
        yield
    finally:
        incremental._REUSE_MIN, snapshots._REUSE_MIN, snapshots._SKIP_MAX = saved  # type: ignore[misc]


def ordered(value: Any) -> Any:
    """The value with every object as its list of items: equality that sees key order."""
    if type(value) is dict:
        return [(k, ordered(v)) for k, v in value.items()]
    if type(value) is list:
        return [ordered(v) for v in value]
    return value


# --- generated documents: nesting, duplicate keys and keys that are prefixes of others ----

keys = st.sampled_from(["a", "b", "ab", "abc", "", "é", 'x"y', "😀", "a\\b"]) | st.text(max_size=4)
scalar_texts = st.one_of(
    st.integers(min_value=-(10**20), max_value=10**20).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(json.dumps),
    st.sampled_from(["true", "false", "null", "0", "-0.5e-3", "12.75E+2", "Infinity"]),
    st.text(max_size=8).map(lambda s: json.dumps(s, ensure_ascii=False)),
    st.text(max_size=8).map(json.dumps),  # \u escapes, surrogate pairs
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    colon, comma = draw(st.sampled_from([(":", ","), (": ", ", "), (" : ", " ,\n  ")]))

    def array(items: list[str]) -> str:
        return "[" + comma.join(items) + "]"

    def obj(items: list[tuple[str, str]]) -> str:
        body = comma.join(json.dumps(k, ensure_ascii=False) + colon + v for k, v in items)
        return "{" + body + "}"

    tree = st.recursive(
        scalar_texts,
        lambda inner: (
            st.lists(inner, max_size=6).map(array)
            | st.lists(st.tuples(keys, inner), max_size=6).map(obj)
        ),
        max_leaves=24,
    )
    top = draw(st.lists(st.tuples(keys, tree), max_size=6).map(obj) | tree)
    return draw(st.sampled_from(["", " ", "\n"])) + top


def containers_in(value: Any) -> list[Any]:
    """Every dict and list inside ``value``, ``value`` first if it is one."""
    out: list[Any] = []
    todo = [value]
    while todo:
        v = todo.pop()
        if type(v) is dict:
            out.append(v)
            todo.extend(v.values())
        elif type(v) is list:
            out.append(v)
            todo.extend(v)
    return out


def run_with_reads(doc: str, cuts: list[int], actions: list[str], seed: int) -> None:
    """Feed ``doc`` cut at ``cuts``; after each chunk do the next action:

    drop  read the value and let it go (the reuse path, next time)
    keep  read it and keep it, with a deep copy to check it against later
    inner read it and keep one container inside it (or itself), with a deep copy
    skip  do not read
    """
    rng = random.Random(seed)
    bounds = [*sorted({c for c in cuts if 0 < c < len(doc)}), len(doc)]
    pj = PartialJSON()
    kept: list[tuple[Any, Any]] = []
    start = 0
    for n, end in enumerate(bounds):
        pj.feed(doc[start:end])
        start = end
        action = actions[n % len(actions)] if actions else "drop"
        if action == "skip":
            continue
        value = pj.value
        assert ordered(value) == ordered(parse_partial_json(doc[:end]))
        assert pj.value is value  # cached until the next feed
        if action == "keep":
            kept.append((value, copy.deepcopy(value)))
        elif action == "inner":
            found = containers_in(value)
            if found:
                inner = rng.choice(found)
                kept.append((inner, copy.deepcopy(inner)))
        del value
        for held, snapshot in kept:
            assert ordered(held) == ordered(snapshot)
    assert ordered(pj.value) == ordered(parse_partial_json(doc))


actions = st.lists(st.sampled_from(["drop", "drop", "keep", "inner", "skip"]), max_size=8)
cut_lists = st.lists(st.integers(min_value=0, max_value=300), max_size=40)


@settings(max_examples=300)
@given(
    documents(),
    cut_lists,
    actions,
    st.integers(0, 2**32),
    st.sampled_from([0, 1, 3, 64, sys.maxsize]),
    st.sampled_from([0, 0, 3]),
)
def test_reads_equal_one_shot_and_held_snapshots_never_change(
    doc: str, cuts: list[int], acts: list[str], seed: int, threshold: int, skip_max: int
) -> None:
    with reuse_from(threshold, skip_max=skip_max):
        run_with_reads(doc, cuts, acts, seed)


@settings(max_examples=100)
@given(documents(), actions, st.integers(0, 2**32), st.sampled_from([0, 2]))
def test_every_character_a_chunk(doc: str, acts: list[str], seed: int, threshold: int) -> None:
    with reuse_from(threshold):
        run_with_reads(doc, list(range(len(doc))), acts, seed)


@pytest.mark.parametrize(
    "doc",
    [
        '{"a": 1, "b": [2, {"a": 3, "a": [4, 5], "c": "six"}], "b": {"a": "x", "a": {"b": 7}}}',
        '[[1, [2, [3, "four"]]], {"k": [{"k": {"k": null}}]}, [], {}]',
        '{"ab": 1, "a": {"abc": 2, "ab": 3, "abc": "tru',
        '{"k": "\\ud83d\\ude00 \\u00e9\\\\ \\"q\\"", "k": -12.5e-3, "n": [true, false, nu',
        # the big container below a small kept one closes, and a duplicate key takes it
        '{"a":[],"":{},"é":{},"":{},"b":[],"":[{"a":0.0,"b":"","":""}]}',
    ],
)
@pytest.mark.parametrize("threshold", [0, 1, 2, 64])
def test_duplicate_keys_and_cut_tokens_read_after_every_character(doc: str, threshold: int) -> None:
    for acts in (["drop"], ["drop", "keep"], ["inner", "drop", "drop"]):
        with reuse_from(threshold):
            run_with_reads(doc, list(range(len(doc))), acts, 0)


# --- the reuse path is taken exactly when nothing else holds the snapshot -----------------


@pytest.fixture
def kept_levels(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of open levels each read kept (PartialJSON._take_back's answer)."""
    answers: list[int] = []
    take_back = PartialJSON._take_back

    def spy(self: PartialJSON) -> int:
        kept = take_back(self)
        answers.append(kept)
        return kept

    monkeypatch.setattr(PartialJSON, "_take_back", spy)
    return answers


def many_keys(n: int) -> str:
    return ", ".join(f'"key_{i}": {i}' for i in range(n))


needs_refcounts = pytest.mark.skipif(not REUSE, reason="no exact sys.getrefcount")


@needs_refcounts
def test_a_dropped_snapshot_is_brought_up_to_date_in_place(kept_levels: list[int]) -> None:
    pj = PartialJSON()
    pj.feed("{" + many_keys(BIG) + ', "last": "ab')
    first = id(pj.value)  # dropped: only its id is kept
    pj.feed('c", "more": [1')
    value = pj.value
    assert id(value) == first
    assert kept_levels == [1]
    assert value["last"] == "abc" and value["more"] == [1] and len(value) == BIG + 2
    assert value == parse_partial_json("{" + many_keys(BIG) + ', "last": "abc", "more": [1')


@needs_refcounts
def test_a_held_snapshot_is_copied_and_stays_as_it_was(kept_levels: list[int]) -> None:
    pj = PartialJSON()
    pj.feed("{" + many_keys(BIG) + ', "last": "ab')
    held = pj.value
    pj.feed('c", "more": 1')
    value = pj.value
    assert value is not held
    assert kept_levels == [0]
    assert held["last"] == "ab" and "more" not in held and len(held) == BIG + 1
    assert value["last"] == "abc" and value["more"] == 1


@needs_refcounts
def test_a_held_inner_container_keeps_the_top_only(kept_levels: list[int]) -> None:
    pj = PartialJSON()
    pj.feed("{" + many_keys(BIG) + ', "args": {' + many_keys(BIG) + ', "body": "ab')
    top_id = id(pj.value)
    args = pj.value["args"]
    pj.feed("cd")
    value = pj.value
    assert kept_levels == [1]  # the top, not the args the caller holds
    assert id(value) == top_id and value["args"] is not args
    assert args["body"] == "ab" and value["args"]["body"] == "abcd"
    del value, args
    pj.feed("ef")
    assert pj.value["args"]["body"] == "abcdef"
    assert kept_levels == [1, 2]


@needs_refcounts
def test_a_small_top_above_a_big_child_is_kept_too(kept_levels: list[int]) -> None:
    pj = PartialJSON()
    pj.feed('{"name": "write", "args": {' + many_keys(BIG) + ', "body": "ab')
    args_id = id(pj.value["args"])
    pj.feed("cd")
    value = pj.value
    assert kept_levels == [2]  # both in place: a small one above a big one costs nothing
    assert id(value["args"]) == args_id and value["args"]["body"] == "abcd"
    del value
    pj.feed('", "x": 1}, "z": "')  # only the small top is open: back to plain copies
    value = pj.value
    assert value["args"]["x"] == 1 and value["z"] == ""
    assert kept_levels == [2, 0] and not pj._spine


@needs_refcounts
def test_nested_levels_are_kept_while_they_stay_open(kept_levels: list[int]) -> None:
    pj = PartialJSON()
    pj.feed('{"name": "write", "args": {' + many_keys(BIG) + ', "list": [' + "1, " * BIG)
    args_id = id(pj.value["args"])
    list_id = id(pj.value["args"]["list"])
    pj.feed('2, "x')
    value = pj.value
    assert kept_levels == [3]
    assert id(value["args"]) == args_id and id(value["args"]["list"]) == list_id
    assert value["args"]["list"][-2:] == [2, "x"]
    del value
    pj.feed('"], "after": tru')  # the list closes: args is kept, the list is not open
    value = pj.value
    assert kept_levels == [3, 2]
    assert value["args"]["list"][-2:] == [2, "x"] and value["args"]["after"] is None


@needs_refcounts
def test_the_cache_holds_the_top_until_the_next_feed(kept_levels: list[int]) -> None:
    pj = PartialJSON()
    pj.feed("[" + "1, " * BIG + "2")
    first = pj.value
    assert pj.value is first  # no feed: the cached object, no rebuild
    assert kept_levels == []
    del first
    pj.feed("3")
    assert pj.value[-1] == 23
    assert kept_levels == [1]


@pytest.mark.parametrize("doc", ['{"a": [1, {"b": "cd"}, 3], "e": {"f": "gh"}}'])
def test_without_refcounts_nothing_is_reused(
    doc: str, monkeypatch: pytest.MonkeyPatch, kept_levels: list[int]
) -> None:
    # PyPy: no sys.getrefcount, so no count ever says "private", even if all are kept.
    monkeypatch.setattr(snapshots, "_refcount", snapshots._no_refcount)
    with reuse_from(0):
        run_with_reads(doc, list(range(len(doc))), ["drop"], 0)
    assert kept_levels and set(kept_levels) == {0}


@needs_refcounts
def test_a_caller_that_holds_every_snapshot_is_rarely_kept_for(kept_levels: list[int]) -> None:
    pj = PartialJSON()
    pj.feed("[" + "1, " * BIG)
    held = pj.value
    for _ in range(200):
        pj.feed("2, ")
        held = pj.value  # held while the next is built (to diff frames, say)
    assert 0 < len(kept_levels) <= 10 and set(kept_levels) == {0}  # 1, 3, 7 ... 63 apart
    assert held == parse_partial_json("[" + "1, " * BIG + "2, " * 200)
    del held
    for _ in range(70):  # dropped again: kept again, within 63 reads
        pj.feed("3, ")
        pj.value  # noqa: B018
    assert kept_levels[-5:] == [1] * 5
