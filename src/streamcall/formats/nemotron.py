"""NVIDIA Nemotron ``<TOOLCALL>``: Nemotron Nano v2 and the Llama-Nemotron models.

Grammar (llama.cpp ``NEMOTRON_V2``, Dynamo, vLLM's ``nemotron_json`` after 0.33)::

    text* ( '<TOOLCALL>' ws* body ws* '</TOOLCALL>' text* )*
    body  := '[' ws* calls? ws* ']' | calls        # a lone object is one call
    calls := call (ws* ',' ws* call)*
    call  := {"name": string, "arguments": object | string}   # any key order

The same grammar as Jamba's ``<tool_calls>``, with other tags: a configuration of the
JSON-call engine (``engines.json_calls``). Arguments stream verbatim; arguments written as a JSON
string holding an object are decoded; a call with no arguments gets ``{}``. Text after
``</TOOLCALL>`` is content (llama.cpp). A call is complete once the list's ``,`` or the
block's ``</TOOLCALL>`` follows it. Held back: a partial ``<TOOLCALL>`` in text and a
partial ``</TOOLCALL>`` after the calls. Reasoning (``<think>``...``</think>``, which the
Nano v2 template opens in the prompt when thinking is on) is the reasoning stage's
(``deepseek_r1``, routed from the Nano v2 ids).

Nemotron 3 (``nemotron-3-nano``, ``nemotron-3-super``) writes Qwen3's XML calls, not this.
"""

from __future__ import annotations

from typing import Any

from streamcall.formats.engines.base import call_list_json
from streamcall.formats.engines.json_calls import JsonCallsParser


class NemotronToolCallParser(JsonCallsParser):
    names = ("nemotron_toolcall",)
    family = "NVIDIA Nemotron Nano v2, Llama-Nemotron (<TOOLCALL>[...]</TOOLCALL>)"
    vllm_differences = (
        "vLLM after 0.33 names this syntax nemotron_json. Streams arguments verbatim as "
        "they are written; keeps text after </TOOLCALL> (llama.cpp does too). A block "
        "whose JSON breaks after a call has started ends that call incomplete and keeps "
        "the rest as text, where vLLM returns the whole output as content (the call "
        "streamed from its name and cannot be taken back; one-shot reads give what "
        "streaming does)."
    )
    START = ("<TOOLCALL>",)
    END = "</TOOLCALL>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return f"<TOOLCALL>{call_list_json(calls)}</TOOLCALL>"


FORMATS = (NemotronToolCallParser,)
