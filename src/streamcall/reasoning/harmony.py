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

When a tool parser reads this parser's text (``feeds_tools``, set by ``OutputParser``),
the header and terminator of every message read in the output are handed on too, and only
the bodies of analysis and final messages are kept: the tool parser, which reads the same
framing, then reads the stream exactly as it does alone, less the reasoning, and starts
where this parser starts (inside a header the prompt began, below).

Where the output starts: ``generation_prompt`` (the rendered prompt's tail) says where the
prompt left the framing (``framing.harmony.prompt_framing``). gpt-oss's template ends with
``<|start|>assistant``, so the output starts inside that header (mode PROMPT: `` to=functions.f
<|channel|>commentary ...``, ``<|channel|>analysis<|message|>...``), read as the rest of
it; a prompt that ends with a header's ``<|message|>`` starts the output in that message's
body; otherwise, or with no prompt, it starts before a message. ``prompt_opened`` (True: the
prompt ended with ``<|channel|>analysis<|message|>``) wins when given.

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
    Header,
    HeaderReader,
    prompt_framing,
)
from streamcall.reasoning._engine import ReasoningParser
from streamcall.text import Step

# Bound once: CPython 3.11 calls a method of an imported name through a bound method
# made on every call (it gives such a call no LOAD_METHOD)
_body_ends_find = BODY_ENDS.find
_openers_take = OPENERS.take

__all__ = ["HarmonyReasoningParser", "Mode"]


class Mode(IntEnum):
    """Where the parser is (the table in the module header)."""

    TEXT = 0
    HEADER = 1
    BODY = 2
    PROMPT = 3  # the rest of a header the generation prompt began


TEXT, HEADER, BODY, PROMPT = map(int, Mode)

# what a body is (``_body_kind``)
_REASONING, _FINAL, _RAW = range(3)


class HarmonyReasoningParser(ReasoningParser):
    """gpt-oss Harmony: analysis is reasoning, final is text, the rest is handed on."""

    #: the message frames, dropped as markup (``streamcall.testing.markup_of``)
    FRAMES = FRAMES

    def __init__(
        self,
        name: str,
        *,
        prompt_opened: bool | None = None,
        generation_prompt: str | None = None,
    ) -> None:
        super().__init__(name)
        self._mode = TEXT
        self._body_kind = _REASONING
        self._framed = False  # the message's header was read in the output (not the prompt's)
        self._prompt_header = ""  # in PROMPT: the header's text the prompt wrote
        self._headers = HeaderReader()
        self._steps = (
            self._read_text,
            self._read_header,
            self._read_body,
            self._read_prompt_header,
        )
        # prompt_opened: the prompt ended with '<|channel|>analysis<|message|>'.
        header_text, header = prompt_framing(generation_prompt)
        if prompt_opened:
            self._mode = BODY
        elif header_text:
            self._prompt_header = header_text
            self._mode = PROMPT
        elif header is not None:
            self._open_message(header)

    @property
    def in_reasoning(self) -> bool:
        return self._mode == BODY and self._body_kind == _REASONING

    def _read_text(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        end, _, marker = _openers_take(buf, pos, final)
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
        self._open_message(header, buf[pos:end], out)
        return end, False

    def _read_prompt_header(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        got = self._headers.read_rest(self._prompt_header, buf, pos, final)
        if got is None:
            return pos, True
        end, header = got
        if header is None:  # not a header: the output is read as text from its start
            self._mode = TEXT
        else:
            self._open_message(header, buf[pos:end], out)
        return end, False

    def _open_message(
        self, header: Header, written: str = "", out: list[Event] | None = None
    ) -> None:
        """A message's header was read (``written``: its text in the output, handed on
        for a message the tool parser reads; ``out`` None: the prompt wrote it whole)."""
        if header.recipient:
            self._body_kind = _RAW
        elif header.channel == "analysis":
            self._body_kind = _REASONING
        elif header.channel == "final":
            self._body_kind = _FINAL
        else:
            self._body_kind = _RAW
        self._framed = out is not None and self.feeds_tools
        if out is not None and written and (self._body_kind == _RAW or self._framed):
            out.append(Text(written))
        self._mode = BODY

    def _read_body(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        end, resume, marker = _body_ends_find(buf, pos, final)
        if end > pos:
            piece = buf[pos:end]
            out.append(Reasoning(piece) if self._body_kind == _REASONING else Text(piece))
        if marker is None:
            return end, True
        self._mode = TEXT
        if marker in TERMINATORS:
            if self._body_kind == _RAW or self._framed:
                out.append(Text(marker))
            return resume, False
        return end, False  # an opener: the next message began without a terminator
