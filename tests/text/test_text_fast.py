"""The one switch: ``streamcall.text.fast``. Every fast read is on by default (each one
measured faster than its reference path, docs/performance.md), runs only while ``FAST``
is set, and gives what its reference path gives."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.events import Event, ToolCallArgs
from streamcall.text import ArgsStep, ArgsStreamer, JsonScan, StopMarkers, fast
from support import pure_only


def test_the_fast_reads_are_on_by_default() -> None:
    assert fast.FAST is True


def test_reference_switches_them_off_and_back() -> None:
    with fast.reference():
        assert fast.FAST is False
        with fast.reference():
            assert fast.FAST is False
        assert fast.FAST is False
    assert fast.FAST is True
    with pytest.raises(KeyError), fast.reference():
        raise KeyError
    assert fast.FAST is True


class Refuse:
    """Stands in for a reference path that a fast read must not take."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the reference path ran ({name})")


class NoScan(ArgsStreamer):
    """An argument streamer whose reference read (``push``) must not run."""

    __slots__ = ()

    def push(self, buf: str, pos: int, final: bool = False) -> tuple[str, int]:
        raise AssertionError("the reference path ran (push)")


@pure_only
def test_push_more_reads_whole_members_without_the_scan() -> None:
    streamer = NoScan()
    ArgsStreamer.push(streamer, "{", 0)
    assert streamer.push_more('"a": 1, "b": "x", "c": tr', 0) == ('"a": 1, "b": "x", ', 18)
    assert streamer.scan.expect == 2  # a key must come: nothing was scanned
    held = ArgsStreamer()
    held.push('{"a": 1, "b": "x", ', 0)
    with fast.reference():  # the reference read: what push gives, a cut member not held
        assert held.push_more('"c": tr', 0) == ('"c": ', 5)


class NoFeed(JsonScan):
    """A scan whose ``feed`` (the reference read) must not run."""

    __slots__ = ()

    def feed(self, buf: str, pos: int, final: bool = False) -> int:
        raise AssertionError("the reference path ran (JsonScan.feed)")


@pure_only
def test_push_more_takes_plain_string_text_without_the_scan() -> None:
    streamer = ArgsStreamer()
    streamer.push('{"s": "abc', 0)
    scan = NoFeed()
    scan.stack, scan.expect, scan.in_string = ["}"], streamer.scan.expect, True
    streamer.scan = scan
    assert streamer.push_more("def \\n \\u00e9 g", 0) == ("def \\n \\u00e9 g", 15)
    assert scan.in_string and streamer.text() == '{"s": "abcdef \\n \\u00e9 g'
    with pytest.raises(AssertionError, match="reference path ran"):
        streamer.push_more('h", "t": 1', 0)  # the string closes: the scan reads on
    with fast.reference(), pytest.raises(AssertionError, match="reference path ran"):
        streamer.push_more("more", 0)


@pure_only
def test_stop_markers_answer_a_lead_free_buffer_without_the_search() -> None:
    stops = StopMarkers(["<|call|>", "<|end|>", "<|start|>"])
    assert stops.lead == "<|"
    stops.finder = Refuse()  # type: ignore[assignment]
    assert stops.find('{"a": 1}', 0, False) == (8, 8, None)
    assert stops.find('{"a": 1}<', 0, False) == (8, 8, None)  # a cut marker's first char
    assert stops.find('{"a": 1}<', 0, True) == (9, 9, None)
    with fast.reference(), pytest.raises(AssertionError, match="reference path ran"):
        stops.find('{"a": 1}', 0, False)
    with pytest.raises(AssertionError, match="reference path ran"):
        stops.find('{"a": 1}<|', 0, False)  # the lead: the search decides


marker_sets = st.sampled_from(
    [
        ["<|call|>", "<|end|>", "<|start|>"],
        ["<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>"],
        ["[TOOL_CALLS]"],
        ["<a>", "<b", "<"],
        ["ab", "x"],  # no common lead: always the search
    ]
)
stop_text = st.lists(
    st.sampled_from(["a", "b", "<", "|", "x", "{", "}", '"', "<|call|>", "<|end", "[TOOL", "<｜"]),
    max_size=20,
).map("".join)


@given(markers=marker_sets, text=stop_text, pos=st.integers(0, 40), final=st.booleans())
def test_stop_markers_find_what_the_search_finds(
    markers: list[str], text: str, pos: int, final: bool
) -> None:
    stops = StopMarkers(markers)
    pos = min(pos, len(text))
    expected = stops.finder.take(text, pos, final)
    assert stops.find(text, pos, final) == expected
    with fast.reference():
        assert stops.find(text, pos, final) == expected


args_piece = st.sampled_from(
    ['"k": 1, ', '"s": "a<b", ', '"o": {"p": [1, 2]}, ', '"t": "\\u00e9", ', '"v": 7}', "}"]
)


@given(
    markers=marker_sets,
    pieces=st.lists(args_piece, max_size=8),
    after=st.sampled_from(["", "<|call|>", "<|end|>x", "[TOOL_CALLS]", "<", "<|ca", "x"]),
    cuts=st.lists(st.integers(1, 30), max_size=12),
)
def test_args_step_in_any_chunking_equals_its_reference(
    markers: list[str], pieces: list[str], after: str, cuts: list[int]
) -> None:
    """Arguments read by ``ArgsStep`` up to a stop marker give the same deltas, stop and
    state whether the fast reads run or not (then ``ArgsStreamer.push_until`` reads), however
    the text is chunked."""
    text = "{" + "".join(pieces) + after
    results = []
    for on in (True, False):
        ends: list[tuple[str | None, str]] = []

        def ended(
            buf: str,
            out: list[Event],
            resume: int,
            stop: int,
            marker: str | None,
            final: bool,
            ends: list[tuple[str | None, str]] = ends,
        ) -> tuple[int, bool]:
            ends.append((marker, buf[resume:]))
            return len(buf), False

        step = ArgsStep(StopMarkers(markers), ended)
        streamer = step.open(0)
        events: list[Event] = []
        tail = ""
        with fast.reference() if not on else Nothing():
            for chunk in testing.chunk_at(text, cuts):
                buf = tail + chunk
                resume, hold = step.step(buf, 0, events, False)
                if ends:
                    break
                assert hold
                tail = buf[resume:]
            else:
                step.step(tail, 0, events, True)
        deltas = "".join(e.delta for e in events if isinstance(e, ToolCallArgs))
        assert deltas == streamer.text()
        results.append((streamer.text(), streamer.done, streamer.error, ends[:1]))
    assert results[0] == results[1]


class Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


@pure_only
def test_encoded_args_read_nested_text_and_members_without_the_scan() -> None:
    """Inside an inner string, nested string text; where a key must come, whole members:
    decoded and released with no scan (the inner scan stays where it was)."""
    from streamcall.text.args import MORE, EncodedArgs

    encoded = EncodedArgs()
    assert encoded.push('{\\"s\\": \\"ab', 0, False) == ('{"s": "ab', 12, MORE)
    scan = NoFeed()
    scan.stack, scan.expect, scan.in_string = ["}"], encoded.inner.scan.expect, True
    encoded.inner.scan = scan
    assert encoded.push('c \\\\\\" d', 0, False) == ('c \\" d', 8, MORE)
    scan.in_string, scan.expect = False, 2  # as after the string's close and a ','
    assert encoded.push('\\"k\\": 1, \\"t', 0, False) == ('"k": 1, ', 10, MORE)
    with fast.reference(), pytest.raises(AssertionError, match="reference path ran"):
        encoded.push('\\"k\\": 1, ', 0, False)
