"""Cohere's inline citation markup, removed from text and reasoning as it streams.

Grammar (Cohere Command A / Command A Reasoning, as cohere_melody reads it)::

    cited := OPEN cited-text CLOSE
    OPEN  := '<co>' | '<co:' SOURCES '>'          # '<co: 0,1>' in the older form
    CLOSE := '</co>' | '</co:' SOURCES '>'        # '</co: 0:[1]>', '</co: 0:[1,2],1:[3]>'
    SOURCES := [ 0-9,:[\\]]{0,256}

The tags are dropped and the cited text is kept, in the answer and in the reasoning alike
(cohere_melody turns them into citation records, which vLLM does not pass on). Each tag is
matched on its own, so a tag with no partner is dropped too.

What it holds back: a possible tag cut by the end of a chunk (from its ``<``, at most
``MAX_TAG`` characters), until the next piece of the same kind decides it. Anything else
(a tool call, the other kind of text, the end of the stream) releases it as written.
A held tail joins only the piece that continues it in the input: a parser step that
consumed or met markup releases it (``cut``, run by ``framing.filters``), so ``<`` before
a dropped ``<|START_RESPONSE|>`` stays ``<``, an event of its own.
Decisions depend only on the text: a tag has one ``<``, so no tag crosses the point where
a held tail starts, and the result is the same however the text is chunked.
"""

from __future__ import annotations

import re

from streamcall.events import Event, Reasoning, Text

__all__ = ["MARKUP", "TAG", "CitationFilter"]

_SOURCES = r"[ 0-9,:\[\]]{0,256}"
#: one citation tag, opening or closing
TAG = re.compile(rf"</?co(?::{_SOURCES})?>")
# what a tag cut by the end of the text may be (from its '<')
_CUT = re.compile(rf"</?(?:c(?:o(?::{_SOURCES})?)?)?")
MAX_TAG = len("</co:") + 256 + 1
#: how every tag begins (the markup a parser that drops them names, for the contract checks)
MARKUP = ("<co>", "<co:", "</co>", "</co:")


class CitationFilter:
    """Removes citation tags from the ``Text`` and ``Reasoning`` of an event stream.

    ``apply`` takes a run of events (``final`` at the end of the stream) and returns them
    with the tags removed (a parser runs it on each step's events: ``framing.filters``);
    ``cut`` releases a held tail the next piece does not continue; ``text`` says whether
    ``Text`` is filtered too (a reasoning parser whose text a tool parser reads leaves
    the text to it).
    """

    __slots__ = ("_held", "_held_kind", "text")

    def __init__(self, *, text: bool = True) -> None:
        self.text = text
        self._held = ""  # a possible tag cut by the end of the last piece
        self._held_kind: type[Text] | type[Reasoning] = Text

    def apply(self, events: list[Event], final: bool) -> list[Event]:
        out: list[Event] = []
        for ev in events:
            kind = ev.__class__
            if kind is Reasoning or (kind is Text and self.text):
                if self._held and kind is not self._held_kind:
                    self.cut(out)
                self._piece(kind, ev.text, out)  # type: ignore[union-attr]
            else:
                self.cut(out)
                out.append(ev)
        if final:
            self.cut(out)
        return out

    def _piece(self, kind: type[Text] | type[Reasoning], text: str, out: list[Event]) -> None:
        s = self._held + text if self._held else text
        self._held = ""
        lt = s.rfind("<", max(0, len(s) - MAX_TAG))
        if lt >= 0 and _CUT.fullmatch(s, lt) is not None:
            self._held, self._held_kind = s[lt:], kind
            s = s[:lt]
        if "<" not in s:
            if s:
                out.append(kind(s))
            return
        # each stretch between tags an event of its own: the input's own text, as written
        out.extend(kind(part) for part in TAG.split(s) if part)

    def cut(self, out: list[Event]) -> None:
        """The next piece does not continue the last one in the input: what is held is
        released as written."""
        if self._held:
            out.append(self._held_kind(self._held))
            self._held = ""
