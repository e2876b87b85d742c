"""PartialJSON: the incremental form, against the one-shot functions."""

from __future__ import annotations

import json
import random

import pytest
from _partial_docs import REAL_DOCS

from streamcall import PartialJSON, StringAppend, ValueComplete, parse_partial_json, repair_json
from streamcall.partial.incremental import MAX_DEPTH


def chunks_of(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("doc", REAL_DOCS)
@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 10_000])
def test_value_after_every_chunk_equals_one_shot(doc: str, size: int) -> None:
    pj = PartialJSON()
    fed = ""
    for chunk in chunks_of(doc, size):
        pj.feed(chunk)
        fed += chunk
        assert pj.value == parse_partial_json(fed)
        assert pj.complete == (fed == doc)
    assert pj.value == json.loads(doc)


def test_values_are_snapshots_not_live_views() -> None:
    pj = PartialJSON()
    pj.feed('{"a": [1, 2')
    first = pj.value
    pj.feed(', 3], "b": "x')
    second = pj.value
    pj.feed('yz"}')
    assert first == {"a": [1, 2]}
    assert second == {"a": [1, 2, 3], "b": "x"}
    assert pj.value == {"a": [1, 2, 3], "b": "xyz"}


def test_completed_subtrees_are_built_once_and_shared() -> None:
    pj = PartialJSON()
    pj.feed('{"done": {"x": [1, 2, 3]}, "open": "ab')
    first = pj.value
    pj.feed("cd")
    second = pj.value
    assert first is not second
    assert first["done"] is second["done"]


def test_value_is_cached_until_the_next_feed() -> None:
    pj = PartialJSON()
    pj.feed('{"a": "b')
    assert pj.value is pj.value
    pj.feed("")
    assert pj.value == {"a": "b"}


def test_complete_and_what_follows() -> None:
    pj = PartialJSON()
    pj.feed('{"a": 1')
    assert not pj.complete
    pj.feed("}")
    assert pj.complete
    pj.feed("  \n")
    assert pj.complete
    pj.feed(" junk {")
    assert pj.complete
    assert pj.value == {"a": 1}


def test_top_level_number_is_complete_only_when_ended() -> None:
    pj = PartialJSON()
    pj.feed("12")
    assert not pj.complete
    assert pj.value == 12
    pj.feed("3 ")
    assert pj.complete
    assert pj.value == 123


def test_junk_freezes_the_state() -> None:
    pj = PartialJSON()
    pj.feed('{"a": "b"')
    pj.feed("x")
    pj.feed(', "c": 1}')
    assert pj.value == {"a": "b"}
    assert not pj.complete


@pytest.mark.parametrize(
    "pieces",
    [
        ['"\\', "u00e9", '"'],
        ['"\\u00', "e9", '"'],
        ['"\\ud83d', "\\ude00", '"'],
        ['"\\ud83d\\', "ude00", '"'],
        ['"\\ud83d\\ud', "e00", '"'],
        ['"a\\\\', '"'],
    ],
)
def test_escapes_split_across_chunks(pieces: list[str]) -> None:
    pj = PartialJSON()
    text = ""
    for piece in pieces:
        pj.feed(piece)
        text += piece
        assert pj.value == parse_partial_json(text)
    assert pj.value == json.loads(text)


def test_million_nested_brackets_fed_in_chunks() -> None:
    # Cut at MAX_DEPTH open containers (the opener past it is junk), never a recursion.
    pj = PartialJSON()
    for _ in range(1000):
        pj.feed("[" * 1000)
    value = pj.value
    depth = 0
    while value:
        value = value[0]
        depth += 1
    assert depth == MAX_DEPTH - 1
    for _ in range(1000):
        pj.feed("]" * 1000)
    assert not pj.complete  # what came after the cut is not read
    assert json.dumps(pj.value) == repair_json("[" * 1_000_000)


# --- the event view ---------------------------------------------------------------------


def collect(doc: str, size: int) -> list[StringAppend | ValueComplete]:
    pj = PartialJSON()
    out: list[StringAppend | ValueComplete] = []
    for chunk in chunks_of(doc, size):
        out.extend(pj.feed_events(chunk))
    return out


def test_events_for_a_growing_string_and_completed_values() -> None:
    events = collect('{"city": "Paris", "n": [1, {"k": true}]}', 4)
    appends = [e for e in events if isinstance(e, StringAppend)]
    assert all(e.path == ("city",) for e in appends)
    assert "".join(e.text for e in appends) == "Paris"
    assert len(appends) > 1
    done = [(e.path, e.value) for e in events if isinstance(e, ValueComplete)]
    assert done == [
        (("city",), "Paris"),
        (("n", 0), 1),
        (("n", 1, "k"), True),
        (("n", 1), {"k": True}),
        (("n",), [1, {"k": True}]),
        ((), {"city": "Paris", "n": [1, {"k": True}]}),
    ]


@pytest.mark.parametrize("doc", REAL_DOCS)
def test_events_do_not_depend_on_chunking(doc: str) -> None:
    def coalesced(events: list[StringAppend | ValueComplete]) -> list[object]:
        out: list[object] = []
        for e in events:
            if isinstance(e, StringAppend) and out and isinstance(out[-1], StringAppend):
                last = out[-1]
                if last.path == e.path:
                    out[-1] = StringAppend(e.path, last.text + e.text)
                    continue
            out.append(e)
        return out

    whole = coalesced(collect(doc, len(doc)))
    rng = random.Random(doc)
    for size in (1, 7, rng.randint(2, 20)):
        assert coalesced(collect(doc, size)) == whole
    assert isinstance(whole[-1], ValueComplete)
    assert whole[-1].path == ()
    assert whole[-1].value == json.loads(doc)


def test_string_appends_join_to_the_completed_string() -> None:
    doc = '["\\u00e9t\\u00e9 \\ud83d\\ude00", "\\"q\\""]'
    for size in (1, 3, 7):
        events = collect(doc, size)
        for index, expected in enumerate(json.loads(doc)):
            text = "".join(
                e.text for e in events if isinstance(e, StringAppend) and e.path == (index,)
            )
            assert text == expected


# --- live mode: no copies, the parser's own containers ------------------------------------


@pytest.mark.parametrize(
    "doc",
    [
        *REAL_DOCS,
        '{"a": 1, "b": 2, "a": [3, {"a": "x"}], "ab": {"a": 1, "a": "y"}}',
        '[[1, [2, [3, "four"]]], {"k": [{"k": {"k": null}}]}]',
    ],
)
@pytest.mark.parametrize("size", [1, 3, 7])
def test_live_value_equals_one_shot_when_read(doc: str, size: int) -> None:
    pj = PartialJSON(live=True)
    fed = ""
    for chunk in chunks_of(doc, size):
        pj.feed(chunk)
        fed += chunk
        assert pj.value == parse_partial_json(fed)
    assert pj.value == json.loads(doc)


def test_live_value_is_one_object_updated_in_place() -> None:
    pj = PartialJSON(live=True)
    pj.feed('{"a": [1')
    first = pj.value
    pj.feed(', 2], "b": "c')
    second = pj.value
    assert first is second
    assert second == {"a": [1, 2], "b": "c"}


def test_live_mode_matches_after_junk() -> None:
    pj = PartialJSON(live=True)
    pj.feed('{"a": [1, "x" y')
    assert pj.value == {"a": [1, "x"]}
    pj.feed("more")
    assert pj.value == {"a": [1, "x"]}
