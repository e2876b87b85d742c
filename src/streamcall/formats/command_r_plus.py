"""Cohere Command R+: ``Action:`` then a fenced JSON list of calls.

Grammar (llama.cpp's Command R+ handling: ``common/chat-auto-parser*.cpp``'s markdown
code block format, tested in ``tests/test-chat.cpp`` with the
``CohereForAI-c4ai-command-r-plus-tool_use.jinja`` template; vLLM and SGLang have no
parser for it)::

    text* ( ACTION ws* '[' ws* call (ws* ',' ws* call)* ws* ']' ws* '```' text* )*
    ACTION := 'Action:' ('\\n' | '\\n\\n' | ' ' | '') '```json'
    call   := {"tool_name": string, "parameters": object}    # keys in any order

A configuration of the JSON-call engine (``engines.json_calls``). The template writes
``Action:\\n```json\\n[`` and closes with ``]```` ``; the model also writes a blank line
before the fence. Arguments stream verbatim; a call is complete at the separator before
the next one, or at the closing fence. ``directly-answer`` (the tool Command R+'s prompt
offers for answering without one) is a call like any other: the caller decides.

Held back: a partial ``Action:`` opener at the end of text, a partial closing fence after
the list, and what the engine holds inside a call. Command R+ has no reasoning format.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from streamcall.formats.engines.json_calls import JsonCallsParser


class CommandRPlusParser(JsonCallsParser):
    names: ClassVar[tuple[str, ...]] = ("command_r_plus",)
    family = "Cohere Command R+ (Action: and a fenced JSON list)"
    vllm_differences = (
        "Not a vLLM name (llama.cpp's Command R+ format). Streams arguments verbatim as "
        "they are written; the turn tokens (<|CHATBOT_TOKEN|>, <|END_OF_TURN_TOKEN|>, the "
        "prompt's and the stop token) are not dropped: servers strip them; a fence that "
        "is not preceded by 'Action:' is text."
    )
    START: ClassVar[tuple[str, ...]] = (
        "Action:\n```json",
        "Action:\n\n```json",
        "Action: ```json",
        "Action:```json",
    )
    END = "```"
    NAME_KEYS: ClassVar[tuple[str, ...]] = ("tool_name",)
    ARGS_KEYS: ClassVar[tuple[str, ...]] = ("parameters",)

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        body = [{"tool_name": n, "parameters": a} for n, a in calls]
        return f"Action:\n```json\n{json.dumps(body, ensure_ascii=False, indent=4)}\n```"


FORMATS = (CommandRPlusParser,)
