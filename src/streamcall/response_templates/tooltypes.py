"""Tool-call arguments typed by the request's tools, as transformers types them.

A response template's content parsers give strings for most argument values
(``xml-inline``, ``kv-lines``); the request's tools say what each parameter is. Every
region value, as its region closes, goes through :func:`coerce_tool_calls`: a value of the
shape ``{"function": {"name": str, "arguments": dict}}`` (or a list of them) whose tool is
known has each **string** argument cast to the first of its parameter's types that fits
(:func:`schema_types`, :func:`coerce`); a list argument of a parameter that is not an
array (repeated keys merged by ``merge_duplicates``) has its string items cast. Anything
that does not fit stays the text it was. From transformers 5.25 (``versions``), the values
of ``json`` and ``python-call-list`` regions keep a parameter that allows ``string`` as
read, and a field with ``value_parser_by`` is not typed at all.
"""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["coerce", "coerce_tool_calls", "schema_types", "tool_parameters"]

ToolParameters = Mapping[str, Mapping[str, Any]]


def tool_parameters(tools: Iterable[Any] | None) -> dict[str, Mapping[str, Any]]:
    """Tool name -> its parameters' ``properties``, from tools in the shapes
    ``apply_chat_template`` takes: ``{"type": "function", "function": {...}}`` or a bare
    function dict. An entry without a string name is skipped, as are non-dicts.

    A Python function (which transformers turns into a schema with ``get_json_schema``) is
    a ``TypeError`` here: pass its JSON schema."""
    out: dict[str, Mapping[str, Any]] = {}
    for tool in tools or ():
        if inspect.isfunction(tool) or inspect.ismethod(tool):
            raise TypeError(
                f"tools: {tool.__qualname__} is a Python function; streamcall takes tools as "
                "JSON schemas (transformers.utils.get_json_schema makes one from a function)"
            )
        fn = tool.get("function", tool) if isinstance(tool, dict) else None
        if isinstance(fn, dict) and isinstance(fn.get("name"), str):
            parameters = fn.get("parameters")
            properties = parameters.get("properties") if isinstance(parameters, dict) else None
            out[fn["name"]] = properties if isinstance(properties, dict) else {}
    return out


def schema_types(schema: Any) -> tuple[str, ...]:
    """A parameter's candidate types, in the order they are tried: ``type`` (a string or
    a list), those of each ``anyOf`` then ``oneOf`` branch, then ``null`` if ``nullable``."""
    if not isinstance(schema, dict):
        return ()
    declared = schema.get("type")
    types: list[str] = [declared] if isinstance(declared, str) else []
    if isinstance(declared, list):
        types.extend(t for t in declared if isinstance(t, str))
    for union in ("anyOf", "oneOf"):
        for branch in schema.get(union) or []:
            types.extend(schema_types(branch))
    if schema.get("nullable") and "null" not in types:
        types.append("null")
    return tuple(types)


def _cast(raw: str, kind: str) -> tuple[bool, Any]:
    """(fits, value) of ``raw`` read as one JSON-schema type; raises ``ValueError`` for a
    failed read, which the caller treats as "does not fit"."""
    if kind == "integer":
        try:
            return True, int(raw)
        except ValueError:
            number = float(raw)  # a whole number written as a float ("3.0") is an integer
            return (True, int(number)) if number.is_integer() else (False, None)
    if kind == "number":
        number = float(raw)
        if math.isnan(number) or math.isinf(number):
            return False, None
        return True, int(number) if number.is_integer() and "." not in raw else number
    if kind == "boolean":
        word = raw.strip().lower()
        return (
            (True, word in ("true", "1")) if word in ("true", "1", "false", "0") else (False, None)
        )
    if kind == "null":
        return (True, None) if raw.strip() in ("null", "None") else (False, None)
    if kind in ("object", "array"):
        decoded = json.loads(raw)
        return isinstance(decoded, dict if kind == "object" else list), decoded
    return False, None  # "string" and unknown types cast nothing: the next type is tried


def coerce(raw: str, types: Iterable[str]) -> Any:
    """``raw`` as the first of ``types`` it fits, or ``raw`` itself."""
    for kind in types:
        try:
            fits, value = _cast(raw, kind)
        except ValueError:
            continue
        if fits:
            return value
    return raw


def coerce_tool_calls(value: Any, parameters: ToolParameters, *, keep_strings: bool = False) -> Any:
    """A region value with the string arguments of its calls typed (see the module).
    ``keep_strings`` leaves a parameter whose types allow ``string`` as it was read
    (transformers 5.25, for the parsers that tell a quoted string from a literal).

    Argument dicts are updated in place, as transformers does; lists are rebuilt."""
    if isinstance(value, list):
        return [coerce_tool_calls(item, parameters, keep_strings=keep_strings) for item in value]
    fn = value.get("function") if isinstance(value, dict) else None
    if not isinstance(fn, dict):
        return value
    name, arguments = fn.get("name"), fn.get("arguments")
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return value
    properties = parameters.get(name)
    if not properties:
        return value
    for key, argument in arguments.items():
        if key not in properties:
            continue
        types = schema_types(properties[key])
        if not types or (keep_strings and "string" in types):
            continue
        if isinstance(argument, str):
            arguments[key] = coerce(argument, types)
        elif isinstance(argument, list) and "array" not in types:
            arguments[key] = [coerce(x, types) if isinstance(x, str) else x for x in argument]
    return value
