"""Schema typing: how the request's tool schemas type the values a model writes as text.

The XML-parameter engines (``engines.xml_params`` and the formats built on it, MiniMax-M3's nested
elements included) write every argument value as untyped text; this module decides what
JSON each becomes. Nothing here reads model output incrementally: it answers questions
about a schema (once per call or per parameter) and converts a value that is whole.

- ``tool_properties(tools, name)``: a tool's property schemas, with those the branches of
  a top-level ``allOf``/``anyOf``/``oneOf`` declare (``schema_properties``) and local
  ``$ref``s resolved (``#/$defs/...``, ``#/definitions/...``; a cycle is left untyped).
- ``value_plan(schema)``: how a value with this property schema is read, and the JSON
  types it allows besides null. The plans:

  - ``STRING``: typed ``string`` only: a JSON string whose body the engine streams as it
    arrives;
  - ``NULLABLE_STRING``: ``string`` or ``null``: streamed as a string unless it may still
    become exactly ``null``;
  - ``HELD``: typed otherwise (integer, number, boolean, object, array, unions): held to
    its terminator, then converted by ``convert_value``;
  - ``AUTO``: untyped (no schema for the tool or the key, or a schema that allows
    anything): decided by the value's first character, so that nothing streamed ever
    needs to be taken back. ``{`` ``[`` ``-`` or a digit (``AUTO_JSON_START``): held and
    loaded as JSON (a string if it does not load); text that may still become exactly
    ``true``, ``false`` or ``null`` (``LITERALS``): held and emitted as that literal if it
    is; anything else: a string.

  Type names are read case-insensitively, with the aliases some templates write
  (``int``, ``float``, ``dict``, ``list``, ``bool``, ``str``, ``enum``...; ``_TYPE_ALIASES``).
  An ``enum`` or ``const`` types a value by its members; ``properties`` or ``items``
  without a ``type`` mean an object or an array.
- ``convert_value(raw, types)``: the JSON text of a held value (see its docstring for the
  rules: a value becomes JSON of a type the schema allows, else the string it is);
  ``whole_value_json(plan, types, raw)``: a whole value by its plan, as streaming it gives;
  ``quoted_string_json(raw)``: an untyped value written as a JSON string, decoded.
- ``container_schema`` and ``convert_element``: the same typing for a tree of elements
  (MiniMax-M3, whose parameters hold nested elements), following vLLM's conversion.

A ``{"type": NAME}`` schema, the common one, is planned once per type name (a small
cache); any other schema is planned each time it is asked.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from typing import Any

from streamcall.text import MAX_DEPTH, json_quote, too_deep

__all__ = [
    "AUTO",
    "AUTO_JSON_START",
    "HELD",
    "LITERALS",
    "NULLABLE_STRING",
    "STRING",
    "Element",
    "compact_json",
    "container_schema",
    "convert_element",
    "convert_value",
    "json_value_as",
    "load_json",
    "quoted_string_json",
    "schema_properties",
    "tool_properties",
    "value_plan",
    "whole_value_json",
    "wrapped_arguments",
    "written_type_plan",
]

# value plans
STRING, HELD, AUTO, NULLABLE_STRING = 0, 1, 2, 3

#: the first characters that make an untyped value JSON (held and loaded)
AUTO_JSON_START = frozenset("{[-0123456789")
#: the words an untyped value is emitted as, unquoted, when it is exactly one of them
LITERALS = ("true", "false", "null")

_INTEGER = re.compile(r"[+-]?[0-9]+")
#: compact JSON text, non-ASCII kept, NaN and infinities refused
compact_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode

_TYPE_ALIASES = {
    "str": "string",
    "text": "string",
    "varchar": "string",
    "char": "string",
    "enum": "string",
    "bool": "boolean",
    "binary": "boolean",
    "int": "integer",
    "float": "number",
    "double": "number",
    "list": "array",
    "dict": "object",
    "map": "object",
}


def _collect_types(schema: Any, into: set[str]) -> bool:
    """Collect the JSON types a schema allows; False if some branch allows anything."""
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if isinstance(kind, str):
        into.add(_TYPE_ALIASES.get(kind.lower(), kind.lower()))
        return True
    if isinstance(kind, list):
        into.update(_TYPE_ALIASES.get(str(k).lower(), str(k).lower()) for k in kind)
        return bool(kind)
    for union in ("anyOf", "oneOf"):
        branches = schema.get(union)
        if isinstance(branches, list) and branches:
            return all(_collect_types(b, into) for b in branches)
    enum = schema.get("enum")
    if "const" in schema:
        enum = [schema["const"]]
    if isinstance(enum, list) and enum:
        for v in enum:
            into.add(
                "null"
                if v is None
                else "boolean"
                if isinstance(v, bool)
                else "string"
                if isinstance(v, str)
                else "number"
                if isinstance(v, int | float)
                else "array"
                if isinstance(v, list)
                else "object"
            )
        return True
    if "properties" in schema:
        into.add("object")
        return True
    if "items" in schema:
        into.add("array")
        return True
    return False


def tool_properties(tools: list[dict[str, Any]], function: str) -> dict[str, Any]:
    """The property schemas of the tool named ``function`` (``{}`` if there is none), those
    of a top-level union included: a tool whose ``parameters`` is a ``oneOf`` of objects
    still types its values. A plain ``parameters`` object is returned as it is."""
    for tool in tools:
        fn = tool.get("function", tool) if isinstance(tool, dict) else None
        if isinstance(fn, dict) and fn.get("name") == function:
            params = fn.get("parameters")
            if isinstance(params, dict) and not any(
                u in params for u in ("allOf", "anyOf", "oneOf", "$ref", "$defs", "definitions")
            ):
                props = params.get("properties")  # the common schema, as it is
                return props if isinstance(props, dict) else {}
            return schema_properties(params)
    return {}


def schema_properties(parameters: Any) -> dict[str, Any]:
    """The property schemas of a tool's ``parameters``, with those its ``allOf``/
    ``anyOf``/``oneOf`` branches declare (a top-level union of objects): a key that
    several places declare gets the ``anyOf`` of their schemas. Local ``$ref``s
    (``#/$defs/...``, ``#/definitions/...``) are resolved; a cycle is left untyped."""
    found: dict[str, list[Any]] = {}
    if isinstance(parameters, dict):
        parameters = _resolve_refs(parameters, parameters, 0)
    _collect_properties(parameters, found, 0)
    return {k: v[0] if len(v) == 1 else {"anyOf": v} for k, v in found.items()}


#: how deep ``$ref``s are followed and schemas walked (a cycle ends there, untyped)
_MAX_SCHEMA_DEPTH = 16
#: keys whose values are data, not schemas
_DATA_KEYS = frozenset(("enum", "const", "default", "examples", "required"))


def _resolve_refs(schema: Any, root: dict[str, Any], depth: int) -> Any:
    if depth > _MAX_SCHEMA_DEPTH:
        return {}
    if isinstance(schema, list):
        return [_resolve_refs(s, root, depth + 1) for s in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target: Any = root if ref.startswith("#") else None
        for part in ref[2:].split("/") if ref.startswith("#/") else ():
            part = part.replace("~1", "/").replace("~0", "~")
            target = target.get(part) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            return {}
        return _resolve_refs(target, root, depth + 1)
    return {
        k: v if k in _DATA_KEYS else _resolve_refs(v, root, depth + 1) for k, v in schema.items()
    }


def _collect_properties(schema: Any, into: dict[str, list[Any]], depth: int) -> None:
    if not isinstance(schema, dict) or depth > 8:
        return
    props = schema.get("properties")
    if isinstance(props, dict):
        for key, sub in props.items():
            seen = into.setdefault(key, [])
            if sub not in seen:
                seen.append(sub)
    for union in ("allOf", "anyOf", "oneOf"):
        branches = schema.get(union)
        if isinstance(branches, list):
            for branch in branches:
                _collect_properties(branch, into, depth + 1)


def value_plan(schema: Any) -> tuple[int, frozenset[str]]:
    """How a value with this property schema is read: (plan, non-null types)."""
    if type(schema) is dict:
        kind = schema.get("type")
        if type(kind) is str:  # the common schema, planned once per type name
            return _type_name_plan(kind)
    return _general_plan(schema)


@functools.lru_cache(maxsize=64)
def _type_name_plan(kind: str) -> tuple[int, frozenset[str]]:
    return _general_plan({"type": kind})


def _general_plan(schema: Any) -> tuple[int, frozenset[str]]:
    types: set[str] = set()
    if schema is None or not _collect_types(schema, types):
        return AUTO, frozenset()
    nullable = "null" in types
    types.discard("null")
    if types == {"string"}:
        return (NULLABLE_STRING if nullable else STRING), frozenset(types)
    if not types:
        return AUTO, frozenset()
    return HELD, frozenset(types)


def written_type_plan(schema: Any, written: str) -> tuple[int, frozenset[str]]:
    """The plan of a value whose type the model wrote beside it (K2 Horizon's
    ``<ifm|arg_type>``; ``array[string]`` names ``array``). A typed schema wins, narrowed
    to the written type where it allows that one among others; an untyped one (or none)
    takes the written type, and ``any`` keeps the text, a string."""
    plan, types = value_plan(schema)
    base = written.split("[", 1)[0].strip().lower()
    if not base:
        return plan, types
    if plan != AUTO:
        if len(types) > 1:
            narrowed = value_plan({"type": base})
            if narrowed[1] and narrowed[1] <= types:
                return narrowed
        return plan, types
    if base == "any":
        return STRING, frozenset(("string",))
    return value_plan({"type": base})


def json_value_as(raw: str, plan: int, types: frozenset[str]) -> str:
    """A whole JSON value the model wrote for a parameter whose plan did not stream it
    (``engines.json_members``), as the schema types it. For a string parameter, a value that is
    not a string is its JSON text as a string (``null`` stays null where null is
    allowed). For a typed parameter, ``convert_value`` converts it, a JSON string read
    inside its quotes (``"2"`` for an integer is 2); where that gives no type the schema
    allows, the model's own value stays."""
    text = raw.strip()
    if plan == STRING or plan == NULLABLE_STRING:
        if text == "null" and plan == NULLABLE_STRING:
            return "null"
        return text if text[:1] == '"' else json_quote(text)
    if text[:1] == '"':
        if "string" in types or not types:
            return text
        try:
            inner = load_json(text)
        except ValueError:
            return text
        converted = convert_value(inner, types) if isinstance(inner, str) else text
        return text if converted[:1] == '"' else converted
    if not types:
        return text
    converted = convert_value(text, types)
    return text if converted[:1] == '"' and "string" not in types else converted


def whole_value_json(plan: int, types: frozenset[str], raw: str) -> str:
    """The JSON text of a value read whole, by its plan: what streaming it by that plan
    gives, at once. ``STRING``: the string; ``HELD``: ``convert_value``; ``AUTO``: JSON if
    its first character is in ``AUTO_JSON_START``, one of ``LITERALS`` as it is, else the
    string; ``NULLABLE_STRING``: ``null`` if it is exactly that, else the string."""
    if plan == STRING:
        return json_quote(raw)
    if plan == HELD:
        return convert_value(raw, types)
    if plan == AUTO:
        if raw[:1] in AUTO_JSON_START:
            return convert_value(raw, types)
        return raw if raw in LITERALS else json_quote(raw)
    return "null" if raw == "null" else json_quote(raw)  # NULLABLE_STRING


def quoted_string_json(raw: str) -> str:
    """The JSON text of an untyped value that starts with ``"``: the string it encodes
    when it is one JSON string (``"a \\"b\\""``), else its raw text as a string."""
    try:
        value = load_json(raw)
    except ValueError:
        return json_quote(raw)
    return json_quote(value if isinstance(value, str) else raw)


def flagged_json_value(raw: str, types: frozenset[str]) -> str:
    """The JSON text of a DSML/GCML value written with ``string="false"``: JSON, held. A
    JSON string is the string it encodes where the schema allows a string or says nothing
    (``"hello"`` is ``hello``, as vLLM's ``json.loads`` of the value has it); anything else
    is a held value of its types (``convert_value``)."""
    s = raw.strip()
    if len(s) > 1 and s[0] == s[-1] == '"' and (not types or "string" in types):
        try:
            value = load_json(s)
        except ValueError:
            value = None
        if isinstance(value, str):
            return json_quote(value)
    return convert_value(raw, types)


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def load_json(text: str) -> Any:
    return json.loads(text, parse_constant=_reject_constant)


def _container_json(text: str) -> str | None:
    """JSON text for an object or array written as JSON or as a Python literal; None past
    ``MAX_DEPTH`` - 1 levels (a value sits inside the arguments object)."""
    if too_deep(text, MAX_DEPTH - 1):
        return None
    try:
        return compact_json(load_json(text))
    except (ValueError, RecursionError):
        pass
    if text[:1] not in ("{", "["):
        return None
    try:
        return compact_json(ast.literal_eval(text))
    except Exception:  # literal_eval and encode raise many kinds; all mean "not this"
        return None


#: the JSON type of a value by the first character of its JSON text
_JSON_TYPE_BY_FIRST = {"{": "object", "[": "array", '"': "string", "t": "boolean", "f": "boolean"}


def _type_allowed(text: str, types: frozenset[str]) -> bool:
    """Whether the JSON text's type is one the schema allows."""
    kind = _JSON_TYPE_BY_FIRST.get(text[:1], "number")
    return kind in types or (kind == "number" and "integer" in types)


def convert_value(raw: str, types: frozenset[str]) -> str:
    """The JSON text of a held value. ``types`` empty means untyped (auto).

    A typed value becomes JSON of a type the schema allows, else the string it is (when
    a string is allowed): ``7`` for ``["string", "object"]`` stays ``"7"``, ``null`` for
    ``["string", "integer"]`` stays ``"null"``. A number or boolean written as a JSON
    string (``"42"``) for a schema without strings is read inside its quotes.
    """
    s = raw.strip()
    if not types:
        if s == "null":
            return "null"
        loaded = _container_json(s) if s[:1] in AUTO_JSON_START else None
        if loaded is not None:
            return loaded
        return s if s in LITERALS else json_quote(raw)
    if s == "null":
        return json_quote(raw) if "string" in types else "null"
    if len(s) > 1 and s[0] == s[-1] == '"' and "string" not in types:
        try:
            inner = load_json(s)
        except ValueError:
            inner = None
        if isinstance(inner, str) and inner.strip() and inner.strip()[0] not in '"{[':
            text = convert_value(inner, types)
            if _type_allowed(text, types) and text[:1] != '"':
                return text
    if "boolean" in types and s.lower() in ("true", "false"):
        return s.lower()
    if "integer" in types and _INTEGER.fullmatch(s):
        return str(int(s))
    if "number" in types or "integer" in types:
        try:
            number = float(s)
        except ValueError:
            pass
        else:
            if number == number and abs(number) != float("inf"):
                if _INTEGER.fullmatch(s):
                    return str(int(s))
                if "integer" in types and "number" not in types and number.is_integer():
                    return str(int(number))
                return repr(number)
    if types - {"string", "boolean", "integer", "number"}:
        loaded = _container_json(s)
        if loaded is not None and ("string" not in types or _type_allowed(loaded, types)):
            return loaded
    return json_quote(raw)


#: a MiniMax-M3 parameter's content: its text, or its child elements as (name, content)
Element = str | list[tuple[str, "Element"]]


def container_schema(schema: Any) -> tuple[str, dict[str, Any]] | None:
    """The first array or object alternative of a property schema: ``("array", schema)``
    or ``("object", schema)``, searching ``anyOf``/``oneOf`` branches; None if it has none."""
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    for name in ("array", "object"):
        if kind == name or (isinstance(kind, list) and name in kind):
            return name, schema
    if kind is None:
        if "items" in schema:
            return "array", schema
        if "properties" in schema or "additionalProperties" in schema:
            return "object", schema
    for union in ("anyOf", "oneOf"):
        for branch in schema.get(union) or ():
            found = container_schema(branch)
            if found is not None:
                return found
    return None


def convert_element(element: Element, schema: Any) -> str:
    """JSON text of an element, typed by its schema (``None``: untyped, a string).

    Text is typed as ``convert_value`` types it; empty text of an array or object type
    (and no string allowed) is ``[]`` or ``{}``, as the template writes an empty list or
    dict. Children are an array's items when the schema says array, else an object's
    members, each typed by its property (or ``additionalProperties``); a repeated child
    name collects its values into a list.
    """
    if not isinstance(schema, dict):
        schema = None
    container = container_schema(schema)
    if isinstance(element, str):
        if schema is None:
            return json_quote(element)
        plan, types = value_plan(schema)
        if plan in (STRING, NULLABLE_STRING):
            return json_quote(element)
        if container is not None and "string" not in types and not element.strip():
            return "[]" if container[0] == "array" else "{}"  # the template's empty list/dict
        return convert_value(element, types)
    if container is not None and container[0] == "array":
        items = container[1].get("items")
        return "[" + ",".join(convert_element(child, items) for _, child in element) + "]"
    props: Any = container[1].get("properties") if container is not None else None
    extra: Any = container[1].get("additionalProperties") if container is not None else None
    if not isinstance(props, dict):
        props = {}
    members: dict[str, list[str]] = {}
    for name, child in element:
        members.setdefault(name, []).append(convert_element(child, props.get(name, extra)))
    return (
        "{"
        + ",".join(
            json_quote(name) + ":" + (vals[0] if len(vals) == 1 else "[" + ",".join(vals) + "]")
            for name, vals in members.items()
        )
        + "}"
    )


def wrapped_arguments(raw: str, properties: dict[str, Any]) -> dict[str, Any] | None:
    """The arguments a wrapper parameter holds (DSML's ``arguments`` or ``input``): its
    value as a JSON object, raw or as a JSON string holding one, whose keys are all the
    tool's ``properties``; None if it is not that."""
    try:
        value = load_json(raw)
        if isinstance(value, str):
            value = load_json(value)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, dict) and all(k in properties for k in value):
        return value
    return None
