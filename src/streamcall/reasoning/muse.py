"""Meta Muse Spark and Muse Glimmer, as reasoning formats (``muse``, ``musespark``,
``musespark1x``, ``muse_glimmer``).

Grammar: messages framed by ``<|start|>``, ``<|message|>``, ``<|eom|>`` and ``<|eot|>``,
read by ``streamcall.framing.muse``, which the tool parsers of the same names
(``formats/muse.py``) read them with too::

    stream  := (text | message)*
    message := ('<|start|>assistant')? (' to=' RECIPIENT)? '<|message|>' body
               ('<|eom|>' | '<|eot|>')?

What a message's body is comes from the format's channel table (``Channels``; Spark:
no recipient and ``self`` are reasoning, ``user`` and ``commentary`` text, ``developer``
dropped; Glimmer: ``self`` is reasoning, no recipient and ``user`` text; any other
recipient is a tool channel). Reasoning is ``Reasoning`` and text is ``Text``, their
headers and terminators dropped; a dropped message leaves nothing. A tool channel's
message is for the tool parser: its header, body and terminator are handed on verbatim
as ``Text``. Text outside messages is ``Text``.

When a tool parser reads this parser's text (``feeds_tools``, set by ``OutputParser``),
everything but the bodies of reasoning messages is handed on as written, frames included:
the tool parser reads the same framing, so it must see where each message ends (a tool
message cut short by the next header, text it holds back as a possible header before a
terminator), and it then reads the stream exactly as it does alone, less the reasoning.

Modes (``Mode``) and what each step reads::

    mode    reads                                          next     emits
    BODY    the body (or text outside messages), to a      BODY     Reasoning or Text
            terminator or a bare header                             (the frames of a
            ... to a '<|start|>'                           HEADER   message handed on)
    HEADER  a framed header, to its '<|message|>'          BODY     (a new body)
            not a header (too long, cut off)               BODY     the text it was, in the
                                                                    body it interrupted

What it holds back: a partial frame token, the end of a body that may still become a bare
header, and a framed header until it is decided (``framing.muse``). ``prompt_opened``:
the prompt ended with ``<|start|>assistant to=self<|message|>``, so the output starts in
reasoning.
"""

from __future__ import annotations

from enum import IntEnum

from streamcall.events import Event, Reasoning, Text
from streamcall.framing.muse import (
    CHANNELS,
    DROPPED,
    FRAMES,
    MESSAGE,
    REASONING,
    START,
    TEXT,
    TOOL,
    body_end,
    header_reader,
)
from streamcall.reasoning._engine import ReasoningParser
from streamcall.text import Step

__all__ = ["Mode", "MuseReasoningParser"]


class Mode(IntEnum):
    """Where the parser is (the table in the module header)."""

    BODY = 0
    HEADER = 1


BODY, HEADER = map(int, Mode)


class MuseReasoningParser(ReasoningParser):
    """Muse: reasoning channels are reasoning, text channels text, tool channels handed on."""

    #: the message frames, dropped as markup (``streamcall.testing.markup_of``)
    FRAMES = FRAMES

    def __init__(self, name: str, *, prompt_opened: bool | None = None) -> None:
        super().__init__(name)
        self._channels = CHANNELS[name]
        self._mode = BODY
        self._kind = REASONING if prompt_opened else TEXT
        self._headers = header_reader()
        self._steps = (self._read_body, self._read_header)

    @property
    def in_reasoning(self) -> bool:
        return self._mode == BODY and self._kind == REASONING

    def _read_body(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        end, resume, marker, recipient = body_end(buf, pos, final)
        if end > pos:
            self._body_text(buf[pos:end], out)
        if marker is None:
            return end, True
        if marker == START:
            self._mode = HEADER
            return end, False  # the header starts at its opener
        if marker == MESSAGE:
            self._begin_body(buf[end:resume], recipient, out)
        else:  # a terminator
            if self._kind == TOOL or self.feeds_tools:
                out.append(Text(marker))
            self._kind = TEXT
        return resume, False

    def _read_header(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        end, header = self._headers.read(buf, pos, final)
        if header is None:
            if end == pos:
                return pos, True
            self._body_text(buf[pos:end], out)  # not a header: the body goes on
        else:
            self._begin_body(buf[pos:end], header.recipient, out)
        self._mode = BODY
        return end, False

    def _begin_body(self, header: str, recipient: str, out: list[Event]) -> None:
        """A header, as written (``header``): a new message begins."""
        kind = self._channels.kind(recipient)
        if kind == TOOL or self.feeds_tools:
            out.append(Text(header))
        self._kind = kind

    def _body_text(self, text: str, out: list[Event]) -> None:
        kind = self._kind
        if kind == REASONING:
            out.append(Reasoning(text))
        elif kind != DROPPED or self.feeds_tools:
            out.append(Text(text))
