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
of text; everything else is the JSON-call engine's (``engines.json_calls``).

GigaChat 3.5 (vLLM ``gigachat35``) writes GCML instead: DeepSeek's DSML grammar
(``deepseek_dsml.py``) with the marker stem ``｜GCML｜`` (U+FF5C on both sides) and a
``tool_calls`` block::

    <｜GCML｜tool_calls><｜GCML｜invoke name="f">
    <｜GCML｜parameter name="k" string="true|false">v</｜GCML｜parameter>
    </｜GCML｜invoke></｜GCML｜tool_calls>

``string="true"`` values are raw text, streamed; ``string="false"`` values are JSON, held
(a string if they do not load; a JSON string, ``"hello"``, is the string it encodes, over a
string property too); otherwise the schema types a key it knows first, as in DSML.
Everything else (an invoke outside a block, a JSON-object body, a wrapper parameter, what
is held back) is DSML's.
"""

from __future__ import annotations

import json
from typing import Any

from streamcall.formats.deepseek_dsml import DeepSeekV32Parser
from streamcall.formats.engines.json_calls import JsonCallsParser


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


class GigaChat35Parser(DeepSeekV32Parser):
    names = ("gigachat35",)
    family = "ai-sage GigaChat 3.5 (GCML)"
    vllm_differences = (
        "Streams string parameters while they are written (vLLM emits each invoke whole "
        "at its closer); an invoke cut off by the end of the stream is reported "
        "incomplete (vLLM returns the text as content; the call streamed from its name "
        'and cannot be taken back); string="false" values that do '
        "not load as JSON become strings; an invoke outside a block is a call, and an "
        "invoke whose body is a JSON object has that object for arguments (DSML's rules, "
        "as in SGLang); text after the calls is kept."
    )
    P = "<｜GCML｜"
    CLOSE_P = "</｜GCML｜"
    BLOCK = "tool_calls"
    BLOCK_OPEN = P + BLOCK + ">"
    BLOCK_CLOSE = CLOSE_P + BLOCK + ">"
    CALL_OPEN = (P + "invoke name=",)
    CALL_CLOSE = CLOSE_P + "invoke>"
    PARAM_OPEN = (P + "parameter name=",)
    PARAM_CLOSE = CLOSE_P + "parameter>"


FORMATS = (GigaChat3Parser, GigaChat35Parser)
