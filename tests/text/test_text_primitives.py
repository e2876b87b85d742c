"""The text layer's scanning primitives (``streamcall.text``), against independent references."""

from __future__ import annotations

import json
import re

from hypothesis import assume, given
from hypothesis import strategies as st

from streamcall.text import (
    ArgsStreamer,
    JsonScan,
    MarkerFinder,
    PartialMarkers,
    decode_json_string,
    fast,
    header_match,
    partial_marker_len,
)

alphabet = st.sampled_from(list('<>|/_tolca｜▁"\\{}x '))
markers = st.lists(st.text(alphabet, min_size=1, max_size=8), min_size=1, max_size=5)


def reference_partial(buf: str, marks: list[str], start: int = 0) -> int:
    """Longest suffix of buf[start:] that is a proper prefix of a marker, by brute force."""
    best = 0
    for k in range(1, len(buf) - start + 1):
        suffix = buf[len(buf) - k :]
        if any(len(m) > k and m.startswith(suffix) for m in marks):
            best = k
    return best


@given(buf=st.text(alphabet, max_size=30), marks=markers, start=st.integers(0, 30))
def test_partial_marker_len_matches_brute_force(buf: str, marks: list[str], start: int) -> None:
    start = min(start, len(buf))
    assert partial_marker_len(buf, marks, start) == reference_partial(buf, marks, start)
    assert PartialMarkers(marks).length(buf, start) == reference_partial(buf, marks, start)


@given(buf=st.text(alphabet, max_size=40), marks=markers)
def test_marker_finder_finds_the_first_marker_or_holds_a_partial_one(
    buf: str, marks: list[str]
) -> None:
    end, resume, marker = MarkerFinder(marks).find(buf, 0)
    hits = [(buf.find(m), -len(m), m) for m in marks if m in buf]
    if hits:
        first, neg_len, m = min(hits)
        assert (end, resume, marker) == (first, first - neg_len, m)
    else:
        assert marker is None and end == resume == len(buf) - reference_partial(buf, marks)


@given(buf=st.text(alphabet, max_size=40), marks=markers, data=st.data())
def test_a_search_resumed_where_the_last_one_ended_finds_what_a_whole_one_finds(
    buf: str, marks: list[str], data: st.DataObject
) -> None:
    """A caller holding its buffer whole passes how far its last search (which found
    nothing) went; the search then covers only what a marker may still overlap."""
    finder = MarkerFinder(marks)
    searched = data.draw(st.integers(0, len(buf)))
    pos = data.draw(st.integers(0, searched))
    assume(finder.find(buf[:searched], pos)[2] is None)
    assert finder.find(buf, pos, searched) == finder.find(buf, pos)
    assert finder.find_final(buf, pos, searched) == finder.find_final(buf, pos)
    assert finder.take(buf, pos, True, searched) == finder.find_final(buf, pos)
    assert finder.take(buf, pos, False, searched) == finder.find(buf, pos)


json_strings = st.text(st.characters(codec="utf-8"), max_size=20).map(json.dumps)


@given(literal=json_strings, data=st.data())
def test_decode_json_string_in_any_cut(literal: str, data: st.DataObject) -> None:
    """Decoding the body in two pieces gives json.loads' answer (held escapes included)."""
    body = literal[1:]
    cut = data.draw(st.integers(0, len(body)))
    first, resume, status = decode_json_string(body[:cut], 0)
    assert status in (0, 1)
    if status == 1:
        assert first == json.loads(literal) and resume == len(body)
        return
    rest, _, status = decode_json_string(body[:cut][resume:] + body[cut:], 0)
    assert status == 1
    assert first + rest == json.loads(literal)


documents = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=10,
).map(lambda v: json.dumps({"v": v}))


@given(doc=documents, data=st.data())
def test_json_scan_accepts_valid_documents_in_any_chunking(doc: str, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(1, max(1, len(doc) - 1)), max_size=6)))
    streamer = ArgsStreamer()
    tail = ""
    prev = 0
    for cut in [*cuts, len(doc)]:
        buf = tail + doc[prev:cut]
        prev = max(prev, cut)
        _, pos = streamer.push(buf, 0, final=cut == len(doc))
        tail = buf[pos:]
        assert not streamer.error
    assert streamer.done and streamer.text() == doc


@given(doc=documents, cut=st.integers(0, 200))
def test_closing_completes_any_prefix(doc: str, cut: int) -> None:
    prefix = doc[: min(cut, len(doc))]
    scan = JsonScan()
    pos = scan.feed(prefix, 0)
    assert not scan.error
    completed = prefix[:pos] + scan.closing(prefix[pos:])
    assert isinstance(json.loads(completed), dict) or not prefix


@given(doc=documents)
def test_json_scan_rejects_what_json_rejects(doc: str) -> None:
    for broken in (doc[:-1] + ",}", doc.replace(":", "", 1), "{" + doc[1:].replace('"', "'", 2)):
        try:
            json.loads(broken)
            continue
        except ValueError:
            pass
        scan = JsonScan()
        scan.feed(broken, 0, final=True)
        assert scan.error or not scan.done


