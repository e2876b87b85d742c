"""The chunking-invariance harness: the contract's invariants, checkable for any parser.

Every format in streamcall is tested with this, and it is public so that people who wire
streamcall into a server can test their own chunkings the same way. It needs only the
standard library.

``coalesce(events)`` checks the per-stream invariants of CONTRACT.md and folds the events
into a canonical list: adjacent ``Text`` joined, adjacent ``Reasoning`` joined, each call
with its deltas joined. ``check_chunkings(make_parser, text, ...)`` feeds the same text
whole, one character at a time, in 7-character pieces and in any further chunkings given,
and asserts that every run coalesces to the same result.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from streamcall.events import Event, Reasoning, Text, ToolCallArgs, ToolCallEnd, ToolCallStart

__all__ = [
    "Call",
    "InvariantError",
    "Item",
    "check_chunkings",
    "chunk_at",
    "chunk_every",
    "coalesce",
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
