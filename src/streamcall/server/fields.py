"""What a request's members must be, checked before anything is sent upstream.

Each client API's translator (and the chat route's validation) names the members it reads
with the JSON type each must have; a member of the wrong type is a 400 that names it and
says what it must be, in the route's own words (``where``), rather than a value forwarded
for the upstream to trip on (``temperature: "hot"``) or a request quietly read otherwise.
``None`` passes: a member sent as ``null`` is the same as one left out.

Kinds: ``number`` (an int or a float, not a boolean), ``integer``, ``string``, ``boolean``,
``object``, ``list``, ``strings`` (a string or a list of strings).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from streamcall.server.api import BadRequest

__all__ = ["check_types", "kind_error"]


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _strings(value: Any) -> bool:
    return isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(v, str) for v in value)
    )


_KINDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "number": (_number, "a number"),
    "integer": (_integer, "an integer"),
    "string": (lambda v: isinstance(v, str), "a string"),
    "boolean": (lambda v: isinstance(v, bool), "a boolean"),
    "object": (lambda v: isinstance(v, dict), "an object"),
    "list": (lambda v: isinstance(v, list), "a list"),
    "strings": (_strings, "a string or a list of strings"),
}


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "null"


def kind_error(value: Any, kind: str) -> str | None:
    """Why ``value`` is not of ``kind`` (what it must be, and what it is), or None."""
    test, say = _KINDS[kind]
    if value is None or test(value):
        return None
    shown = repr(value) if isinstance(value, str | int | float) else _json_type(value)
    return f"must be {say}, not {shown}"


def check_types(
    body: Mapping[str, Any],
    table: Mapping[str, str],
    where: Callable[[str], str] = lambda key: f"'{key}'",
) -> None:
    """Raises ``BadRequest`` for the first member of ``body`` named in ``table`` whose
    value is not of its kind; ``where`` names a member as the route's errors do."""
    for key, kind in table.items():
        if key in body:
            why = kind_error(body[key], kind)
            if why is not None:
                raise BadRequest(f"{where(key)} {why}", key)
