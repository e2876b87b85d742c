"""JSON strings: decoding a string body as it arrives, quoting, and the patterns for it.

- ``decode_json_string``: decode the body of a JSON string as it arrives. It holds back a
  cut ``\\``, a cut ``\\uXXXX`` and a high surrogate whose low half has not arrived yet
  (at most 12 characters).
- ``decode_string_run``: decode a run of body that holds only whole escapes.
- ``raw_offset``: the way back from a position in decoded text to the model's own.
- ``json_quote``: the JSON literal of a text, by the C escaper.
- ``decode_string_literal``: one whole string literal decoded at once, by the optional
  compiled JSON library (orjson, the ``fast`` extra) where it is installed and the literal
  is long and ASCII, else by json's C scanner. orjson is strict (no raw control character, no lone
  surrogate): a literal it refuses is json's scanner's, so the result never depends on
  whether it is installed.
- The nested-string patterns: a JSON string whose decoded text is itself JSON text
  (arguments written as a string of escaped JSON, Granite 4), read without decoding it
  first (``streamcall.text.args.EncodedArgs`` uses them).

The patterns (``STRING_RUN``, ``CUT_ESCAPE``, ``HIGH_SURROGATE_TAIL``, ``CONTROL``) are the
ones partial JSON reads strings with too (``streamcall.partial``).
"""

from __future__ import annotations

import json
import re
from _json import scanstring as _scanstring  # the C scanner: (text, end, strict)
from collections.abc import Callable
from typing import Any

from streamcall.text import fast

_compiled_loads: Callable[[str], Any] | None
try:  # the optional compiled JSON library (the ``fast`` extra); pure Python without it
    from orjson import loads as _compiled_loads
except ImportError:  # pragma: no cover - depends on what is installed
    _compiled_loads = None

__all__ = [
    "COMPILED_MIN",
    "CONTROL",
    "CUT_ESCAPE",
    "HIGH_SURROGATE_TAIL",
    "STRICT_RUN",
    "STRING_RUN",
    "compiled_string_reads",
    "decode_json_string",
    "decode_string_literal",
    "decode_string_run",
    "json_quote",
    "nested_member_cut",
    "nested_members",
    "nested_plain_run",
    "nested_string_cut",
    "nested_string_run",
    "raw_offset",
]

# The starred patterns always match, so their ``.match(...)`` is never None.

#: A run of string body with complete escapes only; stops at '"', at a cut or invalid
#: escape, or at the end of the buffer. Raw control characters are allowed here (the
#: decoder is lenient); ``STRICT_RUN`` is the strict one. The quantifiers are possessive:
#: nothing follows them, so the match ends where a greedy one would, but the engine keeps
#: no backtracking state per escape (a long string with many escapes in one piece).
STRING_RUN = re.compile(r'[^"\\]*+(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\]*+)*+')
#: ``STRING_RUN`` without raw control characters (RFC 8259's string body).
STRICT_RUN = re.compile(
    r'[^"\\\x00-\x1f]*+(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*+)*+'
)
#: What may follow a backslash while more text is still to come (``fullmatch`` it).
CUT_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{0,3})?")
#: The escape of a high surrogate, whose low half may come next.
HIGH_SURROGATE_TAIL = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}")
#: A raw control character (invalid inside a JSON string).
CONTROL = re.compile(r"[\x00-\x1f]")
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


#: ``json_quote(text)``: the JSON string literal for ``text`` (non-ASCII kept as is).
#: ``json.dumps(text, ensure_ascii=False)`` builds an encoder on every call; this is the C
#: escaper it ends up calling, itself (not wrapped: it runs once per argument piece, and a
#: Python frame around it cost more than the escaping of a short piece).
json_quote: Callable[[str], str] = json.encoder.encode_basestring


#: From this length on ``decode_string_literal`` tries the compiled library: below it, its
#: call and the copy to UTF-8 cost more than json's scanner saves (docs/performance.md).
COMPILED_MIN = 64


def compiled_string_reads() -> bool:
    """Whether ``decode_string_literal`` hands long ASCII literals to the compiled library."""
    return fast.FAST and _compiled_loads is not None


def decode_string_literal(literal: str) -> str | None:
    """The text of ``literal``, a JSON string literal with its quotes, read leniently as
    json's scanner reads it (raw control characters allowed, a lone surrogate escape kept as
    the surrogate); None if the literal ends before its last character (a quote inside it
    that is not escaped). Raises ``ValueError`` on an invalid escape.

    The fast read: orjson, if installed and the literal is ASCII and at least
    ``COMPILED_MIN`` long; it decodes an escape-dense literal several times faster (a
    non-ASCII one it must first encode to UTF-8, and with astral characters that costs more
    than it saves, so such a literal takes the reference read). What it refuses (a control
    character, a lone surrogate, a quote before the end) goes to the reference read, json's
    scanner, which is also the read with ``streamcall.text.fast`` off.
    """
    loads = _compiled_loads
    if loads is not None and fast.FAST and len(literal) >= COMPILED_MIN and literal.isascii():
        try:
            value = loads(literal)
        except ValueError:  # orjson.JSONDecodeError is a ValueError
            pass
        else:
            if isinstance(value, str):
                return value
    decoded, end = _scanstring(literal, 1, False)
    return decoded if end == len(literal) else None


