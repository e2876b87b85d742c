"""The feed loop that every text parser (tool calls, reasoning) runs on.

The rules, all of them:

1. **One undecided tail.** Between chunks a parser keeps only ``_tail``, text it has not
   decided yet (a partial marker, a token that may still grow). ``feed`` joins it to the
   new chunk; the tail is bounded by the longest such thing, so that costs O(chunk).
2. **State is the mode and the parser's attributes.** ``self._mode`` (a small int, an
   ``IntEnum`` in each parser) picks the step that reads next: ``self._steps[self._mode]``,
   a table the parser builds once, one bound method per mode (a parser whose markers
   change while it reads replaces an entry in place: the loop holds the table, not a
   copy). Scan state (a JSON scan, a string being decoded) lives in attributes, so a
   chunk resumes exactly where the last one stopped.
3. **A step reads and says where it stopped.** ``step(buf, pos, out, final) -> (pos,
   hold)`` reads ``buf`` from ``pos``, appends the events it decides to ``out``, may change
   the mode, and returns a plain tuple:

   - ``(pos, False)``: go on from ``pos``, in the mode now set. Such a step has consumed
     text or changed the mode, so the loop always moves on;
   - ``(pos, True)``: stop here; ``buf[pos:]`` is undecided and becomes the tail.

   The loop also stops when ``pos`` reaches the end of ``buf``. No other value means
   anything: a position is never encoded in its sign.
4. **A tail may wait unread.** A step that holds may say what would let its tail change,
   in ``_wait_len`` and ``_wait_for``: while the buffer stays within ``_wait_len``
   characters and no added chunk holds the character ``_wait_for``, ``feed`` joins the
   chunk to the tail and runs no step (a short member cut by the end of a chunk waits so
   for its closer: ``ShortMembers``, which sets them on its parser). The wait ends with
   the first step that runs; a step that holds again sets it again. Two attributes, not a
   method: the hold that sets them is itself the common chunk of such a parser.
5. **Text only.** ``feed`` takes ``str``; anything else (``bytes`` off a socket) is a
   ``TypeError`` that says so (``not_text``), raised where the first step fails on it,
   so that the check costs nothing per chunk.
6. **The end of the stream.** ``finish`` runs the steps once more with ``final=True``:
   nothing may wait for more text then, so a step decides what it can, and whatever is
   still held goes to ``_end_of_stream(rest, out)`` (by default: released as ``Text``).

The return is a plain tuple. Measured interleaved in one process (``python -m benchmarks
steps``), it costs what the old encoding of a hold as ``-(pos + 1)`` cost; a ``NamedTuple``
costs several times more, and a ``hold`` attribute set by the step saves a few nanoseconds
per step but splits one answer between the return value and the parser's state
(``docs/performance.md`` has the figures).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

from streamcall._mypyc import mypyc_attr
from streamcall.events import Event, Text

__all__ = ["FeedLoop", "Step", "StepFn", "not_text", "step_table"]

#: what a step returns: the position it stopped at, and whether to hold ``buf[pos:]``
Step: TypeAlias = tuple[int, bool]
#: a step: ``(buf, pos, out, final) -> (pos, hold)``
StepFn: TypeAlias = Callable[[str, int, list[Event], bool], Step]


def step_table(steps: Sequence[StepFn]) -> list[StepFn]:
    """A parser's step table as the list it is, for an engine that sets a step in place
    (the feed loop reads the same list, so the change counts from the next step)."""
    assert isinstance(steps, list), "a step table changed in place is a list"
    return steps


def not_text(value: object) -> TypeError:
    """The error for a chunk that is not ``str``: text parsers read decoded model text."""
    hint = (
        ": decode it first (an SSE stream, as bytes, goes to StreamParser)"
        if isinstance(value, (bytes, bytearray, memoryview))
        else ""
    )
    return TypeError(f"feed() takes model text as str, not {type(value).__name__}{hint}")


@mypyc_attr(allow_interpreted_subclasses=True)
class FeedLoop:
    """Base class: ``feed`` text in, events out; ``finish`` ends the stream."""

    #: the current mode: an index into ``_steps``
    _mode: int = 0
    #: one step per mode, built by the parser in its ``__init__`` (rule 2)
    _steps: Sequence[StepFn] = ()
    _wait_len = 0
    _wait_for = ""

    def __init__(self) -> None:
        self._tail = ""
        self._finished = False
        self._wait_len = 0  # the tail waits unread within this length (rule 4; 0: no wait)
        self._wait_for = ""  # ... while no added chunk holds this character ('': no wait)

    def feed(self, text: str) -> list[Event]:
        """Consume a chunk of model text; return the events it decides."""
        out: list[Event] = []
        tail = self._tail
        try:  # (free unless it raises: the type is checked only then)
            if tail:  # (a finished parser holds no tail)
                if not text:
                    return out
                buf = tail + text
                if self._wait_len:  # (rule 4)
                    if len(buf) <= self._wait_len and self._wait_for not in text:
                        self._tail = buf
                        return out
                    self._wait_len = 0
            elif text and not self._finished:
                buf = text
            else:
                return out
            # (the first step outside the loop: most chunks take one step, and hold)
            pos, hold = self._steps[self._mode](buf, 0, out, False)
            if not hold:
                n = len(buf)
                while pos < n:
                    pos, hold = self._steps[self._mode](buf, pos, out, False)
                    if hold:
                        break
        except TypeError:
            if not isinstance(text, str):
                raise not_text(text) from None
            raise
        # (``buf[0:]`` is ``buf`` itself, ``buf[len(buf):]`` is ''; a step that did not hold
        # read to the end)
        self._tail = buf[pos:] if hold else ""
        return out

    def finish(self) -> list[Event]:
        """End of stream: release held-back text and close what is still open."""
        out: list[Event] = []
        if self._finished:
            return out
        self._finished = True
        buf, self._tail = self._tail, ""
        steps = self._steps
        pos = 0
        n = len(buf)
        while pos < n:
            pos, hold = steps[self._mode](buf, pos, out, True)
            if hold:
                break
        self._end_of_stream(buf[pos:], out)
        return out

    def _waits(self, buf: str, text: str) -> bool:
        """Rule 4 for a ``feed`` written out in an engine, where a wait is rare (``feed``
        keeps it inline: the XML engine's held parameters wait on most chunks). Called
        while a wait is set: True if ``buf`` (the tail and ``text``) waits unread, kept as
        the tail; else the wait ends."""
        if len(buf) <= self._wait_len and self._wait_for not in text:
            self._tail = buf
            return True
        self._wait_len = 0
        return False

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """The steps from ``pos`` until one holds or ``buf`` ends; returns where they
        stopped. For a parser that hands its text to another one (``feed`` and ``finish``
        run the same loop, written out: a call fewer per chunk)."""
        steps = self._steps
        n = len(buf)
        while pos < n:
            pos, hold = steps[self._mode](buf, pos, out, final)
            if hold:
                break
        return pos

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        """Called by ``finish`` with whatever the steps left; the default releases it."""
        if rest:
            out.append(Text(rest))
