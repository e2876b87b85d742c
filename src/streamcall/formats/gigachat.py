"""ai-sage GigaChat 3 / 3.1: ``<|function_call|>{"name": ..., "arguments": {...}}``.

Grammar (vLLM ``gigachat3``)::

    text* ( START ws* call (ws* [,;]? ws* call)* ws* '</s>'? text* )*
    START := '<|message_sep|>\\n\\nfunction call<|role_sep|>' | 'function call<|role_sep|>'
           | '<|function_call|>'
    call  := {"name": string, "arguments" | "parameters": object | string}  # any key order

One call object per header, not an array; several after one header are all kept. The
``</s>`` after the calls is the end-of-sequence token, which servers strip, so it is
optional (``END_OPTIONAL``); when it is written it is markup. Arguments are streamed
verbatim; a call with no arguments gets ``{}``. Holds back a partial ``START`` at the end
of text; everything else is the JSON-call engine's (``_jsoncalls``).
"""

from __future__ import annotations

import json
from typing import Any

from streamcall.formats._jsoncalls import JsonCallsParser


class GigaChat3Parser(JsonCallsParser):
    names = ("gigachat3",)
    family = "ai-sage GigaChat 3 / 3.1"
    vllm_differences = (
        "Streams arguments verbatim without re-parsing the buffer each delta; several "
        "calls after one header are all kept; text after the calls is kept as content "
        "(vLLM's one-shot path returns only the text before them). A trailing </s> is "
        "optional: it is the stop token, which servers strip."
    )
    START = (
        "<|message_sep|>\n\nfunction call<|role_sep|>",
        "function call<|role_sep|>",
        "<|function_call|>",
    )
    END = "</s>"
    END_OPTIONAL = True
    ARRAY = False

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(
            "<|function_call|>" + json.dumps({"name": n, "arguments": a}, ensure_ascii=False)
            for n, a in calls
        )


FORMATS = (GigaChat3Parser,)
