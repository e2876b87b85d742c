"""streamcall's formats as response-template messages, and how a template's reading of a
format's text compares with streamcall's (tests/response_templates/test_rt_export.py).

``streamcall_message`` maps ``parse_tool_calls`` to the dict a response template gives:
``role``, then ``content`` and ``thinking`` when non-empty, and ``tool_calls`` as
``{"type": "function", "function": {"name", "arguments"}}`` with the arguments decoded.

``classify`` says how the exported template's dict relates to it, for one text:

- ``equal``: the same dict.
- ``cut``: the output ends inside a call (streamcall reports it ``incomplete``, or the
  template's call region is still open at the end): the template reads a cut call's
  region as if it were whole, and its JSON usually fails.
- ``markup_as_text``: streamcall gives call markup back as text (a malformed call, or a
  block cut before its first call), where the template reads or drops it.
- ``string_arguments``: arguments written as a JSON string: the template keeps the
  string, streamcall decodes it.
- ``untyped_values``: no tools were given, and the template's string values are what
  streamcall reads as JSON (numbers, true/false/null, containers).
- ``raises``: the template's content parser rejects a region streamcall reads (the spec
  has no way to leave a bad region as text).
- ``beyond``: streamcall reads syntax the template does not express (another key name, a
  marker variant, a call written without its wrapper, ...).
"""

from __future__ import annotations

import json
from typing import Any

from streamcall.formats.registry import parse_tool_calls
from streamcall.response_templates import compile_template, parse_response
from streamcall.response_templates.export import EXPORTED

CATEGORIES = (
    "equal",
    "cut",
    "markup_as_text",
    "string_arguments",
    "untyped_values",
    "raises",
    "beyond",
)


def streamcall_message(text: str, fmt: str, tools: Any = None) -> tuple[dict[str, Any], bool]:
    """(the message, whether a call is incomplete)."""
    parsed = parse_tool_calls(text, fmt, tools=tools)
    message: dict[str, Any] = {"role": "assistant"}
    if parsed.content:
        message["content"] = parsed.content
    if parsed.reasoning:
        message["thinking"] = parsed.reasoning
    if parsed.tool_calls:
        message["tool_calls"] = [
            {"type": "function", "function": {"name": c.name, "arguments": json.loads(c.arguments)}}
            for c in parsed.tool_calls
        ]
    return message, any(c.incomplete for c in parsed.tool_calls)


def _ends_inside_a_call(template: Any, text: str) -> bool:
    calls = compile_template(template).field("tool_calls")
    assert calls.open is not None
    last = None
    for m in calls.open.pattern.finditer(text):
        last = m
    if last is None or calls.close is None:
        return False
    return calls.close.pattern.search(text, last.end()) is None


def _untyped(value: Any) -> Any:
    """What streamcall makes of an untyped tagged value: JSON when it starts like a number
    or a container and loads, a JSON literal when it is exactly one, else the text."""
    if not isinstance(value, str):
        return value
    if value[:1] and value[:1] in "{[-0123456789":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return {"true": True, "false": False, "null": None}.get(value, value)


def _arguments_mapped(message: dict[str, Any], how: Any) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(message))
    for call in out.get("tool_calls", []):
        fn = call.get("function", {})
        fn["arguments"] = how(fn.get("arguments"))
    return out


def _decoded(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def classify(
    fmt: str, text: str, tools: Any = None, template: Any = None
) -> tuple[str, dict[str, Any], Any]:
    """(category, streamcall's message, the template's message or the exception)."""
    exported = EXPORTED[fmt]
    template = exported.template if template is None else template
    want, incomplete = streamcall_message(text, fmt, tools)
    try:
        got: Any = parse_response(text, template, prefix="", tools=tools)
    except Exception as exc:
        got = exc
    if got == want:
        return "equal", want, got
    if incomplete or _ends_inside_a_call(template, text):
        return "cut", want, got
    if isinstance(got, Exception):
        return "raises", want, got
    if any(marker in want.get("content", "") for marker in exported.markers):
        return "markup_as_text", want, got
    if _arguments_mapped(got, _decoded) == want:
        return "string_arguments", want, got
    untyped = _arguments_mapped(
        got, lambda a: {k: _untyped(v) for k, v in a.items()} if isinstance(a, dict) else a
    )
    if not tools and untyped == want:
        return "untyped_values", want, got
    return "beyond", want, got
