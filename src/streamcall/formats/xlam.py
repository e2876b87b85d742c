"""xLAM: a JSON array of calls, bare or in one of several wrappings.

Grammar (vLLM ``xlam``; Salesforce Llama-xLAM-2 / xLAM-2 Qwen variants)::

    output := text* wrapped text*  |  ws* array text*  |  text* '</think>' ws* array text*
    wrapped := '[TOOL_CALLS]' ws* array
             | '<tool_call>' ws* array ws* '</tool_call>'
             | '```json' ws* array ws* '```'
    array  := '[' call (',' call)* ']'  |  call
    call   := {"name": string, "arguments": object | string}

A configuration of the JSON-call engine with a per-marker end (``ENDS``), a bare array at
the start of the output (``BARE_AT_START``), and ``</think>`` re-arming that bare start
(``REARM``; the think block stays text, as vLLM reports it as content). Arguments are
streamed verbatim. Held back: a partial start or end marker, a key not yet closed, a
growing token of the arguments.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from streamcall.formats.engines.json_calls import BARE_AT_START, JsonCallsParser


class XLamParser(JsonCallsParser):
    names = ("xlam",)
    family = "Salesforce xLAM-2"
    vllm_differences = (
        "Streams arguments verbatim and as soon as they are written (vLLM buffers and "
        "re-parses with regexes); text after the calls is kept; ids are call_N."
    )
    START = ("[TOOL_CALLS]", "<tool_call>", "```json")
    END = None
    ENDS: ClassVar[dict[str, str | None]] = {"<tool_call>": "</tool_call>", "```json": "```"}
    BARE = BARE_AT_START
    REARM = ("</think>",)

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        """The fenced form, which may follow text (a bare array must open the output)."""
        body = json.dumps([{"name": n, "arguments": a} for n, a in calls], ensure_ascii=False)
        return f"```json\n{body}\n```"


FORMATS = (XLamParser,)
