"""gpt-oss Harmony in its text form, as a reasoning format (``openai_gptoss``).

Grammar (openai/harmony ``docs/format.md``)::

    stream  := text? message*
    message := ('<|start|>' ROLE)? '<|channel|>' CHANNEL header-rest '<|message|>' body
               ('<|end|>' | '<|return|>' | '<|call|>')?
    header-rest := e.g. ' to=functions.NAME <|constrain|>json'

Modes: TEXT (outside any message), HEADER (from ``<|start|>`` or ``<|channel|>`` up to
``<|message|>``), BODY (up to a terminator). The ``analysis`` channel is ``Reasoning`` and
the ``final`` channel is ``Text``; their headers and terminators are dropped. Any other
message (``commentary``, or one addressed ``to=`` a tool) is a tool call for the ``openai``
tool parser (``formats/harmony.py``), so its header, body and terminator are handed on
verbatim as ``Text``. Holds back a partial Harmony token at the end of the buffer, and a
header until its ``<|message|>`` (at most ``_MAX_HEADER`` characters; a longer one is
text).
"""

from __future__ import annotations

import re

from streamcall.events import Event, Reasoning, Text
from streamcall.formats._scan import MarkerFinder
from streamcall.reasoning._engine import ReasoningParser

__all__ = ["HarmonyReasoningParser"]

_START = "<|start|>"
_CHANNEL = "<|channel|>"
_MESSAGE = "<|message|>"
_TERMINATORS = ("<|end|>", "<|return|>", "<|call|>")
_MAX_HEADER = 512
_CHANNEL_NAME = re.compile(r"<\|channel\|>\s*([A-Za-z_]+)")

TEXT, HEADER, BODY = range(3)
_REASONING, _FINAL, _RAW = range(3)


class HarmonyReasoningParser(ReasoningParser):
    """gpt-oss Harmony: analysis is reasoning, final is text, the rest is handed on."""

    #: the message frames, dropped as markup (``streamcall.testing.markup_of``)
    FRAMES = (_START, _CHANNEL, _MESSAGE, *_TERMINATORS)

    def __init__(self, name: str, *, prompt_opened: bool | None = None) -> None:
        super().__init__(name)
        # prompt_opened: the prompt ended with '<|channel|>analysis<|message|>'.
        self._mode = BODY if prompt_opened else TEXT
        self._body_kind = _REASONING
        self._message_finder = MarkerFinder((_START, _CHANNEL))
        self._header_end_finder = MarkerFinder((_MESSAGE, _START))
        self._body_end_finder = MarkerFinder((*_TERMINATORS, _START, _CHANNEL))

    @property
    def in_reasoning(self) -> bool:
        return self._mode == BODY and self._body_kind == _REASONING

    def _step(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        n = len(buf)
        while pos < n:
            if self._mode == TEXT:
                end, resume, marker = (
                    self._message_finder.find_final(buf, pos)
                    if final
                    else self._message_finder.find(buf, pos)
                )
                if end > pos:
                    out.append(Text(buf[pos:end]))
                if marker is None:
                    return end
                self._mode = HEADER
                pos = end  # the header starts at the marker
            elif self._mode == HEADER:
                # buf[pos:] starts with <|start|> or <|channel|>.
                first = _START if buf.startswith(_START, pos) else _CHANNEL
                end, resume, marker = self._header_end_finder.find(buf, pos + len(first))
                if marker is not None and resume - pos > _MAX_HEADER:
                    marker = None  # too far away to belong to this header
                    end = n
                if marker == _MESSAGE:
                    header = buf[pos:resume]
                    m = _CHANNEL_NAME.search(header)
                    channel = m.group(1) if m is not None else ""
                    addressed = " to=" in header or "\tto=" in header
                    if channel == "analysis" and not addressed:
                        self._body_kind = _REASONING
                    elif channel == "final" and not addressed:
                        self._body_kind = _FINAL
                    else:
                        self._body_kind = _RAW
                        out.append(Text(header))
                    self._mode = BODY
                    pos = resume
                    continue
                if marker == _START:  # a new message before this header ended: text
                    out.append(Text(buf[pos:end]))
                    pos = end
                    self._mode = TEXT
                    continue
                if final or n - pos > _MAX_HEADER:
                    # Never completed within its bound: it is text. Release its opening
                    # token so that the scan moves on.
                    out.append(Text(buf[pos : pos + len(first)]))
                    pos += len(first)
                    self._mode = TEXT
                    continue
                return pos
            else:  # BODY
                end, resume, marker = (
                    self._body_end_finder.find_final(buf, pos)
                    if final
                    else self._body_end_finder.find(buf, pos)
                )
                if end > pos:
                    piece = buf[pos:end]
                    out.append(Reasoning(piece) if self._body_kind == _REASONING else Text(piece))
                if marker is None:
                    return end
                if marker in _TERMINATORS:
                    if self._body_kind == _RAW:
                        out.append(Text(marker))
                    self._mode = TEXT
                    pos = resume
                else:  # a header without a terminator before it
                    self._mode = HEADER
                    pos = end
        return pos
