"""Thinking Machines Inkling (``inkling``): the marker engine, and the message framing
dropped from the text when no tool parser reads it.

Grammar of the text side (what the engine hands on; the thinking blocks are its own)::

    text  := ( plain | '<|message_model|>' HEADER? | KIND | END | tool )*
    KIND  := <|content_text|> | <|content_invoke_tool_text|> | <|content_tool_error|>
    END   := <|end_message|> | <|content_model_end_sampling|>
    tool  := '<|content_invoke_tool_json|>' body END?

With a tool stage (``feeds_tools``) the text is handed on whole: the ``inkling`` tool
parser reads the framing and drops it. With none, this parser drops it as vLLM's
reasoning pass does (its engine with tool parsing skipped): ``<|message_model|>``, the
visible kind markers and an END outside a tool block are removed, as is a HEADER (the
text after ``<|message_model|>`` up to a kind marker: the function's name); a tool block
stays in the text, markers and all, as vLLM hands it on. A header followed by anything
but a kind marker (or by the stream's end) is text, as the tool parser has it.

Modes: ``TEXT`` (markers found with ``MarkerFinder``), ``HEAD`` (a header, held until what
follows it decides, at most ``MAX_HEADER`` characters) and ``TOOL`` (a tool block, as
written, up to its END). What it holds back: a partial marker and an undecided header;
a reasoning block (the engine's ``Reasoning``) or the end of the stream decides them.
"""

from __future__ import annotations

import re

from streamcall.events import Event, Text
from streamcall.framing.filters import end_filtered, filtered_steps
from streamcall.framing.inkling import ENDS, INVOKE_TOOL_JSON, KINDS, MARKERS, MESSAGE_MODEL
from streamcall.reasoning._engine import MarkerReasoningParser, ReasoningSpec
from streamcall.text import MarkerFinder, PartialMarkers

MAX_HEADER = 256

_HEADER = re.compile(r"[^\s<]*")
TEXT, HEAD, TOOL = 0, 1, 2


class InklingFrames:
    """Drops Inkling's message framing from the ``Text`` of an event stream (see the
    module header); ``apply`` takes one feed's events (``final``: the last)."""

    __slots__ = ("_held", "_mode")

    _finder = MarkerFinder(MARKERS)
    _partial = PartialMarkers(MARKERS)

    def __init__(self) -> None:
        self._held = ""
        self._mode = HEAD  # the prompt ends with <|message_model|>

    def apply(self, events: list[Event], final: bool) -> list[Event]:
        out: list[Event] = []
        for ev in events:
            if isinstance(ev, Text):
                self._read(ev.text, out)
            else:  # a thinking block: its kind marker came, so a header before it is one
                if self._mode == HEAD:
                    self._held, self._mode = "", TEXT
                self._release(out)
                out.append(ev)
        if final:
            self._release(out)
        return out

    def _release(self, out: list[Event]) -> None:
        """What is held is text: a header nothing decided, or a marker cut short."""
        if self._held:
            out.append(Text(self._held))
            self._held = ""
        if self._mode == HEAD:
            self._mode = TEXT

    def _read(self, text: str, out: list[Event]) -> None:
        buf = self._held + text if self._held else text
        self._held = ""
        n = len(buf)
        pos = 0
        while pos < n:
            if self._mode == HEAD:
                m = _HEADER.match(buf, pos, min(n, pos + MAX_HEADER + 1))
                end = m.end() if m is not None else pos
                if end - pos > MAX_HEADER:
                    self._mode = TEXT
                    continue
                if end == n:
                    self._held = buf[pos:]
                    return
                if buf[end] == "<":
                    marker = next((k for k in MARKERS if buf.startswith(k, end)), None)
                    if marker is None and self._partial.holds(buf, end):
                        self._held = buf[pos:]
                        return
                    if marker is not None and marker not in KINDS and end > pos:
                        out.append(Text(buf[pos:end]))  # a header with no kind: text
                    if marker is not None:
                        pos = end
                self._mode = TEXT  # (a header before a kind marker is dropped)
                continue
            end, resume, marker = self._finder.find(buf, pos)
            if end > pos:
                out.append(Text(buf[pos:end]))
            if marker is None:
                self._held = buf[end:]
                return
            pos = resume
            if self._mode == TOOL:
                if marker in ENDS:
                    out.append(Text(marker))
                    self._mode = TEXT
                    continue
                self._mode = TEXT
            if marker == MESSAGE_MODEL:
                self._mode = HEAD
            elif marker == INVOKE_TOOL_JSON:
                out.append(Text(marker))
                self._mode = TOOL
            # a visible kind, or an END outside a tool block: dropped


class InklingReasoningParser(MarkerReasoningParser):
    def __init__(self, spec: ReasoningSpec, *, prompt_opened: bool | None = None) -> None:
        super().__init__(spec, prompt_opened=prompt_opened)
        self._frames = InklingFrames()
        self._steps = filtered_steps(self._steps, self._frames.apply, self._frames_on)

    @property
    def FRAMES(self) -> tuple[str, ...]:
        """The markup this parser drops (for the contract checks)."""
        return MARKERS

    def _frames_on(self) -> bool:
        """The framing is dropped here only when no tool parser reads the text."""
        return not self.feeds_tools

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        end_filtered(super()._end_of_stream, rest, out, self._frames.apply, self._frames_on)
