"""Event filters run inside a parser's own feed loop.

Some framing is dropped from the events a parser emits rather than read by its steps
(Cohere's citation tags, Inkling's message framing when no tool parser reads it). Such a
filter takes a run of events and gives them back with the framing removed, holding what
it cannot decide yet (``apply(events, final)``). ``filtered_steps`` puts one in a parser's
mode table: each step's new events pass through it as the step emits them, so the parser
keeps ``FeedLoop.feed`` and ``finish`` (no override). ``end_filtered`` (the parser's
``_end_of_stream``, in one line) runs it on what the base class's end of stream gives,
where ``final`` releases what it still holds. The filter sees the same events in the same
order as a wrapper around ``feed`` would; only the runs it is handed are shorter, and a
filter's result does not depend on how its input is split.

A filter that joins a held tail to the next piece (Cohere's citation tags) must not join
across markup the parser dropped: two events are not one stretch of the input when a
marker lay between them. ``cut`` is told so: it runs after every step that did not stop
for more input (a step that consumed a marker, or stopped at one), and releases what the
filter holds. A step that stops for more input has emitted up to the end of what it has,
so only there can the next event continue the last one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from streamcall.events import Event
from streamcall.text import Step, StepFn

__all__ = ["Apply", "end_filtered", "filtered_steps"]

#: a filter: a run of events, and whether it is the last, to the events kept
Apply = Callable[[list[Event], bool], list[Event]]


def _always() -> bool:
    return True


def filtered_steps(
    steps: Sequence[StepFn],
    apply: Apply,
    active: Callable[[], bool] = _always,
    cut: Callable[[list[Event]], None] | None = None,
) -> list[StepFn]:
    """``steps`` with each step's new events passed through ``apply`` while ``active()``
    (a parser whose filter is off once another stage reads its text says so here), and
    ``cut`` run after a step that did not stop for more input (see the module header)."""

    def wrap(step: StepFn) -> StepFn:
        def run(buf: str, pos: int, out: list[Event], final: bool) -> Step:
            n = len(out)
            result = step(buf, pos, out, final)
            if active():
                if len(out) > n:
                    out[n:] = apply(out[n:], False)
                if cut is not None and not result[1]:
                    cut(out)
            return result

        return run

    return [wrap(step) for step in steps]


def end_filtered(
    end_of_stream: Callable[[str, list[Event]], None],
    rest: str,
    out: list[Event],
    apply: Apply,
    active: Callable[[], bool] = _always,
) -> None:
    """The end of the stream: the parser's own ``end_of_stream(rest, ...)`` (its base
    class's), its events onto ``out`` through ``apply`` with ``final`` set while
    ``active()``."""
    ended: list[Event] = []
    end_of_stream(rest, ended)
    out.extend(apply(ended, True) if active() else ended)