def decode_string_run(run: str) -> str:
    """Decode a run of string body that holds only whole escapes.

    An escape of a lone surrogate becomes U+FFFD. A lone surrogate written raw (only a
    ``str`` given by the caller can hold one) is text like any other and stays, whichever
    run it falls in, so that the outcome does not depend on the chunking.
    """
    if "\\" not in run:
        return run  # nothing to decode: the common case for long values
    decoded: str = _scanstring(run + '"', 0, False)[0]
    if "\\u" in run and _LONE_SURROGATE.search(decoded) is not None:
        if _LONE_SURROGATE.search(run) is None:
            return _LONE_SURROGATE.sub("\ufffd", decoded)
        # Raw ones too: decode the text between them (an escape never spans one).
        pieces = _LONE_SURROGATE.split(run)
        raw = _LONE_SURROGATE.findall(run)
        out = [decode_string_run(pieces[0])]
        for char, piece in zip(raw, pieces[1:], strict=True):
            out.append(char)
            out.append(decode_string_run(piece))
        decoded = "".join(out)
    return decoded


def decode_json_string(buf: str, pos: int, final: bool = False) -> tuple[str, int, int]:
    """Decode a JSON string body starting at ``pos`` (just after the opening quote).

    Returns ``(decoded, resume, status)``. ``status`` is 1 when the closing quote was read
    (``resume`` is just past it), 0 when more text is needed (``buf[resume:]`` is a cut
    escape to hold back), and -1 when ``buf[resume]`` starts an invalid escape. A lone
    surrogate becomes U+FFFD.
    """
    n = len(buf)
    end = STRING_RUN.match(buf, pos).end()  # type: ignore[union-attr]
    if end < n and buf[end] == '"':
        return (decode_string_run(buf[pos:end]) if end > pos else ""), end + 1, 1
    if end < n and (CUT_ESCAPE.fullmatch(buf, end) is None or final):
        # a backslash that does not start a complete escape, and never will
        return (decode_string_run(buf[pos:end]) if end > pos else ""), end, -1
    # More text is needed (the end of the buffer, or a cut escape to hold back). A high
    # surrogate escape just before that point is held too: its low half may come next.
    # Only a real escape (an odd run of backslashes) counts.
    if not final and end - pos >= 6 and HIGH_SURROGATE_TAIL.fullmatch(buf, end - 6, end):
        run = end - 6 - pos - len(buf[pos : end - 6].rstrip("\\"))
        if run % 2 == 0:
            end -= 6
    return (decode_string_run(buf[pos:end]) if end > pos else ""), end, 0


# One escape of a JSON string body as ``decode_string_run`` reads it: a surrogate pair, any
# other ``\uXXXX``, or a one-character escape. Each decodes to exactly one character, and so
# does every character outside an escape.
_ESCAPE_UNIT = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\."
)


def raw_offset(buf: str, start: int, end: int, count: int) -> int:
    """Where, in the string body ``buf[start:end]`` (whole escapes only), the text that
    decodes to its first ``count`` characters ends: the way back from a position in
    decoded text to the model's own. One step per escape, none per character."""
    at = start
    done = 0
    for m in _ESCAPE_UNIT.finditer(buf, start, end):
        plain = m.start() - at
        if done + plain >= count:
            break
        done += plain + 1
        at = m.end()
        if done == count:
            return at
    return at + (count - done)


# --- Strings of escaped JSON --------------------------------------------------------------
# A JSON-string body whose decoded text is itself JSON (Granite 4's string arguments), read
# as written, without decoding it first. Each pattern says which pieces of such a body
# decode by a ``replace`` and leave the inner JSON scan where it was.

#: Body whose decoded text is itself the body of an inner JSON string (read while the inner
#: scan is inside a string). Units: a character that stands for itself, an escaped '/', or
#: an escaped backslash that starts a whole inner escape (the inner '"', '\\' and '/'
#: escaped again). It leaves out outer \uXXXX escapes and escaped control characters (the
#: reference path takes those). Where ``buf[pos:]`` stops being such a body:
#: ``nested_string_run(buf, pos).end()``.
nested_string_run = re.compile(
    r'(?:[^"\\\x00-\x1f]++|\\/|\\\\(?:\\["\\/]|[/bfnrt]|u[0-9a-fA-F]{4}))*+'
).match
#: The same between the inner tokens: characters that stand for themselves and escaped
#: quotes (the inner strings' quotes) only, so that the decoding is a ``replace``.
nested_plain_run = re.compile(r'(?:[^"\\\x00-\x1f]++|\\")*+').match
#: Is ``buf[pos:]`` the start of one unit of a nested body, cut by the end of the text?
nested_string_cut = re.compile(r"\\(?:\\(?:\\|u[0-9a-fA-F]{0,3})?)?").fullmatch

# Whole members of the object inside such a string, each with its ',' (``\"key\": 1, ``):
# a key and a string value with no escape of their own, a number or a keyword, and spaces.
# Their decoding is a ``replace`` of the escaped quotes, and they leave the inner scan
# where it was (a key must come next). Read where the inner scan expects a key.
_NESTED_TEXT = r'\\"[^"\\\x00-\x1f]*\\"'
#: Where ``buf[pos:]`` stops being whole members: ``nested_members(buf, pos).end()``.
nested_members = re.compile(
    rf" *+(?:{_NESTED_TEXT} *+: *+(?:{_NESTED_TEXT}|true|false|null"
    r"|-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?+(?:[eE][+-]?[0-9]++)?+) *+, *+)*+"
).match
#: Is ``buf[pos:]`` such a member cut by the end of the text? (Loosely: a cut number or
#: keyword may turn out to be one the inner scan rejects once it is whole.)
nested_member_cut = re.compile(
    r' *+(?:\\(?:"[^"\\\x00-\x1f]*+(?:\\(?:" *+(?:: *+(?:'
    r'\\(?:"[^"\\\x00-\x1f]*+(?:\\(?:" *+)?)?)?|[-0-9.eE+]++ *+|[truefalsn]++ *+'
    r")?)?)?)?)?)?"
).fullmatch
