"""The chunking-invariance harness: the contract's invariants, checkable for any parser.

Every format in streamcall is tested with this, and it is public so that people who wire
streamcall into a server can test their own chunkings the same way. It needs only the
standard library.

``coalesce(events)`` checks the per-stream invariants (README.md, "What the contract
guarantees") and folds the events into a canonical list: adjacent ``Text`` joined, adjacent
``Reasoning`` joined, each call with its deltas joined. ``check_chunkings(make_parser, text,
...)`` feeds the same text whole, one character at a time, in 7-character pieces and in any
further chunkings given, and asserts that every run coalesces to the same result.

``check_contract(make_parser, text, ...)`` is ``check_chunkings`` plus "nothing lost":
every ``Text`` and ``Reasoning`` event of every run is the model's own text, found in the
input in order (``released_in_order``); the text before the first call is the start of the
input, as written; and an output with no call in it (and none of the format's ``markup``
outside calls) comes back whole.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from streamcall.events import Event, Reasoning, Text, ToolCallArgs, ToolCallEnd, ToolCallStart

__all__ = [
    "Call",
    "InvariantError",
    "Item",
    "check_chunkings",
    "check_contract",
    "chunk_at",
    "chunk_every",
    "coalesce",
    "drop_framing_blanks",
    "function_tools",
    "markup_of",
    "released_in_order",
    "run",
]


class InvariantError(AssertionError):
    """A parser broke one of the contract's invariants."""


class _Feeds(Protocol):
    def feed(self, text: str) -> list[Event]: ...
    def finish(self) -> list[Event]: ...


@dataclass(frozen=True, slots=True)
class Call:
    index: int
    id: str
    name: str
    arguments: str
    incomplete: bool = False


Item = tuple[str, str] | tuple[str, Call]


def function_tools(names: Iterable[str], properties: dict[str, Any]) -> list[dict[str, Any]]:
    """OpenAI-style ``tools``: one function per name, each taking an object with these
    ``properties`` (JSON Schema), for parsers that type arguments by the request's tools."""
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "parameters": {"type": "object", "properties": dict(properties)},
            },
        }
        for name in names
    ]


def coalesce(events: Iterable[Event]) -> list[Item]:
    """Check the invariants over one whole stream and fold it into canonical items."""
    items: list[Item] = []
    open_calls: dict[int, tuple[ToolCallStart, list[str]]] = {}
    seen_ids: set[str] = set()
    seen_index: set[int] = set()
    order: list[int] = []
    finished: dict[int, Call] = {}
    for ev in events:
        if isinstance(ev, Text | Reasoning):
            kind = "text" if isinstance(ev, Text) else "reasoning"
            if not ev.text:
                continue
            if items and items[-1][0] == kind:
                prev = items[-1][1]
                assert isinstance(prev, str)
                items[-1] = (kind, prev + ev.text)
            else:
                items.append((kind, ev.text))
        elif isinstance(ev, ToolCallStart):
            if not ev.id:
                raise InvariantError(f"call {ev.index} has an empty id")
            if ev.id in seen_ids:
                raise InvariantError(f"call id {ev.id!r} is used twice")
            if ev.index in seen_index:
                raise InvariantError(f"call index {ev.index} starts twice")
            seen_ids.add(ev.id)
            seen_index.add(ev.index)
            open_calls[ev.index] = (ev, [])
            order.append(ev.index)
            items.append(("call", Call(ev.index, ev.id, ev.name, "")))
        elif isinstance(ev, ToolCallArgs):
            if ev.index not in open_calls:
                raise InvariantError(f"arguments for call {ev.index}, which is not open")
            open_calls[ev.index][1].append(ev.delta)
        elif isinstance(ev, ToolCallEnd):
            if ev.index not in open_calls:
                raise InvariantError(f"end of call {ev.index}, which is not open")
            start, deltas = open_calls.pop(ev.index)
            joined = "".join(deltas)
            if joined != ev.arguments:
                raise InvariantError(
                    f"call {ev.index}: deltas join to {joined!r}, end says {ev.arguments!r}"
                )
            try:
                value = json.loads(ev.arguments)
            except ValueError as exc:
                raise InvariantError(
                    f"call {ev.index}: arguments are not JSON ({exc}): {ev.arguments!r}"
                ) from None
            if not isinstance(value, dict):
                raise InvariantError(f"call {ev.index}: arguments are not an object")
            finished[ev.index] = Call(ev.index, start.id, start.name, ev.arguments, ev.incomplete)
    if open_calls:
        raise InvariantError(f"calls never ended: {sorted(open_calls)}")
    return [
        ("call", finished[item[1].index])
        if item[0] == "call" and isinstance(item[1], Call)
        else item
        for item in items
    ]


def drop_framing_blanks(items: Sequence[Item]) -> list[Item]:
    """Coalesced items as the combined output parser gives them: a tool parser's (or a
    reasoning parser's) items with the template's framing blanks dropped
    (``streamcall.framing.blanks``: blank text at an edge before reasoning, a call or the
    end; the blanks that open the text after reasoning), for comparing the two."""
    from streamcall.framing.blanks import BlankFraming

    events: list[Event] = []
    for kind, value in items:
        if kind == "text":
            events.append(Text(value))  # type: ignore[arg-type]
        elif kind == "reasoning":
            events.append(Reasoning(value))  # type: ignore[arg-type]
        else:
            call: Call = value  # type: ignore[assignment]
            events.append(ToolCallStart(call.index, call.id, call.name))
            events.append(ToolCallArgs(call.index, call.arguments))
            events.append(ToolCallEnd(call.index, call.arguments, call.incomplete))
    return coalesce(BlankFraming().apply(events, True))


