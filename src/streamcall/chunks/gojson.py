"""Go's encoding/json where a chunk's semantics follow it: surrogates, numbers, re-encoding.

The chunk layer decodes as Go's ``encoding/json`` unmarshals (``decode``'s header); this
module holds the parts of Go's behaviour Python's ``json`` does not share. Rules: an
escaped lone surrogate becomes U+FFFD (``fix_surrogates``); a value that is not a string
where a string is wanted is re-encoded as ``json.Marshal(interface{})`` would
(``go_marshal``: a map's keys sorted, the last of duplicate keys winning, ``<``, ``>``,
``&``, U+2028 and U+2029 escaped); a number as Go writes a float64 (``go_float``). Pure
functions; a number out of a float64's range raises ``ChunkError``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from streamcall.chunks.delta import ChunkError

__all__ = ["fix_surrogates", "go_float", "go_marshal"]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def fix_surrogates(text: str) -> str:
    return _LONE_SURROGATE.sub("\ufffd", text)


_HTML_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)
_encode_string = json.JSONEncoder(ensure_ascii=False).encode


def go_marshal(value: Any, where: str) -> str:
    parts: list[str] = []
    _marshal_into(value, parts, where)
    return "".join(parts)


def _marshal_into(value: Any, out: list[str], where: str) -> None:
    kind = type(value)
    if kind is str:
        out.append(_encode_string(fix_surrogates(value)).translate(_HTML_ESCAPES))
    elif value is None:
        out.append("null")
    elif kind is bool:
        out.append("true" if value else "false")
    elif kind is int or kind is float:
        out.append(go_float(value, where))
    elif kind is list:
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _marshal_into(item, out, where)
        out.append("]")
    else:
        members = {fix_surrogates(k): v for k, v in value}  # a Go map: the last one wins
        out.append("{")
        for i, key in enumerate(sorted(members)):
            if i:
                out.append(",")
            out.append(_encode_string(key).translate(_HTML_ESCAPES))
            out.append(":")
            _marshal_into(members[key], out, where)
        out.append("}")


_REPR_PARTS = re.compile(r"(\d+)(?:\.(\d+))?(?:e([-+]\d+))?")


def go_float(number: int | float, where: str) -> str:
    """A number as Go's encoding/json writes a float64: shortest round trip, in exponent
    form below 1e-6 and from 1e21 up (``1e+21``, ``1e-7``), plain otherwise."""
    try:
        f = float(number)
    except OverflowError:
        raise ChunkError(f"{where}: number {number} is out of range for a float64") from None
    if f != f or f in (float("inf"), float("-inf")):
        raise ChunkError(f"{where}: number {number} is out of range for a float64")
    if f == 0:
        return "-0" if str(f).startswith("-") else "0"
    sign = "-" if f < 0 else ""
    match = _REPR_PARTS.fullmatch(repr(abs(f)))
    assert match is not None
    whole, frac, exp = match.group(1), match.group(2) or "", int(match.group(3) or 0)
    digits = (whole + frac).lstrip("0")
    # value = 0.DIGITS * 10**point
    point = len(whole) + exp - (len(whole + frac) - len((whole + frac).lstrip("0")))
    digits = digits.rstrip("0") or "0"
    abs_f = abs(f)
    if abs_f < 1e-6 or abs_f >= 1e21:
        e = point - 1
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if e < 0 else '+'}{abs(e):02d}".replace("e-0", "e-")
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"
