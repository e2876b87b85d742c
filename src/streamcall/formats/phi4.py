"""Microsoft Phi-4-mini: ``functools[{"name": ..., "arguments": {...}}, ...]``.

Grammar (vLLM ``phi4_mini_json``)::

    text* ( 'functools' ws* body text* )*
    body  := calls | '[' ws* calls? ws* ']'
    calls := call (ws* [,;]? ws* call)*
    call  := {"name": string, "arguments" | "parameters": object | string}  # any key order

There is no end marker: the block ends where its JSON does, and what follows is text.
Arguments are streamed verbatim; a call with no arguments gets ``{}``. Holds back a partial
``functools`` at the end of text; everything else is the JSON-call engine's
(``engines.json_calls``).
"""

from __future__ import annotations

from typing import Any

from streamcall.formats.engines.base import call_list_json
from streamcall.formats.engines.json_calls import JsonCallsParser


class Phi4MiniJsonParser(JsonCallsParser):
    names = ("phi4_mini_json",)
    family = "Microsoft Phi-4-mini"
    vllm_differences = (
        "Streams calls; vLLM's phi4_mini_json parser does not stream at all. Text around "
        "the calls is kept as content (vLLM returns none once a call is made)."
    )
    START = ("functools",)
    END = None

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return f"functools{call_list_json(calls)}"


FORMATS = (Phi4MiniJsonParser,)
