"""Baidu ERNIE 4.5: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``, repeated.

Grammar (vLLM ``ernie45``)::

    text* ( '<tool_call>' ws* body ws* '</tool_call>' text* )*
    body  := calls | '[' ws* calls? ws* ']'
    calls := call (ws* [,;]? ws* call)*
    call  := {"name": string, "arguments" | "parameters": object | string}  # any key order

Hermes's markup under another name. Parallel calls are repeated blocks. Arguments are
streamed verbatim; a call with no arguments gets ``{}``. Holds back a partial
``<tool_call>`` at the end of text; everything else is the JSON-call engine's
(``engines.json_calls``).
"""

from __future__ import annotations

import json
from typing import Any

from streamcall.formats.engines.json_calls import JsonCallsParser


class Ernie45Parser(JsonCallsParser):
    names = ("ernie45",)
    family = "Baidu ERNIE 4.5"
    vllm_differences = (
        "Streams arguments verbatim without re-parsing the buffer each delta (vLLM: a "
        "regex over the whole text each delta); text after the calls is kept as content "
        "(vLLM's one-shot path returns only the text before them)."
    )
    START = ("<tool_call>",)
    END = "</tool_call>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(
            f"<tool_call>\n{json.dumps({'name': n, 'arguments': a}, ensure_ascii=False)}\n"
            "</tool_call>\n"
            for n, a in calls
        )


FORMATS = (Ernie45Parser,)
