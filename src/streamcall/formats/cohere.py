"""Cohere Command A (and Command A Reasoning): ``<|START_ACTION|>[...]<|END_ACTION|>``.

Grammar (vLLM ``cohere_command3`` / ``cohere_command4``)::

    text* ( '<|START_ACTION|>' ws* body ws* '<|END_ACTION|>' text* )*
    body  := calls | '[' ws* calls? ws* ']'
    calls := call (ws* [,;]? ws* call)*
    call  := {"tool_call_id": string, "tool_name": string, "parameters": object | string}
             # keys in any order

``tool_call_id`` is the call's id (``ID_KEYS``), made unique within the stream (a repeat
gets ``~2``, ``~3``...); an id written after the arguments began streaming comes too late,
and the generated id stays. Arguments are streamed verbatim; a call with no parameters
gets ``{}``.

Citation tags in the text (``<co>cited</co: 0:[1]>``, ``streamcall.framing.citations``)
are dropped and the cited text kept, as cohere_melody's filter does for vLLM; the citation
records themselves are not reported (vLLM passes none on). Holds back a partial
``<|START_ACTION|>`` at the end of text, a partial ``<|END_ACTION|>`` after the calls, and
a possible citation tag cut by the end of a chunk; everything else is the JSON-call
engine's (``engines.json_calls``).
"""

from __future__ import annotations

import json
from typing import Any

from streamcall.events import Event
from streamcall.formats.engines.base import Tools
from streamcall.formats.engines.json_calls import JsonCallsParser
from streamcall.framing.citations import MARKUP, CitationFilter
from streamcall.framing.filters import end_filtered, filtered_steps


class CohereCommandParser(JsonCallsParser):
    names = ("cohere_command3", "cohere_command4")
    family = "Cohere Command A / Command A Reasoning"
    vllm_differences = (
        "Pure Python (vLLM 0.23 needs the cohere_melody package); streams arguments "
        "verbatim. Like vLLM, the model's tool_call_id is the call id (made unique within "
        "the stream with a ~2 suffix if repeated; a call whose arguments start before its "
        "tool_call_id keeps a generated id). Citation tags (<co>…</co: 0:[1]>) are "
        "dropped and the cited text kept, as melody does; the citation records are not "
        "reported (vLLM passes none on)."
    )
    START = ("<|START_ACTION|>",)
    END = "<|END_ACTION|>"
    NAME_KEYS = ("tool_name",)
    ARGS_KEYS = ("parameters",)
    ID_KEYS = ("tool_call_id",)
    #: the markup dropped outside calls (the citation tags), for the contract checks
    FRAMES = MARKUP

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__(tools, id_prefix=id_prefix)
        self._citations = CitationFilter()
        self._steps = filtered_steps(self._steps, self._citations.apply, cut=self._citations.cut)

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        end_filtered(super()._end_of_stream, rest, out, self._citations.apply)

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        body = [
            {"tool_call_id": str(i), "tool_name": n, "parameters": a}
            for i, (n, a) in enumerate(calls)
        ]
        return f"<|START_ACTION|>{json.dumps(body, ensure_ascii=False, indent=4)}<|END_ACTION|>"


FORMATS = (CohereCommandParser,)
