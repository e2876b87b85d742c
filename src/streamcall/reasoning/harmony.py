"""gpt-oss Harmony in its text form, as a reasoning format (``openai_gptoss``).

Grammar (openai/harmony ``docs/format.md``): messages framed by Harmony's tokens, read by
``streamcall.framing.harmony``, which the ``openai`` tool parser reads them with
too::

    stream  := text? message*
    message := ('<|start|>' ROLE)? '<|channel|>' CHANNEL header-rest '<|message|>' body
               ('<|end|>' | '<|return|>' | '<|call|>')?
    header-rest := e.g. ' to=functions.NAME <|constrain|>json'

The ``analysis`` channel is ``Reasoning`` and the ``final`` channel is ``Text``; their
headers and terminators are dropped. Any other message (``commentary``, or one addressed
``to=`` a recipient) is for the ``openai`` tool parser (``formats/harmony.py``), so its
header, body and terminator are handed on verbatim as ``Text``.

Modes (``Mode``) and what each step reads::

    mode    reads                                     next     emits
    TEXT    text up to an opener                      HEADER   Text
    HEADER  the header, to its '<|message|>'          BODY     Text (the header, for a
                                                               message handed on)
            not a header (too long, cut off)          TEXT     Text (the text it was)
    BODY    the body, to a terminator or an opener    TEXT     Reasoning or Text (and the
                                                               terminator of a message
                                                               handed on)

What it holds back: a partial Harmony token at the end of the buffer, and a header until
it is decided (whole, at most ``MAX_HEADER`` characters: ``HeaderReader``).
"""

from __future__ import annotations

from enum import IntEnum

from streamcall.events import Event, Reasoning, Text
from streamcall.framing.harmony import (
    BODY_ENDS,
    FRAMES,
    OPENERS,
    TERMINATORS,
    HeaderReader,
)
from streamcall.reasoning._engine import ReasoningParser
from streamcall.text import Step

__all__ = ["HarmonyReasoningParser", "Mode"]


class Mode(IntEnum):
    """Where the parser is (the table in the module header)."""

    TEXT = 0
    HEADER = 1
    BODY = 2


TEXT, HEADER, BODY = map(int, Mode)

# what a body is (``_body_kind``)
_REASONING, _FINAL, _RAW = range(3)


class HarmonyReasoningParser(ReasoningParser):
    """gpt-oss Harmony: analysis is reasoning, final is text, the rest is handed on."""

    #: the message frames, dropped as markup (``streamcall.testing.markup_of``)
    FRAMES = FRAMES

    def __init__(self, name: str, *, prompt_opened: bool | None = None) -> None:
        super().__init__(name)
        # prompt_opened: the prompt ended with '<|channel|>analysis<|message|>'.
        self._mode = BODY if prompt_opened else TEXT
        self._body_kind = _REASONING
        self._headers = HeaderReader()
        self._steps = (self._read_text, self._read_header, self._read_body)

    @property
    def in_reasoning(self) -> bool:
        return self._mode == BODY and self._body_kind == _REASONING

    def _read_text(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        end, _, marker = OPENERS.take(buf, pos, final)
        if end > pos:
            out.append(Text(buf[pos:end]))
        if marker is None:
            return end, True
        self._mode = HEADER
        return end, False  # the header starts at its opener

    def _read_header(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        end, header = self._headers.read(buf, pos, final)
        if header is None:
            if end == pos:
                return pos, True
            out.append(Text(buf[pos:end]))  # not a header after all
            self._mode = TEXT
            return end, False
        if header.recipient:
            self._body_kind = _RAW
        elif header.channel == "analysis":
            self._body_kind = _REASONING
        elif header.channel == "final":
            self._body_kind = _FINAL
        else:
            self._body_kind = _RAW
        if self._body_kind == _RAW:
            out.append(Text(buf[pos:end]))
        self._mode = BODY
        return end, False

    def _read_body(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        end, resume, marker = BODY_ENDS.find(buf, pos, final)
        if end > pos:
            piece = buf[pos:end]
            out.append(Reasoning(piece) if self._body_kind == _REASONING else Text(piece))
        if marker is None:
            return end, True
        self._mode = TEXT
        if marker in TERMINATORS:
            if self._body_kind == _RAW:
                out.append(Text(marker))
            return resume, False
        return end, False  # an opener: the next message began without a terminator
