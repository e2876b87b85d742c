"""InternLM 2.5: ``<|action_start|><|plugin|>{"name": ..., "parameters": {...}}<|action_end|>``.

Grammar (vLLM ``internlm``, internlm2_5-7b-chat)::

    text* ( START ws* body ws* '<|action_end|>' text* )*
    START := '<|action_start|><|plugin|>' | '<|action_start|> <|plugin|>'
    body  := calls | '[' ws* calls? ws* ']'
    calls := call (ws* [,;]? ws* call)*
    call  := {"name": string, "arguments" | "parameters": object | string}  # any key order

The spaced ``START`` is what a detokenizer that puts spaces between special tokens (vLLM's
and SGLang's default, ``spaces_between_special_tokens``) writes. Parallel calls are
repeated blocks. Arguments are streamed verbatim; a call with no arguments gets ``{}``.
Holds back a partial ``START`` at the end of text; everything else is the JSON-call
engine's (``engines.json_calls``).
"""

from __future__ import annotations

import json
from typing import Any

from streamcall.formats.engines.json_calls import JsonCallsParser


class InternLMParser(JsonCallsParser):
    names = ("internlm",)
    family = "InternLM 2.5"
    vllm_differences = (
        "Streams arguments verbatim without re-parsing the buffer each delta (vLLM: "
        "partial_json_parser over the whole text); parallel calls in repeated blocks are "
        "all kept (vLLM handles one); text after the calls is kept as content (vLLM's "
        "one-shot path returns only the text before them)."
    )
    START = ("<|action_start|><|plugin|>", "<|action_start|> <|plugin|>")
    END = "<|action_end|>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(
            "<|action_start|><|plugin|>\n"
            + json.dumps({"name": n, "parameters": a}, ensure_ascii=False)
            + "<|action_end|>"
            for n, a in calls
        )


FORMATS = (InternLMParser,)