def run(parser: _Feeds, pieces: Iterable[str]) -> list[Event]:
    """Feed the pieces, then finish; return every event."""
    events: list[Event] = []
    for piece in pieces:
        events.extend(parser.feed(piece))
    events.extend(parser.finish())
    return events


def chunk_every(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def chunk_at(text: str, cuts: Iterable[int]) -> list[str]:
    """Cut ``text`` at the given offsets (any order, duplicates and out-of-range ignored)."""
    points = sorted({c for c in cuts if 0 < c < len(text)})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def check_chunkings(
    make_parser: Callable[[], _Feeds],
    text: str,
    chunkings: Sequence[Sequence[str]] = (),
) -> list[Item]:
    """Assert that whole, 1-char, 7-char and the given chunkings all coalesce the same."""
    expected = coalesce(run(make_parser(), [text]))
    runs: list[tuple[str, Sequence[str]]] = [
        ("1-char", chunk_every(text, 1)),
        ("7-char", chunk_every(text, 7)),
    ]
    runs.extend((f"chunking {i}", c) for i, c in enumerate(chunkings))
    for label, pieces in runs:
        if "".join(pieces) != text:
            raise ValueError(f"{label} does not rejoin to the text")
        got = coalesce(run(make_parser(), pieces))
        if got != expected:
            raise InvariantError(
                f"{label} differs from the one-shot result:\n  whole: {expected!r}\n"
                f"  {label}: {got!r}\n  pieces: {list(pieces)!r}"
            )
    return expected


def released_in_order(source: str, events: Iterable[Event]) -> None:
    """Every ``Text`` and ``Reasoning`` event is a piece of ``source`` as written, each found
    after the one before it: released text is never decoded, re-escaped or reordered."""
    at = 0
    for ev in events:
        if isinstance(ev, Text | Reasoning) and ev.text:
            found = source.find(ev.text, at)
            if found < 0:
                kind = type(ev).__name__
                raise InvariantError(
                    f"{kind} not found in the input at or after offset {at}: {ev.text!r}"
                    f" (input {source!r})"
                )
            at = found + len(ev.text)


def _nothing_lost(source: str, items: Sequence[Item], markup: Sequence[str]) -> None:
    first_call = next((i for i, item in enumerate(items) if item[0] == "call"), len(items))
    before = "".join(v for _, v in items[:first_call] if isinstance(v, str))
    if first_call < len(items):
        if not markup and not source.startswith(before):
            raise InvariantError(
                f"the text before the first call is not how the input starts: {before!r}"
                f" (input {source!r})"
            )
    elif not any(m in source for m in markup) and before != source:
        raise InvariantError(
            f"no call came out, and the text released is not the whole input: {before!r}"
            f" (input {source!r})"
        )


def markup_of(parser: object) -> tuple[str, ...]:
    """The markup a parser drops outside calls: a reasoning format's markers (a suffixed
    one without its ``>``), a format's ``FRAMES`` (Harmony's message tokens); none for a
    tool-call format, whose only markup is its calls'."""
    frames = getattr(parser, "FRAMES", None)
    if frames is not None:
        return tuple(frames)
    spec = getattr(parser, "spec", None)
    if spec is None:
        return ()
    markers = (*spec.start, *spec.end, *spec.text_drop, *spec.drop)
    if spec.suffixed:
        markers = tuple(m[:-1] if m.endswith(">") else m for m in markers)
    return markers


def check_contract(
    make_parser: Callable[[], _Feeds],
    text: str,
    chunkings: Sequence[Sequence[str]] = (),
    *,
    markup: Sequence[str] | None = None,
    source: str | None = None,
) -> list[Item]:
    """The whole contract for one text, in every chunking (``check_chunkings``'s runs).

    On top of ``check_chunkings``: in every run, each released ``Text`` and ``Reasoning``
    is the input's own text, in order (``released_in_order``); the text before the first
    call is how the input starts; with no call in the result, what is released, joined,
    is the input whole. ``markup`` (by default ``markup_of`` the parser) is the markup a
    format drops outside calls (reasoning markers, Harmony's message frames): an input
    holding any of it is exempt from the last two checks. ``source`` replaces the input
    for these checks where a format adds text of its own (MiniMax-M2's append-think
    ``<think>``). An input holding a format's ``DECODES`` markup (text it gives out
    decoded: llama.cpp's generic ``"response"``) is exempt from the verbatim checks.
    """
    origin = text if source is None else source
    if markup is None:
        markup = markup_of(make_parser())
    decodes = getattr(make_parser(), "DECODES", ())
    verbatim = not any(d in origin for d in decodes)
    runs: list[tuple[str, Sequence[str]]] = [
        ("whole", [text]),
        ("1-char", chunk_every(text, 1)),
        ("7-char", chunk_every(text, 7)),
    ]
    runs.extend((f"chunking {i}", c) for i, c in enumerate(chunkings))
    expected: list[Item] | None = None
    for label, pieces in runs:
        if "".join(pieces) != text:
            raise ValueError(f"{label} does not rejoin to the text")
        events = run(make_parser(), pieces)
        try:
            if verbatim:
                released_in_order(origin, events)
            got = coalesce(events)
        except InvariantError as exc:
            raise InvariantError(f"{label}: {exc}\n  pieces: {list(pieces)!r}") from None
        if expected is None:
            expected = got
            if verbatim:
                _nothing_lost(origin, got, markup)
        elif got != expected:
            raise InvariantError(
                f"{label} differs from the one-shot result:\n  whole: {expected!r}\n"
                f"  {label}: {got!r}\n  pieces: {list(pieces)!r}"
            )
    assert expected is not None
    return expected
