# call_view: the UI layer over a partial function-call JSON (README.md, "The layers").
#
# Shapes recognised, for the name and then the arguments, first match wins:
#   OpenAI      {"name": ..., "arguments": "<JSON text>"}   (also under "function": {...})
#   Anthropic   {"name": ..., "input": {...}}
#   generic     {"tool": ..., "args": {...}}   and   "parameters": {...}
# Status: "complete" when the text is already valid JSON, "parsing" when it needed a
# repair, "invalid" when the (repaired) value is not an object.
#
# Nothing is held back: a view is a pure function of the text. String arguments are
# parsed as partial JSON while they are still being written, so `args` grows smoothly.
# `args` is prefix-stable because parse_partial_json is: an entry complete in one prefix is
# unchanged in every later one, and only the last entry grows. A UI may key on it.

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from streamcall.partial.repair import parse_partial_json
from streamcall.text import too_deep

__all__ = ["CallStatus", "CallView", "call_view"]

CallStatus: TypeAlias = Literal["complete", "parsing", "invalid"]

_NAME_KEYS = ("name", "tool")
_ARGS_KEYS = ("arguments", "args", "input", "parameters")


@dataclass(frozen=True, slots=True)
class CallView:
    """What a UI shows for a (possibly half-written) function call."""

    status: CallStatus
    name: str | None = None
    args: dict[str, Any] = field(default_factory=dict)


def call_view(text: str) -> CallView:
    """Repair and parse a function-call JSON prefix, then pick out its name and arguments."""
    status: CallStatus
    try:
        if too_deep(text):
            raise ValueError("nested deeper than MAX_DEPTH")  # cut there, as the scan cuts it
        value = json.loads(text)
        status = "complete"
    except (ValueError, RecursionError):
        value = parse_partial_json(text)
        status = "parsing"
    if not isinstance(value, dict):
        return CallView("invalid")
    call = value
    if not any(k in value for k in _NAME_KEYS) and isinstance(value.get("function"), dict):
        call = value["function"]  # an OpenAI tool_calls entry
    name = None
    for key in _NAME_KEYS:
        candidate = call.get(key)
        if isinstance(candidate, str):
            name = candidate
            break
    args: dict[str, Any] = {}
    for key in _ARGS_KEYS:
        if key in call:
            raw = call[key]
            if isinstance(raw, str):
                # Closed or still open, a JSON string argument is a JSON prefix.
                raw = parse_partial_json(raw)
            if isinstance(raw, dict):
                args = raw
            break
    return CallView(status, name, args)
