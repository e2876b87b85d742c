r"""The ``python-call-list`` content parser: a strict grammar for a list of calls.

Grammar (the one transformers' "Response Parsing" page specifies, so that every reader
agrees on it)::

    calls    := ws '[' ws ( call ( ws ',' ws call )* )? ws ']' ws      nothing may follow
    call     := NAME ws '(' ( arg ( ',' arg )* )? ws ')'
    arg      := ws NAME ws '=' value                                   keywords only
    value    := string | number | list | dict | constant
    list     := '[' ( value ( ',' value )* )? ws ']'
    dict     := '{' ( string ws ':' value ( ',' string ws ':' value )* )? ws '}'
    NAME     := [A-Za-z_][A-Za-z0-9_]* ( [-.] [A-Za-z0-9_]+ )*
    string   := '...' | "..."   no raw CR or LF; escapes \\ \' \" \/ \b \f \n \r \t \uXXXX
                                (a surrogate pair combines; a lone surrogate is an error)
    number   := JSON's; an integer within +-(2**53 - 1), a float finite
    constant := True | true | False | false | None | null
    ws       := [ \t\r\n]*

No trailing commas, no repeated argument or dict key, lists and dicts nested at most 100
deep. The value is ``[{"name": NAME, "arguments": {...}}, ...]``; anything else raises
``ValueError("python-call-list: WHAT at position N.\nContent: ...")``, where N is the
offset at which the reader stopped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, NoReturn

__all__ = ["parse_call_list"]

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:[-.][A-Za-z0-9_]+)*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_STRING = re.compile(r"""'((?:[^'\\\n\r]|\\.)*)'|"((?:[^"\\\n\r]|\\.)*)\"""", re.DOTALL)
_UNICODE_ESCAPE = re.compile(r"u([0-9a-fA-F]{4})")
_LOW_SURROGATE_ESCAPE = re.compile(r"\\u([dD][c-fC-F][0-9a-fA-F]{2})")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_CONSTANTS: dict[str, Any] = {
    "True": True,
    "true": True,
    "False": False,
    "false": False,
    "None": None,
    "null": None,
}
_MAX_INTEGER = 2**53 - 1
_MAX_DEPTH = 100
_POSITIONAL = "a keyword argument (positional arguments and trailing commas are not supported)"


def parse_call_list(text: str) -> list[dict[str, Any]]:
    """``[name(k=v, ...), ...]`` as ``[{"name", "arguments"}]`` (see the module's grammar)."""
    return _Reader(text).calls()


class _Reader:
    """One pass over the text; ``pos`` only moves forward."""

    __slots__ = ("pos", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, what: str) -> NoReturn:
        raise ValueError(
            f"python-call-list: {what} at position {self.pos}.\nContent: {self.text!r}"
        )

    def skip(self) -> None:
        m = _WHITESPACE.match(self.text, self.pos)
        assert m is not None  # the pattern matches the empty string
        self.pos = m.end()

    def sees(self, char: str) -> bool:
        """Whether ``char`` comes next, after whitespace (which is consumed)."""
        self.skip()
        return self.text.startswith(char, self.pos)

    def expect(self, char: str) -> None:
        if not self.sees(char):
            self.fail(f"expected {char!r}")
        self.pos += 1

    def sequence(self, close: str, item: Callable[[], Any]) -> list[Any]:
        """Items separated by commas up to ``close`` (the opener already consumed)."""
        out: list[Any] = []
        if self.sees(close):
            self.pos += 1
            return out
        while True:
            out.append(item())
            if self.sees(close):
                self.pos += 1
                return out
            self.expect(",")

    def unique(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                self.fail(f"repeated name {key!r}")
            out[key] = value
        return out

    def name(self, what: str) -> str:
        self.skip()
        m = _NAME.match(self.text, self.pos)
        if m is None:
            self.fail(f"expected {what}")
        self.pos = m.end()
        return m.group()

    def calls(self) -> list[dict[str, Any]]:
        self.expect("[")
        calls = self.sequence("]", self.call)
        self.skip()
        if self.pos != len(self.text):
            self.fail("unexpected content after the closing ']'")
        return calls

    def call(self) -> dict[str, Any]:
        name = self.name("a function name")
        self.expect("(")
        return {"name": name, "arguments": self.unique(self.sequence(")", self.argument))}

    def argument(self) -> tuple[str, Any]:
        key = self.name(_POSITIONAL)
        if not self.sees("="):
            self.fail("expected '=' (positional arguments are not supported)")
        self.pos += 1
        return key, self.value(0)

    def value(self, depth: int) -> Any:
        """One value inside ``depth`` enclosing lists and dicts."""
        if self.sees("'") or self.sees('"'):
            return self.string()
        if self.sees("[") or self.sees("{"):
            if depth >= _MAX_DEPTH:
                self.fail(f"lists and dicts nested more than {_MAX_DEPTH} levels deep")
            opener = self.text[self.pos]
            self.pos += 1
            if opener == "[":
                return self.sequence("]", lambda: self.value(depth + 1))
            return self.unique(self.sequence("}", lambda: self.pair(depth + 1)))
        number = _NUMBER.match(self.text, self.pos)
        if number is not None:
            return self.number(number)
        word = _NAME.match(self.text, self.pos)
        if word is not None and word.group() in _CONSTANTS:
            self.pos = word.end()
            return _CONSTANTS[word.group()]
        self.fail("expected a string, number, list, dict, True, False or None")

    def number(self, m: re.Match[str]) -> int | float:
        literal = m.group()
        if m.group(1) is None and m.group(2) is None:
            # The length test first, so that a huge literal never reaches int().
            if len(literal) > 17 or abs(int(literal)) > _MAX_INTEGER:
                self.fail("integer outside the range of -(2^53 - 1) to 2^53 - 1")
            self.pos = m.end()
            return int(literal)
        value = float(literal)
        if math.isinf(value):
            self.fail("number too large")
        self.pos = m.end()
        return value

    def pair(self, depth: int) -> tuple[str, Any]:
        if not (self.sees("'") or self.sees('"')):
            self.fail("dict keys must be strings")
        key = self.string()
        self.expect(":")
        return key, self.value(depth)

    def string(self) -> str:
        """The quoted string at ``pos``, unescaped; errors point at its opening quote."""
        m = _STRING.match(self.text, self.pos)
        if m is None:
            self.fail("invalid string")
        body = m.group(1) if m.group(1) is not None else m.group(2)
        if _SURROGATE.search(body) is not None:
            self.fail("lone surrogate in the string starting")
        pieces: list[str] = []
        done = 0
        while (slash := body.find("\\", done)) != -1:
            pieces.append(body[done:slash])
            escaped = body[slash + 1]
            if escaped in _SIMPLE_ESCAPES:
                pieces.append(_SIMPLE_ESCAPES[escaped])
                done = slash + 2
                continue
            unicode = _UNICODE_ESCAPE.match(body, slash + 1)
            if unicode is None:
                self.fail(f"unsupported escape {body[slash : slash + 2]!r} in the string starting")
            code, done = int(unicode.group(1), 16), unicode.end()
            if 0xD800 <= code <= 0xDBFF:
                low = _LOW_SURROGATE_ESCAPE.match(body, done)
                if low is not None:
                    code = 0x10000 + ((code - 0xD800) << 10) + (int(low.group(1), 16) - 0xDC00)
                    done = low.end()
            if 0xD800 <= code <= 0xDFFF:
                self.fail("lone surrogate escape in the string starting")
            pieces.append(chr(code))
        self.pos = m.end()
        pieces.append(body[done:])
        return "".join(pieces)
