"""Meituan LongCat-Flash-Chat: ``<longcat_tool_call>{"name": ..., "arguments": {...}}</longcat_tool_call>``.

Grammar (vLLM ``longcat``, the Hermes parser with other markers)::

    text* ( '<longcat_tool_call>' ws* body ws* '</longcat_tool_call>' text* )*
    body  := calls | '[' ws* calls? ws* ']'
    calls := call (ws* [,;]? ws* call)*
    call  := {"name": string, "arguments" | "parameters": object | string}  # any key order

Parallel calls are repeated blocks. Arguments are streamed verbatim; a call with no
arguments gets ``{}``. Holds back a partial ``<longcat_tool_call>`` at the end of text;
everything else is the JSON-call engine's (``engines.json_calls``).
"""

from __future__ import annotations

import json
from typing import Any

from streamcall.formats.engines.json_calls import JsonCallsParser


class LongcatParser(JsonCallsParser):
    names = ("longcat",)
    family = "Meituan LongCat-Flash-Chat"
    vllm_differences = (
        "Streams arguments verbatim without re-parsing the buffer each delta (vLLM: the "
        "Hermes parser with other markers); text after the calls is kept as content "
        "(vLLM's one-shot path returns only the text before them)."
    )
    START = ("<longcat_tool_call>",)
    END = "</longcat_tool_call>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(
            "<longcat_tool_call>\n"
            + json.dumps({"name": n, "arguments": a}, ensure_ascii=False)
            + "\n</longcat_tool_call>"
            for n, a in calls
        )


FORMATS = (LongcatParser,)
