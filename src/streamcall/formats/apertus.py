"""swiss-ai Apertus: ``<|tools_prefix|>[{"NAME": {args}}, ...]<|tools_suffix|>``.

Grammar (vLLM ``apertus``)::

    text* ( '<|tools_prefix|>' ws* body ws* '<|tools_suffix|>' text* )*
    body  := calls | '[' ws* calls? ws* ']'
    calls := call (ws* [,;]? ws* call)*
    call  := { NAME: object }          # one key: the function's name; its value, the arguments

The single-key call objects are the engine's ``NAME_AS_KEY``. Arguments are streamed
verbatim. Holds back a partial ``<|tools_prefix|>`` at the end of text and a partial
``<|tools_suffix|>`` after the calls; everything else is the JSON-call engine's
(``engines.json_calls``).
"""

from __future__ import annotations

import json
from typing import Any

from streamcall.formats.engines.json_calls import JsonCallsParser


class ApertusParser(JsonCallsParser):
    names = ("apertus",)
    family = "swiss-ai Apertus"
    vllm_differences = (
        "Streams arguments verbatim without re-parsing the buffer each delta (vLLM: "
        "partial_json_parser over the whole text); the text around the calls is kept as "
        "written (vLLM strips it and joins the parts with a newline)."
    )
    START = ("<|tools_prefix|>",)
    END = "<|tools_suffix|>"
    NAME_AS_KEY = True

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        body = [{n: a} for n, a in calls]
        return f"<|tools_prefix|>{json.dumps(body, ensure_ascii=False)}<|tools_suffix|>"


FORMATS = (ApertusParser,)
