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
from streamcall.framing.filters import end_filtered, filtered_steps
from streamcall.reasoning._engine import MarkerReasoningParser, ReasoningSpec

COHERE_FORMATS = ("cohere_command3", "cohere_command4")


class CohereReasoningParser(MarkerReasoningParser):
    def __init__(self, spec: ReasoningSpec, *, prompt_opened: bool | None = None) -> None:
        super().__init__(spec, prompt_opened=prompt_opened)
        self._citations = CitationFilter()
        self._steps = filtered_steps(self._steps, self._citations.apply, cut=self._citations.cut)

    @property
    def FRAMES(self) -> tuple[str, ...]:
        """The markup this parser drops: the spec's markers and the citation tags."""
        spec = self.spec
        return (*spec.start, *spec.end, *spec.text_drop, *spec.drop, *MARKUP)

    @property
    def feeds_tools(self) -> bool:
        """Whether a tool parser reads this parser's text (set by ``OutputParser``): then
        the text is left to it, and only the reasoning is filtered here."""
        return not self._citations.text

    @feeds_tools.setter
    def feeds_tools(self, value: bool) -> None:
        self._citations.text = not value

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        end_filtered(super()._end_of_stream, rest, out, self._citations.apply)
