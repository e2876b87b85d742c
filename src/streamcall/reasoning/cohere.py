"""Cohere Command A Reasoning (``cohere_command3``, ``cohere_command4``): the marker engine,
with Cohere's citation tags (``<co>…</co: 0:[1]>``, ``streamcall.framing.citations``)
removed and the cited text kept, as cohere_melody does for vLLM.

The reasoning is filtered here; the text is left to the tool parser when one reads it
(``feeds_tools``: the ``cohere_command3``/``cohere_command4`` tool format filters its own
text), and filtered here when this parser runs alone. What it holds back: the engine's
partial markers, and a possible citation tag cut by the end of a chunk.
"""

from __future__ import annotations

from streamcall.events import Event
from streamcall.framing.citations import MARKUP, CitationFilter
from streamcall.reasoning._engine import MarkerReasoningParser, ReasoningSpec

COHERE_FORMATS = ("cohere_command3", "cohere_command4")


class CohereReasoningParser(MarkerReasoningParser):
    def __init__(self, spec: ReasoningSpec, *, prompt_opened: bool | None = None) -> None:
        super().__init__(spec, prompt_opened=prompt_opened)
        self._citations = CitationFilter()

    @property
    def FRAMES(self) -> tuple[str, ...]:
        """The markup this parser drops: the spec's markers and the citation tags."""
        spec = self.spec
        return (*spec.start, *spec.end, *spec.text_drop, *spec.drop, *MARKUP)

    def feed(self, text: str) -> list[Event]:
        self._citations.text = not self.feeds_tools
        return self._citations.apply(super().feed(text), False)

    def finish(self) -> list[Event]:
        self._citations.text = not self.feeds_tools
        return self._citations.apply(super().finish(), True)
