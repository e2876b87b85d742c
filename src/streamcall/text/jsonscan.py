"""The resumable JSON scan: one value validated as it arrives, its state kept between chunks.

``JsonScan`` keeps its container stack and expect-state between calls, so a value cut
anywhere resumes where it stopped. It holds back only a token that may still grow: a
number, a half keyword (``tru``) or a cut escape inside a string. An opener past
``MAX_DEPTH`` (256) open containers is an error, as in partial JSON: arguments are closed
there and still load. ``closing`` is the shortest text that turns what was read into a
value, for arguments cut off by the end of the stream or by malformed markup.

``WS`` and ``NUMBER`` are the patterns partial JSON reads with too (``streamcall.partial``);
``too_deep`` is the depth bound that partial JSON and the schema's conversions check
before json loads a text whole.
"""

from __future__ import annotations

import re
from typing import Final

from streamcall.text.jsonstring import CUT_ESCAPE, STRICT_RUN

# Bound once: CPython 3.11 calls a method of an imported name through a bound method
# made on every call (it gives such a call no LOAD_METHOD)
_strict_run_match = STRICT_RUN.match
_cut_escape_fullmatch = CUT_ESCAPE.fullmatch

__all__ = [
    "KEY_EXPECTED",
    "KEY_OR_CLOSE_EXPECTED",
    "MAX_DEPTH",
    "NUMBER",
    "WS",
    "JsonScan",
    "skip_ws",
    "too_deep",
]

#: The most containers open at once that any JSON this library reads or writes may have:
#: partial JSON, tool-call arguments and the values converted to JSON. json's own decoder
#: recurses once per container, so a deeper document may not load.
MAX_DEPTH: Final = 256

_KEEP: Final = b'"[]{}'
_DROP: Final = bytes(c for c in range(256) if c not in _KEEP)  # every other byte
_AS_PARENS: Final = bytes.maketrans(b"[{]}", b"(())")


def too_deep(text: str, limit: int = MAX_DEPTH, end: int | None = None) -> bool:
    """Might ``text`` (or ``text[:end]``) open more than ``limit`` containers at once? False
    is certain; True may overstate it for malformed text (where the scan would have stopped
    earlier).

    C work only: two counts, then, for text with more brackets than the limit, escaped
    backslashes and quotes taken out, every byte but quotes and brackets dropped (UTF-8
    bytes of other characters are never those), the strings with no bracket in them
    dropped, then the contents of the rest, and the innermost pairs taken out one level
    per pass; the passes plus what stays open bound the depth.
    """
    if end is None:
        end = len(text)
    if text.count("[", 0, end) + text.count("{", 0, end) <= limit:
        return False
    if end < len(text):
        text = text[:end]
    plain = text.replace("\\\\", "").replace('\\"', "") if "\\" in text else text
    kept = plain.encode("utf-8", "surrogatepass").translate(None, _DROP).replace(b'""', b"")
    if b'"' in kept:  # (taking out two quotes in a row changes no bracket's side of them)
        kept = b"".join(kept.split(b'"')[::2])
    marks = kept.translate(_AS_PARENS)
    passes = 0
    while passes <= limit:
        shorter = marks.replace(b"()", b"")
        if len(shorter) == len(marks):
            return passes + len(marks) > limit
        marks = shorter
        passes += 1
    return True


#: Blanks, as JSON defines them (always matches).
WS = re.compile(r"[ \t\n\r]*")
#: ``WS.match``, bound once: ``skip_ws(buf, pos).end()`` is where the blanks at ``pos`` end
#: (a method of an imported name is bound anew on every call in CPython 3.11)
skip_ws = WS.match
_WS_CHARS = frozenset(" \t\n\r")
#: A number, with its fraction (group 1) and exponent (group 2).
NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
# What may follow a number at the end of the text and still make it longer: a '.' if it has
# neither, an exponent if it has none (``1.`` and ``1e`` may grow; ``1.1.`` and ``1e5e`` are
# broken).
_FRACTION_MORE = re.compile(r"\.|[eE][+-]?")
_EXPONENT_MORE = re.compile(r"[eE][+-]?")
_LITERALS = {"t": "true", "f": "false", "n": "null"}

# expect-states
_VALUE = 0  # a value must come
_VALUE_OR_CLOSE = 1  # just after '[': a value or ']'
_KEY = 2  # after ',' in an object: a key must come
_KEY_OR_CLOSE = 3  # just after '{': a key or '}'
_COLON = 4
_AFTER = 5  # after a value inside a container: ',' or the closer
#: ``JsonScan.expect`` from ``KEY_EXPECTED`` to ``KEY_OR_CLOSE_EXPECTED``: a key must or may
#: come next (when not ``in_string``)
KEY_EXPECTED: Final = _KEY
KEY_OR_CLOSE_EXPECTED: Final = _KEY_OR_CLOSE