# Objects of small members (what ``push_more`` reads in one step) mixed with what it must
# leave to ``push``: escapes, nesting, bad numbers and keywords, raw control characters.
object_piece = st.sampled_from(
    [
        '"k": 1, ',
        '"key_2": "v2",',
        '\n  "a" :\ttrue ,\r\n',
        '"n": null, ',
        '"x": -1.5e3, ',
        '"": "", ',
        '"s": "a\\"b", ',
        '"c": "raw\ncontrol", ',
        '"o": {"p": [1, 2]}, ',
        '"z": 01, ',
        '"w": tru, ',
        '"long": "' + "x" * 70 + '", ',
        '"東": "😀", ',
        '"v": 7',
        "}",
        ",",
        " ",
        "nope",
    ]
)


@given(
    pieces=st.lists(object_piece, max_size=20),
    close=st.sampled_from(["", "}", '"e": 2}', "]"]),
    cuts=st.lists(st.integers(1, 50), max_size=40),
)
def test_push_more_equals_push(pieces: list[str], close: str, cuts: list[int]) -> None:
    """Fed with a held tail as the engines do, ``push_more`` releases the text ``push``
    releases (later, a cut member whole) and ends in the same state."""
    from streamcall import testing

    doc = "{" + "".join(pieces) + close
    chunks = testing.chunk_at(doc, cuts)
    results = []
    for more in (True, False, None):  # push_more, push, push_more on its reference path
        streamer = ArgsStreamer()
        tail = ""
        deltas = []
        for chunk in chunks:
            buf = tail + chunk
            if more is None:
                with fast.reference():
                    delta, pos = streamer.push_more(buf, 0)
            else:
                delta, pos = streamer.push_more(buf, 0) if more else streamer.push(buf, 0)
            deltas.append(delta)
            tail = buf[pos:]
            if streamer.done or streamer.error:
                break
            assert len(tail) <= 64  # a cut member, or a token that may grow
        else:
            delta, pos = streamer.push(tail, 0, final=True)
            deltas.append(delta)
            tail = tail[pos:]
        if not streamer.done and not streamer.error:
            deltas.append(streamer.close(tail))
        assert "".join(deltas) == streamer.text()
        results.append((streamer.text(), streamer.done, streamer.error))
    assert results[0] == results[1] == results[2]


def test_push_more_is_on() -> None:
    """It measured faster (docs/performance.md), so it is on by default: a cut member is
    held whole."""
    assert fast.FAST is True
    streamer = ArgsStreamer()
    streamer.push("{", 0)
    assert streamer.push_more('"a": 1, "b": tr', 0) == ('"a": 1, ', 8)  # "b" held whole
    assert streamer.push_more('"b": true, "c', 0) == ('"b": true, ', 11)


def test_a_raw_lone_surrogate_stays_whatever_the_cut() -> None:
    """An escaped lone surrogate becomes U+FFFD; one written raw (a caller's ``str`` can
    hold it) is text and stays, whether or not its run also holds a ``\\u`` escape."""
    body = 'a\ud83d\\u0001\\ud83dx\\ud83d\\ude00\udc00"'
    expected = "a\ud83d\x01\ufffdx\U0001f600\udc00"
    for cut in range(len(body) + 1):
        first, resume, status = decode_json_string(body[:cut], 0)
        if status == 1:
            assert first == expected
            continue
        rest, _, status = decode_json_string(body[:cut][resume:] + body[cut:], 0)
        assert status == 1 and first + rest == expected, cut


HEADERS = [re.compile(r"(\w*)>"), re.compile(r"(\w*?)\s*(?=<)"), re.compile(r"(\w+)(?:\n|(?=<))")]


def decide(pattern: re.Pattern[str], text: str, cuts: list[int], bound: int) -> object:
    """A header step fed ``text`` in the chunks that end at ``cuts``: it holds while no
    header matches and the buffer is within ``bound``, as the engines' header steps do."""
    for n in [*sorted(set(cuts)), len(text)]:
        m = header_match(pattern, text[:n], 0, bound)
        if m is not None:
            return m.group(1)
        if n == len(text) or n > bound:
            return None
    return None


@given(
    st.sampled_from(HEADERS),
    st.text(st.sampled_from("ab \n<>"), max_size=14),
    st.lists(st.integers(1, 14), max_size=6),
    st.integers(1, 8),
)
def test_a_header_is_one_whatever_the_chunks(
    pattern: re.Pattern[str], text: str, cuts: list[int], bound: int
) -> None:
    """``header_match`` with a step that holds while the buffer is within ``bound``: the
    same header, or none, in any chunking as whole and one character at a time (patterns
    with and without a one-character lookahead after the header)."""
    cuts = [c for c in cuts if c < len(text)]
    whole = decide(pattern, text, [], bound)
    assert decide(pattern, text, cuts, bound) == whole
    assert decide(pattern, text, list(range(1, len(text))), bound) == whole
