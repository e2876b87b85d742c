"""What every tool-call parser shares: one call lifecycle, the markup kept for degrading,
the gap between blocks, and schemas.

The feed loop itself (the held-back tail, the mode table of steps, ``_end_of_stream``) is
``streamcall.text.FeedLoop``, shared with the reasoning parsers. Subclasses keep their mode
and scan state in attributes, so a chunk resumes exactly where the last one stopped, and
they write events into the list they are given.

A call's life, the same in every engine:

- ``_start_call(out, name, call_id=None) -> index``: ``ToolCallStart`` with an id that is
  non-empty and unique within the stream (the model's own, or ``id_prefix`` + index; a
  repeat becomes ``id~2``, ``id~3`` ..., amortised O(1) per repeat: ``UniqueIds``);
- ``_emit_args(out, index, delta)``: one delta of its arguments. Deltas of one call that
  follow each other in one chunk's events are joined, so that a chunk gives one
  ``ToolCallArgs`` per call; a step joins its own pieces before it emits them (joining is
  a copy of what came before, so an engine emits a bounded number of deltas per call per
  step);
- ``_end_call(out, index, arguments, incomplete)``: ``ToolCallEnd``. Given the streamer
  that read the arguments (``ArgsStreamer``: ``close``, ``text``, ``done``) instead of
  their text, an incomplete call's arguments are closed first (the closing is their last
  delta), so that they always load.

Markup consumed while a block may still turn out not to be one is kept in ``_raw``;
``_release_raw`` makes it text, as written, when the block fails. After a block of calls,
the blanks that follow are a gap (``_block_ended``, ``_skip_gap``): text if other text
follows, dropped at the end; before another block's opener they become that block's lead
(``_lead``), markup once the block starts a call (``_start_call``) and text before its
markup if it fails (``_release_raw``), the same rule as blanks between two calls of one
block.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, ClassVar, Protocol

from streamcall._mypyc import mypyc_attr
from streamcall.events import Event, Text, ToolCallArgs, ToolCallEnd, ToolCallStart
from streamcall.text import FeedLoop, MarkerFinder, cut_marker

__all__ = ["CallArgs", "ToolParser", "Tools", "UniqueIds", "call_list_json", "schema_types"]

Tools = list[dict[str, Any]]
_WS = re.compile(r"[ \t\r\n]*")


class CallArgs(Protocol):
    """What ``_end_call`` needs of an argument streamer (``streamcall.text.ArgsStreamer``)."""

    @property
    def done(self) -> bool: ...

    def close(self, tail: str = "") -> str: ...

    def text(self) -> str: ...


@mypyc_attr(allow_interpreted_subclasses=True)
class ToolParser(FeedLoop):
    """Base class: sans-IO, ``feed`` text in, events out."""

    #: registered format names handled by this class (first is the canonical one)
    names: ClassVar[tuple[str, ...]] = ()
    #: a line for ``streamcall formats``: the model family
    family: ClassVar[str] = ""
    #: where this parser differs from vLLM's parser of the same name on purpose, and why
    vllm_differences: ClassVar[str] = ""
    #: tokens of markup that frames text outside calls too, and is dropped there (Harmony's
    #: message frames); none for a format whose only markup is its calls'
    FRAMES: ClassVar[tuple[str, ...]] = ()

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__()
        self.tools = tools or []
        self.id_prefix = id_prefix
        self._calls = 0  # calls started in this stream: the next call's index
        self._ids = UniqueIds()  # the ids given out in this stream
        self._raw: list[str] = []  # markup consumed that is text if its block fails
        self._gap: list[str] | None = None
        self._lead = ""  # the gap before a block that may still fail: its text if it does

    def start_after(self, generation_prompt: str) -> None:
        """Take the start state the generation prompt (the rendered prompt's tail) leaves:
        call before the first ``feed``. Only a format whose output can start inside its
        own framing reads it (Harmony: after ``<|start|>assistant``, inside a header);
        for the others the output starts before any markup, whatever the prompt."""

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        """Model text for these calls, written the way the model writes them.

        Used by the round-trip property tests and by the benchmarks, so that every format
        is exercised through its own wire syntax.
        """
        raise NotImplementedError(f"{cls.__name__} has no renderer")

    # -- a call's life -------------------------------------------------------------------

    def _start_call(self, out: list[Event], name: str, call_id: str | None = None) -> int:
        """Start a call: its ``ToolCallStart``, with a unique id. Returns its index."""
        index = self._calls
        self._calls = index + 1
        self._lead = ""  # the blanks before this call's block were a gap between calls
        out.append(ToolCallStart(index, self._ids(call_id or f"{self.id_prefix}{index}"), name))
        return index

    @staticmethod
    def _emit_args(out: list[Event], index: int, delta: str) -> None:
        """A delta of call ``index``'s arguments (joined to the one before it if that is
        the same call's: one ``ToolCallArgs`` per call per chunk)."""
        if delta:
            if out:
                last = out[-1]
                if last.__class__ is ToolCallArgs and last.index == index:
                    out[-1] = ToolCallArgs(index, last.delta + delta)
                    return
            out.append(ToolCallArgs(index, delta))

    def _end_call(
        self,
        out: list[Event],
        index: int,
        arguments: str | CallArgs | None,
        incomplete: bool = False,
        *,
        tail: str = "",
        closed: bool = False,
    ) -> None:
        """End call ``index``: its ``ToolCallEnd``.

        ``arguments`` is the arguments' whole text, or the streamer that read them, or
        None for a call that had none (``{}`` is emitted as its arguments). With a
        streamer, an incomplete call's arguments are closed first (``close(tail)``, where
        ``tail`` is the token the scan held back), unless they are whole or ``closed``
        says that was done already.
        """
        if arguments is None:
            self._emit_args(out, index, "{}")
            arguments = "{}"
        elif not isinstance(arguments, str):
            if incomplete and not closed and not arguments.done:
                self._emit_args(out, index, arguments.close(tail))
            arguments = arguments.text()
        out.append(ToolCallEnd(index, arguments, incomplete))

    def _whole_call(self, out: list[Event], name: str, arguments: str) -> None:
        """A call whose arguments are known at once."""
        index = self._start_call(out, name)
        self._emit_args(out, index, arguments)
        self._end_call(out, index, arguments)

    # -- markup and the gap between blocks -----------------------------------------------

    def _release_raw(self, out: list[Event]) -> None:
        """The markup kept since the last decision is text after all: released as written,
        after the gap that led to it (``_lead``)."""
        text = self._lead + "".join(self._raw)
        self._raw.clear()
        self._lead = ""
        if text:
            out.append(Text(text))

    def _block_ended(self) -> None:
        """A block of calls closed: whitespace that follows is held as a possible gap."""
        self._gap = []

    def _skip_gap(
        self, buf: str, pos: int, out: list[Event], starts: Sequence[str], final: bool
    ) -> int:
        """Whitespace between two blocks of calls (or after the last) is markup, not text.

        Called in text mode while a gap is open: the whitespace is the lead of another
        block that follows (``_lead``: markup if it holds a call, text with its markup if
        it fails), released as text if other text follows, and dropped at the end of the
        stream. Returns the position of the first character after the whitespace.
        """
        gap = self._gap
        assert gap is not None
        end = _WS.match(buf, pos).end()  # type: ignore[union-attr]
        if end > pos:
            gap.append(buf[pos:end])
        if end == len(buf):
            return end
        if buf.startswith(tuple(starts), end):
            # another block: the gap is markup if it holds a call, else text with it
            self._lead = "".join(gap)
            self._gap = None
        elif final or not any(cut_marker(m, buf, end) for m in starts):
            if gap:
                out.append(Text("".join(gap)))
            self._gap = None
        return end

    def _text_until_marker(
        self, buf: str, pos: int, out: list[Event], finder: MarkerFinder, final: bool
    ) -> tuple[int, str | None]:
        """Text mode: release the text before the next of ``finder``'s markers.

        Returns ``(position, marker)``: with a marker found, the position is just past it;
        without one, everything safe has been released and the position is where a
        partial marker (to be held back) starts. An open gap after a block of calls is
        settled first (``_skip_gap``).
        """
        if self._gap is not None:
            pos = self._skip_gap(buf, pos, out, finder.markers, final)
            if pos == len(buf):
                return pos, None
        end, resume, marker = finder.take(buf, pos, final)
        if end > pos:
            out.append(Text(buf[pos:end]))
        return resume, marker

    # -- schemas -------------------------------------------------------------------------

    def _param_types(self, function: str) -> dict[str, Any]:
        """The JSON-schema ``properties`` of a tool's parameters, or ``{}``."""
        return schema_types(self.tools, function)


def schema_types(tools: Tools, function: str) -> dict[str, Any]:
    for tool in tools:
        fn = tool.get("function", tool) if isinstance(tool, dict) else None
        if isinstance(fn, dict) and fn.get("name") == function:
            params = fn.get("parameters") or {}
            props = params.get("properties") if isinstance(params, dict) else None
            return props if isinstance(props, dict) else {}
    return {}


def call_list_json(calls: list[tuple[str, dict[str, Any]]]) -> str:
    """Calls as the JSON list ``[{"name": ..., "arguments": {...}}, ...]``: what the renderers
    of the list-writing formats put between their markers."""
    body = [{"name": n, "arguments": a} for n, a in calls]
    return json.dumps(body, ensure_ascii=False)


def dumps_compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class UniqueIds:
    """Call ids made unique within a stream: a repeat of ``id`` becomes ``id~2``, ``id~3``...

    The last suffix given to each id is remembered, so a model that writes the same id
    for every call (Kimi K2's ``functions.get_weather:0``) costs O(1) per call, not a scan
    of every suffix taken so far.
    """

    __slots__ = ("_last", "_taken")

    def __init__(self) -> None:
        self._taken: set[str] = set()
        self._last: dict[str, int] = {}  # id -> the last suffix a repeat of it got

    def __call__(self, call_id: str) -> str:
        candidate = call_id
        if candidate in self._taken:
            k = self._last.get(call_id, 1)
            while candidate in self._taken:  # amortised O(1): k only grows per id
                k += 1
                candidate = f"{call_id}~{k}"
            self._last[call_id] = k
        self._taken.add(candidate)
        return candidate
