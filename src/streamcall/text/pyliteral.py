"""Python literals read as JSON: string bodies decoded as they arrive, scalars converted.

What a model that writes its tool calls as Python (``f(a='x', n=0x1F)``) puts in its
arguments, and the JSON it stands for (``streamcall.text.pyargs`` reads the arguments):

- string bodies: ``body_run(quote, kind)`` is the run of body whose escapes are all whole
  (it stops at a quote character, at a cut escape or at the end of the buffer), and
  ``decode_body(run, kind)`` its text. ``kind`` is ``STR``, ``BYTES`` (no ``\\u``,
  ``\\U``, ``\\N``) or ``RAW`` (a backslash keeps the next character and hides a quote).
  Escapes: ``\\\\ \\' \\" \\a \\b \\f \\n \\r \\t \\v``, octal ``\\ooo``, ``\\xhh``,
  ``\\uXXXX``, ``\\UXXXXXXXX``, ``\\N{NAME}`` and a backslash before a newline (a line
  continuation); an unknown escape keeps its backslash, as Python does. A lone surrogate
  becomes U+FFFD.
- scalars: ``scalar_json(token)``: ``True``/``False``/``None`` (and JSON's own
  ``true``/``false``/``null``) become JSON's literals; a JSON number is kept as written;
  Python's ``1_000``, ``0x1F``, ``0o7``, ``0b1``, ``07``, ``1.``, ``.5`` and ``+1`` are
  normalised; anything else is not a scalar (None).

An escape counts as whole when what follows it decides it: ``\\x4`` at the end of the
buffer may still grow, ``\\x4g`` is an (invalid, literal) escape. The run patterns are
possessive: nothing follows them, so a match ends where a greedy one would, with no
backtracking state kept per escape.
"""

from __future__ import annotations

import math
import re
import unicodedata
from json.encoder import encode_basestring as _quote
from typing import Final

from streamcall.text import fast
from streamcall.text.jsonscan import NUMBER

# Bound once: CPython 3.11 calls a method of an imported name through a bound method
# made on every call (it gives such a call no LOAD_METHOD)
_number_fullmatch = NUMBER.fullmatch

__all__ = [
    "BYTES",
    "ESCAPE_BYTES",
    "ESCAPE_STR",
    "LITERALS",
    "RAW",
    "STR",
    "STRING_PREFIXES",
    "body_run",
    "decode_body",
    "json_body",
    "plain_body_run",
    "quick_scalar",
    "scalar_json",
]

#: string kinds: a ``str``, a ``bytes`` (``b''``) and a raw string (``r''``, ``rb''``)
STR: Final = 0
BYTES: Final = 1
RAW: Final = 2
#: the prefixes a string literal may have (case-insensitive); an f-string is read literally
STRING_PREFIXES: Final = frozenset({"r", "u", "b", "f", "br", "rb", "fr", "rf"})

#: a whole escape after the backslash (or a backslash decided literal by what follows it)
ESCAPE_STR: Final = (
    r"x[0-9a-fA-F]{2}|x(?=[0-9a-fA-F]?[^0-9a-fA-F])"
    r"|u[0-9a-fA-F]{4}|u(?=[0-9a-fA-F]{0,3}[^0-9a-fA-F])"
    r"|U[0-9a-fA-F]{8}|U(?=[0-9a-fA-F]{0,7}[^0-9a-fA-F])"
    r"|N\{[^{}\n]{1,100}\}|N(?=[^{])|N(?=\{(?:[^{}\n]{0,100}[{}\n]|[^{}\n]{101}))"
    r"|[0-7]{3}|[0-7]{1,2}(?=[^0-7])|\r\n|\r(?=[^\n])|[^xuUN0-7\r]"
)
ESCAPE_BYTES: Final = (
    r"x[0-9a-fA-F]{2}|x(?=[0-9a-fA-F]?[^0-9a-fA-F])"
    r"|[0-7]{3}|[0-7]{1,2}(?=[^0-7])|\r\n|\r(?=[^\n])|[^x0-7\r]"
)


def _run_pattern(quote: str, kind: int, also: str = "") -> re.Pattern[str]:
    q = re.escape(quote) + also
    if kind == RAW:
        return re.compile(rf"[^{q}\\]*+(?:\\[\s\S][^{q}\\]*+)*+")
    escape = ESCAPE_STR if kind == STR else ESCAPE_BYTES
    return re.compile(rf"[^{q}\\]*+(?:\\(?:{escape})[^{q}\\]*+)*+")


