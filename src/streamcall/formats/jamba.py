"""AI21 Jamba 1.5: ``<tool_calls>[{"name": ..., "arguments": {...}}, ...]</tool_calls>``.

Grammar (vLLM ``jamba``)::

    text* ( '<tool_calls>' ws* body ws* '</tool_calls>' text* )*
    body  := calls | '[' ws* calls? ws* ']'
    calls := call (ws* [,;]? ws* call)*
    call  := {"name": string, "arguments" | "parameters": object | string}  # any key order

Arguments are streamed verbatim; a call with no arguments gets ``{}``. Holds back a partial
``<tool_calls>`` at the end of text and a partial ``</tool_calls>`` after the calls;
everything else is the JSON-call engine's (``engines.json_calls``).
"""

from __future__ import annotations

from typing import Any

from streamcall.formats.engines.base import call_list_json
from streamcall.formats.engines.json_calls import JsonCallsParser


class JambaParser(JsonCallsParser):
    names = ("jamba",)
    family = "AI21 Jamba 1.5"
    vllm_differences = (
        "Streams arguments verbatim without re-parsing the buffer each delta; keeps text "
        "after </tool_calls>."
    )
    START = ("<tool_calls>",)
    END = "</tool_calls>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return f"<tool_calls>{call_list_json(calls)}</tool_calls>"


FORMATS = (JambaParser,)
