"""Llama 3.1/3.2/4 JSON tool calls: ``{"name": ..., "parameters": {...}}``, bare.

Grammar (vLLM ``llama3_json`` and ``llama4_json``)::

    text* ( ('<|python_tag|>' | <a bare '{'>) call (ws* ';'? ws* call)* text* )*
    call := {"name": string, "parameters" | "arguments": object}    # any key order

The model writes the JSON with no marker, or after ``<|python_tag|>``; parallel calls are
separated by ``;`` (``; ``, ``;\\n``) or a newline, or written as one JSON list
(``[{...}, {...}]``, as SGLang's Llama32Detector reads them); a ``[`` that does not open
such a list is text. A configuration of the JSON-call engine
in ``BARE_ANYWHERE`` mode: any ``{`` in text opens a tentative call, which must start with
a name or arguments key and must carry arguments, or it stays text (``{x}`` in prose, a
quoted ``{"query": ...}``, ``{"name": "Bob"}``). After ``<|python_tag|>`` a call without
arguments gets ``{}``. Arguments are streamed verbatim as the model writes them, so every
chunking gives the same valid JSON (vLLM #51577: valid in only 52/250 runs at 5 tokens
per delta). Held back: a partial ``<|python_tag|>``, a key not yet closed, a growing
token of the arguments.
"""

from __future__ import annotations

import json
from typing import Any

from streamcall.formats._jsoncalls import BARE_ANYWHERE, JsonCallsParser


class Llama3JsonParser(JsonCallsParser):
    names = ("llama3_json",)
    family = "Llama 3.1 / 3.2 JSON tool calling"
    vllm_differences = (
        "Streams the arguments verbatim instead of re-serialising partial_json_parser "
        "output each delta (vLLM #51577); keeps the text around the calls as content "
        "(vLLM drops it); only objects that start like a call are calls."
    )
    START = ("<|python_tag|>",)
    END = None
    ARRAY = True  # Llama 3.2 also writes the calls as one list: [{...}, {...}]
    BARE = BARE_ANYWHERE
    SEPARATORS = ";"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "; ".join(
            json.dumps({"name": n, "parameters": a}, ensure_ascii=False) for n, a in calls
        )


class Llama4JsonParser(Llama3JsonParser):
    names = ("llama4_json",)
    family = "Llama 4 Scout/Maverick JSON tool calling"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "<|python_tag|>" + "; ".join(
            json.dumps({"name": n, "arguments": a}, ensure_ascii=False) for n, a in calls
        )


FORMATS = (Llama3JsonParser, Llama4JsonParser)