_RUNS = {(q, kind): _run_pattern(q, kind) for q in "'\"" for kind in (STR, BYTES, RAW)}
# The same runs without raw surrogates: a run with no backslash needs no decoding.
_PLAIN_RUNS = {
    (q, kind): _run_pattern(q, kind, r"\ud800-\udfff") for q in "'\"" for kind in (STR, BYTES, RAW)
}


def body_run(quote: str, kind: int) -> re.Pattern[str]:
    """The pattern of a run of string body (always matches) for this quote character."""
    return _RUNS[quote, kind]


def plain_body_run(quote: str, kind: int) -> re.Pattern[str]:
    """``body_run`` without raw surrogates: ``decode_body`` of such a run only unescapes."""
    return _PLAIN_RUNS[quote, kind]


_UNESCAPE_STR = re.compile(
    r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^{}\n]{1,100}\}|[0-7]{1,3}|\r\n|[\s\S])"
)
_UNESCAPE_BYTES = re.compile(r"\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|\r\n|[\s\S])")
_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\x07",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\x0b",
    "\n": "",
    "\r\n": "",
    "\r": "",
}
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _unescape_one(m: re.Match[str]) -> str:
    e = m.group(1)
    simple = _SIMPLE_ESCAPES.get(e)
    if simple is not None:
        return simple
    c = e[0]
    if c == "x" and len(e) == 3:
        return chr(int(e[1:], 16))
    if (c == "u" and len(e) == 5) or (c == "U" and len(e) == 9):
        code = int(e[1:], 16)
        return chr(code) if code <= 0x10FFFF else m.group()
    if c == "N" and len(e) > 1:
        try:
            return unicodedata.lookup(e[2:-1])
        except KeyError:
            return m.group()
    if "0" <= c <= "7":
        return chr(int(e, 8))
    return m.group()  # an unknown escape keeps its backslash


def decode_body(run: str, kind: int) -> str:
    """The text of a run of string body (``body_run``'s match)."""
    if kind == RAW or "\\" not in run:
        text = run
    else:
        text = (_UNESCAPE_STR if kind == STR else _UNESCAPE_BYTES).sub(_unescape_one, run)
    if _LONE_SURROGATE.search(text) is not None:
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


# A run of body whose escapes are all ``\\\\ \\n \\t \\r`` (spelled the same in JSON), with no raw
# surrogate: ``json_body``'s fast read.
_JSON_SPELLED = re.compile(r"[^\\\ud800-\udfff]*+(?:\\[\\ntr][^\\\ud800-\udfff]*+)*+")


def json_body(run: str, kind: int) -> str:
    """The body of the JSON string for a run of string body: ``json_quote(decode_body(run,
    kind))`` without its quotes.

    Fast read (``streamcall.text.fast``): a run (not raw) whose only escapes are
    ``\\\\ \\n \\t \\r``, which JSON spells as Python does, and with no raw surrogate, is
    quoted as it is; the quoting doubles each of its backslashes, and halving them gives
    its escapes back (every other backslash in the quoted text starts one of the quoting's
    own escapes, which no backslash follows). Reference: decoded, then quoted."""
    if kind != RAW and fast.FAST and _JSON_SPELLED.fullmatch(run) is not None:
        return _quote(run)[1:-1].replace("\\\\", "\\")
    return _quote(decode_body(run, kind))[1:-1]


#: Python's and JSON's keyword literals, as JSON
LITERALS: Final = {
    "True": "true",
    "False": "false",
    "None": "null",
    "true": "true",
    "false": "false",
    "null": "null",
}
_PY_NUMBER = re.compile(
    r"[+-]?(?:(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?"
    r"|0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+)"
)
_DECIMAL_INT = re.compile(r"-?\d+")


def scalar_json(token: str) -> str | None:
    """The JSON of a bare Python scalar (a keyword literal or a number), or None."""
    literal = LITERALS.get(token)
    if literal is not None:
        return literal
    if _number_fullmatch(token):
        return token
    if not _PY_NUMBER.fullmatch(token):
        return None
    t = token.replace("_", "").lstrip("+")
    if _DECIMAL_INT.fullmatch(t):
        return str(int(t))
    if t.lstrip("-")[:2].lower() in ("0x", "0o", "0b"):
        try:
            return str(int(t, 0))
        except ValueError:
            return None
    try:
        value = float(t)
    except ValueError:
        return None
    return repr(value) if math.isfinite(value) else None


def quick_scalar(token: str) -> str | None:
    """``scalar_json``, its common cases (a literal, a plain decimal integer) first."""
    literal = LITERALS.get(token)
    if literal is not None:
        return literal
    if token.isdigit() and token.isascii() and (token[0] != "0" or len(token) == 1):
        return token
    return scalar_json(token)
