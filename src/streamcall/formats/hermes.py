"""Hermes: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``.

Used by NousResearch Hermes 2 Pro / 3, Qwen2.5 and QwQ (vLLM's ``hermes``), and under
other names by models that copied it.

Grammar::

    text* ( '<tool_call>' ws* call ws* '</tool_call>' text* )*
    call := {"name": string, "arguments": object | string}    # keys in any order

Parallel calls are repeated blocks; several objects inside one block are accepted too.
``arguments`` (or ``parameters``) is streamed verbatim as the model writes it; a string
value (a double-encoded object) is decoded as it arrives and streamed the same way. A
call with no ``arguments`` gets ``{}`` (vLLM #28806 dropped them). Holds back a partial
``<tool_call>`` at the end of text; everything else is the JSON-call engine's.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from streamcall.formats.engines.json_calls import JsonCallsParser


class HermesParser(JsonCallsParser):
    names: ClassVar[tuple[str, ...]] = ("hermes", "qwen3_json")
    family = "Hermes 2 Pro/3, Qwen2.5, QwQ-32B"
    vllm_differences = (
        "Streams arguments without re-scanning the buffer; keeps text between and after "
        "calls; gives {} to parameterless calls (vLLM #28806); decodes string arguments "
        "instead of passing them through double-encoded."
    )
    START: ClassVar[tuple[str, ...]] = ("<tool_call>",)
    END = "</tool_call>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(
            f"<tool_call>\n{json.dumps({'name': n, 'arguments': a}, ensure_ascii=False)}\n</tool_call>"
            for n, a in calls
        )


FORMATS = (HermesParser,)
