"""Granite 3.x and Granite 20B FC: JSON calls after a start marker, no end marker.

Grammar (vLLM ``granite``, granite-3.0/3.1-8b-instruct)::

    text* ('<|tool_call|>' | '<tool_call>' | <a '[' or '{' opening the output>)
        ws* '[' call (',' call)* ']' text*
    call := {"name": string, "arguments": object | string}      # any key order

Granite 3.0 writes the ``<|tool_call|>`` special token, 3.1 the text ``<tool_call>``;
both write a JSON array and no end marker, so the closing ``]`` ends the block. A bare
``[`` (or ``{``) as the first non-blank character of the output opens one too.

Grammar (vLLM ``granite-20b-fc``, granite-20b-functioncalling)::

    text* ( '<function_call>' ws* call )+ text*        # the marker repeats per call

Configurations of the JSON-call engine: arguments are streamed verbatim (written before
the name, they are held until the name comes, then released at once). Held back: a
partial start marker, a key not yet closed, a growing token of the arguments.
"""

from __future__ import annotations

import json
from typing import Any

from streamcall.formats.engines.base import call_list_json
from streamcall.formats.engines.json_calls import BARE_AT_START, JsonCallsParser


class GraniteParser(JsonCallsParser):
    names = ("granite",)
    family = "IBM Granite 3.0 / 3.1"
    vllm_differences = (
        "Streams arguments verbatim instead of diffing partial_json_parser output of the "
        "whole text; keeps text around the calls (vLLM's suite marks surrounding text as "
        "a known failure); a lone object after the marker is accepted as one call."
    )
    START = ("<|tool_call|>", "<tool_call>")
    END = None
    BARE = BARE_AT_START

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return f"<|tool_call|> {call_list_json(calls)}"


class GraniteTwentyBParser(JsonCallsParser):
    names = ("granite-20b-fc",)
    family = "IBM granite-20b-functioncalling"
    vllm_differences = (
        "Streams arguments verbatim; text before the first <function_call> is content "
        "(vLLM's streaming requires the marker at the start); text after the calls is "
        "kept as content (vLLM's one-shot path returns only the text before them)."
    )
    START = ("<function_call>",)
    END = None
    ARRAY = False
    REPEAT_START = True

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "\n".join(
            f"<function_call> {json.dumps({'name': n, 'arguments': a}, ensure_ascii=False)}"
            for n, a in calls
        )


FORMATS = (GraniteParser, GraniteTwentyBParser)
