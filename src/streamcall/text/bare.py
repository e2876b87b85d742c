"""Objects written with bare keys and delimited strings, read as JSON.

Some models write arguments not as JSON but as ``{key:value,...}``: keys bare, strings
between a delimiter token instead of quotes (Gemma 4's ``<|"|>``, FunctionGemma's
``<escape>``), numbers, booleans and null bare. The parts of reading such an object that
know no format:

- ``bare_scalar(text)``: the JSON text of a bare scalar (a literal in any case, a
  number, exponents included, or else a string);
- ``BareMembers``: whole common members, each turned into its JSON text by one regex.

``BareMembers.read`` is a fast read (``streamcall.text.fast``). Where a key must come it
takes the members that are most of such an object, a plain key with a bare scalar or a
string free of the delimiter's first character, and a member cut by the end of the text
is held whole (at most ``MAX_MEMBER`` characters), so that it leaves in one piece with
the next chunk. Its reference path takes nothing: the caller reads the member token by
token (the key, its ':', the value, the ','), as it does every member the fast read
leaves. Both give the same JSON text.
"""

from __future__ import annotations

import re

from streamcall.text import fast
from streamcall.text.args import MAX_MEMBER
from streamcall.text.jsonstring import json_quote

__all__ = ["AFTER", "CUT", "KEY", "VALUE", "BareMembers", "bare_scalar"]

_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_JSON_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_LITERALS = frozenset(("true", "false", "null"))


def bare_scalar(text: str) -> str:
    """The JSON text for a bare scalar (blanks around it ignored).

    ``true`` and ``false`` are booleans; ``null``, ``none``, ``nil`` in any case, and
    nothing at all, are null; a JSON number is that number, its exponent included
    (``1e-05``, ``1e+21``: how Python, and so a Jinja template, writes small and large
    floats); other text with a '.' that parses as a finite float is that number; text
    that parses as an int is that number; anything else is a string.
    """
    s = text.strip()
    if s == "true" or s == "false":
        return s
    if s.lower() in ("null", "none", "nil") or not s:
        return "null"
    if _JSON_NUMBER.fullmatch(s):
        return s
    if "." in s:
        try:
            value = float(s)
        except ValueError:
            return json_quote(s)
        if value == value and value not in (float("inf"), float("-inf")):
            return repr(value)
        return json_quote(s)
    if _JSON_INT.fullmatch(s):
        return s
    try:
        return str(int(s))
    except ValueError:
        return json_quote(s)


#: ``BareMembers.read``: what comes after the members it took
KEY, AFTER, VALUE, CUT = 0, 1, 2, 3


class BareMembers:
    """Whole common members of a bare-key object, read as JSON (the module header).

    ``read(buf, pos, first, final) -> (json, end, next)`` starts where a key must come.
    ``json`` is the JSON text of the members taken from ``buf[pos:end]``, each with the
    ',' before it unless it is the object's ``first``; ``next`` says where the reading
    stopped:

    - ``KEY``: after a member's ',' (or nothing was taken: ``end == pos``): a key, a
      blank, the closer or anything else comes next, for the caller to read;
    - ``AFTER``: after a member's value, with no ',' after it;
    - ``VALUE``: after a key and its ':', the value not a common one (``json`` ends with
      the key's ``"key":``);
    - ``CUT``: ``buf[end:]`` is a common member cut by the end of ``buf``, to be held
      (never at the end of the stream, nor past ``MAX_MEMBER`` characters).

    A common member is a plain key (a letter or '_', then at most 510 word characters, '.'
    or '-': a longer key is the caller's to judge), its ':', and a bare scalar of word
    characters, '.', '+' or '-' that a ',', '}' or ']' ends, or a string between two
    delimiters with no delimiter's first character in it; then its ',', if one follows
    right away.
    """

    __slots__ = ("_member",)

    def __init__(self, delimiter: str) -> None:
        quote = re.escape(delimiter)
        plain = "[^" + re.escape(delimiter[0]) + "]*"
        cut_quote = "|".join(re.escape(delimiter[:i]) for i in range(1, len(delimiter)))
        # Groups: key, colon, scalar, string, comma, a value cut by the end of the text.
        self._member = re.compile(
            rf"([A-Za-z_][\w.\-]{{0,510}})(?:(:)(?:(?:([\w.+\-]+)(?=[,}}\]])|{quote}({plain}){quote})"
            rf"(,?)|([\w.+\-]*|(?:{quote}{plain})?(?:{cut_quote})?)\Z)?)?"
        ).match

    def read(self, buf: str, pos: int, first: bool, final: bool) -> tuple[str, int, int]:
        if not fast.FAST:  # the reference path: the caller reads token by token
            return "", pos, KEY
        member = self._member
        pieces: list[str] = []
        comma = "" if first else ","
        while True:
            m = member(buf, pos)
            if m is None:
                return "".join(pieces), pos, KEY
            key, colon, scalar, string, sep, cut = m.groups()
            if colon is None or cut is not None:  # not a whole member
                n = len(buf)
                if m.end() == n and not final and n - pos <= MAX_MEMBER:
                    return "".join(pieces), pos, CUT  # one cut by the end of buf
                return "".join(pieces), pos, KEY
            # (a key of word characters needs no JSON escaping)
            if scalar is not None:
                if scalar in _LITERALS or (
                    scalar.isascii() and scalar.isdigit() and scalar[0] != "0"
                ):
                    pieces.append(f'{comma}"{key}":{scalar}')  # bare_scalar's common cases
                else:
                    pieces.append(f'{comma}"{key}":{bare_scalar(scalar)}')
            elif string is not None:
                pieces.append(f'{comma}"{key}":{json_quote(string)}')
            else:  # the key and its ':'; the value is the caller's
                pieces.append(f'{comma}"{key}":')
                return "".join(pieces), m.end(), VALUE
            pos = m.end()
            if not sep:
                return "".join(pieces), pos, AFTER
            comma = ","
