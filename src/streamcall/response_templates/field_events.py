"""What each field of a response template is to the events, and the calls in a value.

``stream.ResponseStream`` reads regions; this module says what their text becomes. Rules:
the ``content`` field's text is ``Text`` and a thinking field's (``thinking``,
``reasoning_content``, ``reasoning``) is ``Reasoning``, streamed as it is read only when
the field's content is ``text`` without a transform (``stream_kind``); the
``tool_calls`` field's value holds the calls (``calls_of``), and its arguments stream from
the opener on only where the region's body is the arguments JSON itself and no tool
would type them differently (``streamed_call_name``). Pure functions of the compiled
field; no state.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from streamcall.events import Reasoning, Text
from streamcall.response_templates.compiled import Field
from streamcall.response_templates.tooltypes import schema_types, tool_parameters

__all__ = [
    "CALL_FIELDS",
    "CONTENT_FIELDS",
    "REASONING_FIELDS",
    "calls_of",
    "stream_kind",
    "streamed_call_name",
    "strips",
]

CONTENT_FIELDS = frozenset({"content"})
REASONING_FIELDS = frozenset({"thinking", "reasoning_content", "reasoning"})
CALL_FIELDS = frozenset({"tool_calls"})


def stream_kind(field: Field) -> type[Text] | type[Reasoning] | None:
    """The event a field's text is streamed as, if it is streamed as it arrives."""
    if field.content != "text" or field.transform is not None:
        return None
    if not isinstance(field.content_args, dict):
        return None
    if field.name in CONTENT_FIELDS:
        return Text
    if field.name in REASONING_FIELDS:
        return Reasoning
    return None


def strips(field: Field) -> bool:
    return bool(field.content_args.get("strip", True))


def streamed_call_name(field: Field, captures: Mapping[str, str], tools: list[Any]) -> str | None:
    """The call's name when its arguments can stream from the opener on: a ``tool_calls``
    field whose body is the arguments (``json`` without dialect knobs, the transform
    ``{..., "function": {"name": "{NAME}", "arguments": "{content}"}}`` with ``NAME`` a
    capture of the opener) and no tool that would type them differently."""
    if field.name not in CALL_FIELDS or field.content != "json" or field.transform_each:
        return None
    args = field.content_args
    if not isinstance(args, dict) or args.get("string_delims") or args.get("unquoted_keys"):
        return None
    if args.get("allow_non_json"):
        return None
    transform = field.transform
    fn = transform.get("function") if isinstance(transform, dict) else None
    if not isinstance(fn, dict) or fn.get("arguments") != "{content}":
        return None
    name_ref = fn.get("name")
    if not isinstance(name_ref, str):
        return None
    m = re.fullmatch(r"\{(\w+)\}", name_ref)
    if m is None or m.group(1) not in captures:
        return None
    name = captures[m.group(1)]
    if _typed_tool(name, tools):
        return None
    return name


def _typed_tool(name: str, tools: list[Any]) -> bool:
    """Whether the request's tools could type a string argument of ``name`` as something
    else (a parameter with a type other than ``string``): then the arguments come whole, as
    ``parse_response`` types them, instead of streaming as written."""
    properties = tool_parameters(tools).get(name) or {}
    return any(
        any(kind != "string" for kind in schema_types(schema)) for schema in properties.values()
    )


def calls_of(value: Any) -> Iterable[tuple[str, str]]:
    """``(name, arguments JSON)`` of every call in a ``tool_calls`` region's value."""
    items = value if isinstance(value, list) else [value]
    for item in items:
        if isinstance(item, list):
            yield from calls_of(item)
            continue
        fn = item.get("function") if isinstance(item, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            continue
        arguments = fn.get("arguments")
        if isinstance(arguments, dict):
            yield fn["name"], json.dumps(arguments, ensure_ascii=False)
        elif arguments is None:
            yield fn["name"], "{}"
