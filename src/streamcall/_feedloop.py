"""The sans-IO feed loop that every text parser (tool calls, reasoning) shares.

A parser keeps one short undecided tail between chunks. ``feed`` joins it to the new text
(the tail is bounded by the longest partial token or marker, so this is O(chunk)) and calls
the subclass's ``_step``, which consumes as far as it can and returns where it stopped.
Everything before that point has been decided for good; everything after it is the new
tail. ``finish`` calls ``_step`` once more with ``final=True`` (nothing may be held back
then) and hands what is left to ``_end_of_stream``.
"""

from __future__ import annotations

from streamcall.events import Event, Text

__all__ = ["FeedLoop"]


class FeedLoop:
    """Base class: ``feed`` text in, events out; ``finish`` ends the stream."""

    def __init__(self) -> None:
        self._tail = ""
        self._finished = False

    def feed(self, text: str) -> list[Event]:
        """Consume a chunk of model text; return the events it decides."""
        out: list[Event] = []
        if self._finished or not text:
            return out
        buf = self._tail + text if self._tail else text
        pos = self._step(buf, 0, out, False)
        self._tail = buf[pos:] if pos < len(buf) else ""
        return out

    def finish(self) -> list[Event]:
        """End of stream: release held-back text and close what is still open."""
        out: list[Event] = []
        if self._finished:
            return out
        self._finished = True
        buf, self._tail = self._tail, ""
        pos = self._step(buf, 0, out, True)
        self._end_of_stream(buf[pos:], out)
        return out

    def _go_on(self, buf: str, pos: int, out: list[Event]) -> list[Event]:
        """End a subclass's ``feed`` shortcut that read ``buf`` up to ``pos``.

        ``pos`` is where its reader stopped, or ``-(p + 1)`` to hold ``buf[p:]``; what is
        left after a stop goes to the general loop, and the undecided rest is kept.
        """
        if pos < 0:
            pos = -pos - 1
        elif pos < len(buf):
            pos = self._step(buf, pos, out, False)
        self._tail = buf[pos:] if pos < len(buf) else ""
        return out

    def _step(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """Consume ``buf`` from ``pos`` as far as it is decided; return where it stopped."""
        raise NotImplementedError

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        """Called by ``finish`` with whatever ``_step`` left; the default releases it."""
        if rest:
            out.append(Text(rest))