class JsonScan:
    """Validating, resumable scan of one JSON value (RFC 8259, strict).

    ``feed(buf, pos)`` consumes every character that keeps the text a valid JSON prefix
    and returns where it stopped. After it returns, exactly one of these holds:

    - ``done``: a whole value ends at the returned position;
    - ``error``: the character at the returned position cannot continue the value;
    - ``control``: a raw control character inside a string is at the returned position
      (invalid JSON; ``ArgsStreamer`` escapes it and calls ``skip_control``);
    - otherwise ``buf[returned:]`` is a token that may still grow (a number, a half
      keyword, a cut escape), to be held back and fed again with more text. With
      ``final`` a number that reaches the end of the text counts as complete; whatever
      is still held then is the ``tail`` that ``closing`` finishes.
    """

    __slots__ = ("control", "done", "error", "expect", "in_key", "in_string", "stack")

    def __init__(self) -> None:
        self.stack: list[str] = []
        self.expect = _VALUE
        self.in_string = False
        self.in_key = False
        self.done = False
        self.error = False
        self.control = False

    @property
    def depth(self) -> int:
        return len(self.stack)

    def skip_control(self) -> None:
        self.control = False

    def feed(self, buf: str, pos: int, final: bool = False) -> int:
        # After each value: ``expect = _AFTER``, and the scan is done if no container is
        # open. That step is written out at each of its five places rather than called: a
        # call per value is a measurable part of a chunk on the object form.
        n = len(buf)
        stack = self.stack
        while pos < n:
            if self.in_string:
                pos = _strict_run_match(buf, pos).end()  # type: ignore[union-attr]
                if pos == n:
                    return pos
                c = buf[pos]
                if c == '"':
                    pos += 1
                    self.in_string = False
                    if self.in_key:
                        self.in_key = False
                        self.expect = _COLON
                        continue
                    self.expect = _AFTER
                    if not stack:
                        self.done = True
                        return pos
                    continue
                if c == "\\":
                    if _cut_escape_fullmatch(buf, pos) is not None:
                        return pos  # a cut escape: hold it back
                    self.error = True
                    return pos
                self.control = True
                return pos
            c = buf[pos]
            if c in _WS_CHARS:
                pos = WS.match(buf, pos).end()  # type: ignore[union-attr]
                if pos == n:
                    return pos
                c = buf[pos]
            expect = self.expect
            if expect <= _VALUE_OR_CLOSE:
                if c == '"':
                    self.in_string = True
                    pos += 1
                elif c == "{" or c == "[":
                    if len(stack) >= MAX_DEPTH:
                        self.error = True  # too deep to load: broken here (partial JSON's rule)
                        return pos
                    stack.append("}" if c == "{" else "]")
                    self.expect = _KEY_OR_CLOSE if c == "{" else _VALUE_OR_CLOSE
                    pos += 1
                elif c == "]" and expect == _VALUE_OR_CLOSE:
                    stack.pop()
                    pos += 1
                    self.expect = _AFTER
                    if not stack:
                        self.done = True
                        return pos
                elif c in _LITERALS:
                    lit = _LITERALS[c]
                    if buf.startswith(lit, pos):
                        pos += len(lit)
                        self.expect = _AFTER
                        if not stack:
                            self.done = True
                            return pos
                    elif n - pos < len(lit) and lit.startswith(buf[pos:]):
                        return pos  # a half keyword: hold it back
                    else:
                        self.error = True
                        return pos
                elif c == "-" or "0" <= c <= "9":
                    m = NUMBER.match(buf, pos)
                    if m is None:  # a lone '-'
                        if pos + 1 == n:
                            return pos
                        self.error = True
                        return pos
                    end = m.end()
                    if end == n:
                        if not final:
                            return pos  # the number may still grow
                    elif m.group(2) is None and (
                        _EXPONENT_MORE if m.group(1) else _FRACTION_MORE
                    ).fullmatch(buf, end):
                        return pos  # a cut fraction or exponent: it may still grow
                    pos = end
                    self.expect = _AFTER
                    if not stack:
                        self.done = True
                        return pos
                else:
                    self.error = True
                    return pos
            elif expect >= _KEY and expect <= _KEY_OR_CLOSE:
                if c == '"':
                    self.in_string = True
                    self.in_key = True
                    pos += 1
                elif c == "}" and expect == _KEY_OR_CLOSE:
                    stack.pop()
                    pos += 1
                    self.expect = _AFTER
                    if not stack:
                        self.done = True
                        return pos
                else:
                    self.error = True
                    return pos
            elif expect == _COLON:
                if c != ":":
                    self.error = True
                    return pos
                self.expect = _VALUE
                pos += 1
            else:  # _AFTER
                if c == ",":
                    self.expect = _KEY if stack[-1] == "}" else _VALUE
                    pos += 1
                elif c == stack[-1]:
                    stack.pop()
                    pos += 1
                    self.expect = _AFTER
                    if not stack:
                        self.done = True
                        return pos
                else:
                    self.error = True
                    return pos
        return pos

    def closing(self, tail: str = "") -> str:
        """The shortest text that turns what was consumed (plus ``tail``) into a value.

        ``tail`` is the held-back partial token, if any; a half keyword or number is
        finished, a cut escape is dropped. The result is what an ``incomplete`` call
        appends to arguments that were cut off.
        """
        out: list[str] = []
        if self.in_string:
            if not tail.startswith("\\"):
                out.append(tail)
            out.append('"')
            if self.in_key:
                out.append(":null")
            elif not self.stack:
                return "".join(out)
            else:
                pass
        elif self.done:
            return ""
        elif tail:
            c = tail[0]
            if c in _LITERALS:
                out.append(_LITERALS[c])
            else:
                out.append(tail)
                if tail[-1] in "-+.eE":
                    out.append("0")
        elif self.expect == _COLON:
            out.append(":null")
        elif self.expect == _VALUE:
            out.append("null")
        elif self.expect == _KEY:
            out.append('"":null')
        out.extend(reversed(self.stack))
        return "".join(out)
