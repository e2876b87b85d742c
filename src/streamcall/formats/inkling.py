"""Thinking Machines Inkling: typed message blocks; a tool call is a block of JSON.

Grammar (vLLM ``inkling``; every marker a special token)::

    output := block*                           # the prompt ends with <|message_model|>
    block  := '<|message_model|>'? HEADER? KIND body END?
    KIND   := <|content_text|> | <|content_invoke_tool_text|> | <|content_tool_error|>
            | <|content_thinking|> | <|content_invoke_tool_json|>
    END    := <|end_message|> | <|content_model_end_sampling|>
    tool body := {"name": NAME, "args": {...}}   # "arguments" or "parameters" read too

``HEADER``, text right after ``<|message_model|>`` (or at the start of the output) and
right before a KIND marker, is metadata (the function's name before a tool block), never
content. Text, invoke-text and tool-error bodies are visible text; a thinking body is
``Reasoning`` (when a reasoning stage runs first, the ``inkling`` reasoning format takes
those blocks and this parser never sees them); a tool body is read by the JSON-call engine
(``engines.json_calls``), embedded, so its ``args`` stream verbatim. Markers are structural
wherever they occur in text, and dropped (a KIND marker inside a text block switches the
block's kind), as vLLM's ``inkling`` engine drops them: none reaches the content,
whether or not the reasoning stage ran first (alone, the ``inkling`` reasoning format
drops them itself: ``reasoning/inkling.py``). The blanks after a message of calls (after its END) are a gap: markup
before a marker and at the end of the stream, text with the text that follows. A call is
complete when its object closes (END may be the stop token that
servers strip); a cut one is reported incomplete at the end of the stream.

Modes (``Mode``)::

    mode     reads                                           next      emits
    HEAD     a header: no blank, no '<', then a KIND marker  by KIND   (the header dropped)
             anything else                                   TEXT      (the header is text)
    TEXT     text up to a marker                             by marker Text
    THOUGHT  reasoning up to a marker                        by marker Reasoning
    CALL     the tool body (the JSON-call engine)            TEXT      its events

By marker: ``<|message_model|>`` -> HEAD; a visible KIND or END -> TEXT;
``<|content_thinking|>`` -> THOUGHT; ``<|content_invoke_tool_json|>`` -> CALL.

What it holds back: a partial marker, and a header until what follows it decides (at most
``MAX_HEADER`` characters; a blank or any other character makes it text at once). The tool
body's JSON is the engine's (a growing token, a key not yet closed).
"""

from __future__ import annotations

import json
import re
from enum import IntEnum
from typing import Any

from streamcall.events import Event, Reasoning, Text
from streamcall.formats.engines.base import ToolParser, Tools
from streamcall.formats.engines.json_calls import JsonCallsParser
from streamcall.formats.engines.json_embedded import end_embedded_block, read_embedded_block
from streamcall.framing.inkling import (
    CONTENT_THINKING,
    END_MESSAGE,
    ENDS,
    INVOKE_TOOL_JSON,
    KINDS,
    MARKERS,
    MESSAGE_MODEL,
)
from streamcall.text import MarkerFinder, PartialMarkers, Step

_HEADER = re.compile(r"[^\s<]*")


class Mode(IntEnum):
    """Where the parser is (the table in the module header)."""

    HEAD = 0
    TEXT = 1
    THOUGHT = 2
    CALL = 3


HEAD, TEXT, THOUGHT, CALL = map(int, Mode)


class _ToolBody(JsonCallsParser):
    """One tool block's body: a call object, ended by what is not JSON (its END)."""

    ARGS_KEYS = ("args", "arguments", "parameters")
    ARRAY = False
    SEPARATORS = ""


class InklingParser(ToolParser):
    names = ("inkling",)
    family = "Thinking Machines Inkling"
    vllm_differences = (
        "Streams the args object verbatim as it is written. Reasoning blocks met by the "
        "tool parser alone are Reasoning. A header followed by anything but a kind marker "
        "is text. Like vLLM, every marker is dropped from the content, with or without "
        "the reasoning stage."
    )
    FRAMES = MARKERS
    MAX_HEADER = 256

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__(tools, id_prefix=id_prefix)
        self._finder = MarkerFinder(MARKERS)
        self._partial = PartialMarkers(MARKERS)
        self._body: _ToolBody | None = None
        self._call_ended = False  # a tool body held calls, and nothing has followed them yet
        self._mode = HEAD  # the prompt ended with <|message_model|>
        self._steps = (self._read_head, self._read_text, self._read_thought, self._read_call)

    # -- the steps ---------------------------------------------------------------------------

    def _read_head(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        n = len(buf)
        end = _HEADER.match(buf, pos, min(n, pos + self.MAX_HEADER + 1)).end()  # type: ignore[union-attr]
        if end - pos > self.MAX_HEADER:
            self._mode = TEXT
            return pos, False
        if end == n:
            if final:
                self._mode = TEXT
                return pos, False
            return pos, True  # the header may go on
        if buf[end] == "<":
            for marker in MARKERS:
                if buf.startswith(marker, end):
                    if marker in KINDS:  # a header: metadata, dropped
                        self._enter(marker)
                    else:  # a header with no kind after it is text
                        if end > pos:
                            out.append(Text(buf[pos:end]))
                        self._enter(marker)
                    return end + len(marker), False
            if not final and self._partial.holds(buf, end):
                return pos, True
        self._mode = TEXT
        return pos, False

    def _read_text(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        released = len(out)
        pos, marker = self._text_until_marker(buf, pos, out, self._finder, final)
        if marker is None:
            if len(out) > released:
                self._call_ended = False
            return pos, True
        after_call = self._call_ended and len(out) == released
        self._call_ended = False
        self._enter(marker)
        if after_call and marker in ENDS:
            self._block_ended()  # a message of calls ended: the blanks after it are a gap
        return pos, False

    def _read_thought(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        end, resume, marker = self._finder.take(buf, pos, final)
        if end > pos:
            out.append(Reasoning(buf[pos:end]))
        if marker is None:
            return end, True
        self._enter(marker)
        return resume, False

    def _read_call(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        body = self._body
        assert body is not None
        pos, hold = read_embedded_block(body, self, buf, pos, out, final)
        if not body._block_open:
            self._body = None
            self._call_ended = body._block_calls > 0
            self._mode = TEXT
        return pos, hold

    def _enter(self, marker: str) -> None:
        """What a marker starts (the module header's "by marker"). Markers are markup,
        and so is the gap after a message of calls before one."""
        self._lead = ""
        if marker == MESSAGE_MODEL:
            self._mode = HEAD
        elif marker == CONTENT_THINKING:
            self._mode = THOUGHT
        elif marker == INVOKE_TOOL_JSON:
            body = _ToolBody(self.tools, id_prefix=self.id_prefix)
            body._open_block([], bare=False)
            self._body = body
            self._mode = CALL
        else:  # a visible kind, or the block's end
            self._mode = TEXT

    # -- the end -----------------------------------------------------------------------------

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        mode = self._mode
        if mode == CALL:
            assert self._body is not None
            end_embedded_block(self._body, self, rest, out)
        elif rest:
            out.append(Reasoning(rest) if mode == THOUGHT else Text(rest))

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(
            f"{MESSAGE_MODEL}{n}{INVOKE_TOOL_JSON}"
            f"{json.dumps({'name': n, 'args': a}, ensure_ascii=False)}{END_MESSAGE}"
            for n, a in calls
        )


FORMATS = (InklingParser,)
