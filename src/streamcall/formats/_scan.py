"""Resumable scanning primitives that every format parser shares.

Nothing here re-reads text it has already passed. Each primitive either consumes text
for good or leaves a short, bounded tail for the caller to hold back:

- ``partial_marker_len``: the longest suffix that is a proper prefix of a marker (at most
  ``len(marker) - 1`` characters). Python strings index code points, so a multi-byte
  marker such as ``<｜tool▁sep｜>`` can only be cut between characters; splitting inside
  a character is the byte layer's business, and it never does.
- ``cut_marker``: is the rest of the buffer a cut marker? Bounded by the marker's length,
  so that a question asked once per call never copies the rest of a big buffer.
- ``MarkerFinder.find``: take text up to the first of several markers, holding back a
  partial marker at the end of the buffer.
- ``decode_json_string``: decode the body of a JSON string as it arrives. It holds back a
  cut ``\\``, a cut ``\\uXXXX`` and a high surrogate whose low half has not arrived yet
  (at most 12 characters).
- ``JsonScan``: a validating scan of one JSON value with its container stack and
  expect-state kept between calls. It holds back only a token that may still grow: a
  number, a half keyword (``tru``) or a cut escape inside a string. An opener past
  ``MAX_DEPTH`` (256) open containers is an error, as in partial JSON: the arguments are
  closed there and still load.
- ``ArgsStreamer``: JSON arguments streamed verbatim through a ``JsonScan``; raw control
  characters inside strings (invalid JSON) are escaped so the result always loads.

All scanning is done by ``re`` and ``str.find``; Python loops run per token, never per
character.
"""

from __future__ import annotations

import functools
import json
import re
from _json import scanstring as _scanstring  # the C scanner: (text, end, strict)
from collections.abc import Callable, Iterable, Sequence

from streamcall.partial.incremental import MAX_DEPTH

__all__ = [
    "KEY_EXPECTED",
    "KEY_OR_CLOSE_EXPECTED",
    "ArgsStreamer",
    "JsonScan",
    "MarkerFinder",
    "PartialMarkers",
    "cut_marker",
    "decode_json_string",
    "decode_string_run",
    "json_quote",
    "nested_member_cut",
    "nested_members",
    "nested_plain_run",
    "nested_string_cut",
    "nested_string_run",
    "partial_marker_len",
    "raw_offset",
]


# --- Partial markers ----------------------------------------------------------------------


def _prefix_pattern(markers: Iterable[str], whole: bool = False) -> str:
    """A regex for any non-empty proper prefix of ``markers`` that ends the text.

    With ``whole``, a whole marker at the end counts too. Built as a trie
    (``<(?:\\Z|/(?:\\Z|p...))``), so each start position costs one or two character tests
    instead of one ``startswith`` per marker.
    """
    shortest = 1 if whole else 2
    branches: dict[str, list[str]] = {}
    for marker in markers:
        if len(marker) >= shortest:
            branches.setdefault(marker[0], []).append(marker[1:])
    alts = []
    for first, rests in branches.items():
        deeper = _prefix_pattern(rests, whole)
        alts.append(re.escape(first) + (rf"(?:\Z|{deeper})" if deeper else r"\Z"))
    return "(?:" + "|".join(alts) + ")" if alts else ""


@functools.lru_cache(maxsize=256)
def _partial_re(markers: tuple[str, ...], whole: bool) -> tuple[re.Pattern[str], int]:
    """The compiled pattern and how far back it can reach: built once per marker set."""
    pattern = re.compile(_prefix_pattern(markers, whole) or "(?!)")
    return pattern, max(map(len, markers), default=1) - (0 if whole else 1)


class PartialMarkers:
    """``partial_marker_len`` for a fixed set of markers, as one C regex search.

    With ``whole``, a whole marker at the end is held too (it may be the prefix of a longer
    one).
    """

    __slots__ = ("_re", "_reach")

    def __init__(self, markers: Iterable[str], *, whole: bool = False) -> None:
        self._re, self._reach = _partial_re(tuple(markers), whole)

    def start(self, buf: str, start: int = 0) -> int:
        """Where the longest partial marker at the end of ``buf[start:]`` begins (or ``len``)."""
        n = len(buf)
        m = self._re.search(buf, max(start, n - self._reach))
        return n if m is None else m.start()

    def length(self, buf: str, start: int = 0) -> int:
        return len(buf) - self.start(buf, start)

    def holds(self, buf: str, pos: int) -> bool:
        """Is all of ``buf[pos:]`` (non-empty) a partial marker?"""
        return self._re.match(buf, pos) is not None


def cut_marker(marker: str, buf: str, pos: int) -> bool:
    """``marker.startswith(buf[pos:])``: is the rest of ``buf`` (possibly empty) a prefix of
    ``marker``? It copies at most ``len(marker)`` characters, never the rest of a long
    buffer, so that asking it once per call or block keeps one big ``feed`` linear.
    """
    return len(buf) - pos <= len(marker) and marker.startswith(buf[pos:])


def partial_marker_len(buf: str, markers: Iterable[str], start: int = 0) -> int:
    """Length of the longest suffix of ``buf[start:]`` that is a proper prefix of a marker.

    That suffix could still become a marker when the next chunk arrives, so it must be
    held back. One regex search over the last ``max(len(marker)) - 1`` characters (the
    pattern is built once per marker set), whatever the size of ``buf``.
    """
    pattern, reach = _partial_re(tuple(markers), False)
    n = len(buf)
    m = pattern.search(buf, max(start, n - reach))
    return 0 if m is None else n - m.start()


class MarkerFinder:
    """Finds the first of several markers, holding back a partial one at the end."""

    __slots__ = ("_partial_re", "_re", "_reach", "markers")

    def __init__(self, markers: Sequence[str]) -> None:
        self.markers = tuple(sorted(markers, key=len, reverse=True))
        self._re = re.compile("|".join(re.escape(m) for m in self.markers))
        self._partial_re, self._reach = _partial_re(self.markers, False)

    def find(self, buf: str, pos: int) -> tuple[int, int, str | None]:
        """Return ``(text_end, resume, marker)``.

        With a marker found, ``buf[pos:text_end]`` is the text before it and ``resume`` is
        just past it. Without one, ``buf[pos:text_end]`` is safe to release and
        ``buf[text_end:]`` (a partial marker) must be held back; ``resume == text_end``.
        """
        m = self._re.search(buf, pos)
        if m is not None:
            return m.start(), m.end(), m.group()
        n = len(buf)
        m = self._partial_re.search(buf, max(pos, n - self._reach))
        safe = n if m is None else m.start()
        return safe, safe, None

    def find_final(self, buf: str, pos: int) -> tuple[int, int, str | None]:
        """Like ``find`` at the end of the stream: nothing is held back."""
        m = self._re.search(buf, pos)
        if m is not None:
            return m.start(), m.end(), m.group()
        return len(buf), len(buf), None


# --- JSON strings -------------------------------------------------------------------------

# A run of string body with complete escapes only; stops at '"', at a cut or invalid
# escape, or at the end of the buffer. Raw control characters are allowed here (the
# decoder is lenient); ``JsonScan`` is the strict one. The quantifiers are possessive:
# nothing follows them, so the match ends where a greedy one would, but the engine keeps
# no backtracking state per escape (a long string with many escapes in one piece).
_STRING_RUN = re.compile(r'[^"\\]*+(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\]*+)*+')
# What may follow a backslash while more text is still to come.
_CUT_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{0,3})?")
_HIGH_SURROGATE_TAIL = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def json_quote(text: str) -> str:
    """The JSON string literal for ``text`` (non-ASCII kept as is).

    ``json.dumps(text, ensure_ascii=False)`` builds an encoder on every call; this is the C
    escaper it ends up calling.
    """
    return _encode_basestring(text)


_encode_basestring: Callable[[str], str] = json.encoder.encode_basestring


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


# JSON-string body whose decoded text is itself the body of a JSON string: arguments written
# as a string of escaped JSON (Granite 4), read while the inner scan is inside a string.
# Units: a character that stands for itself, an escaped '/', or an escaped backslash that
# starts a whole inner escape (the inner '"', '\\' and '/' escaped again). It leaves out
# outer \uXXXX escapes and escaped control characters (the general path takes those).
_NESTED_STRING_RUN = re.compile(
    r'(?:[^"\\\x00-\x1f]++|\\/|\\\\(?:\\["\\/]|[/bfnrt]|u[0-9a-fA-F]{4}))*+'
)
#: Where ``buf[pos:]`` stops being such a nested body: ``nested_string_run(buf, pos).end()``.
nested_string_run = _NESTED_STRING_RUN.match
#: The same between the inner tokens: characters that stand for themselves and escaped
#: quotes (the inner strings' quotes) only, so that the decoding is a ``replace``.
nested_plain_run = re.compile(r'(?:[^"\\\x00-\x1f]++|\\")*+').match
#: Is ``buf[pos:]`` the start of one unit of that body, cut by the end of the text?
nested_string_cut = re.compile(r"\\(?:\\(?:\\|u[0-9a-fA-F]{0,3})?)?").fullmatch

# Whole members of the object inside such a string, each with its ',' (``\"key\": 1, ``):
# a key and a string value with no escape of their own, a number or a keyword, and spaces.
# Their decoding is a ``replace`` of the escaped quotes, and they leave the inner scan
# where it was (a key must come next). Read where the inner scan expects a key.
_NESTED_TEXT = r'\\"[^"\\\x00-\x1f]*\\"'
_NESTED_MEMBERS = re.compile(
    rf" *+(?:{_NESTED_TEXT} *+: *+(?:{_NESTED_TEXT}|true|false|null"
    r"|-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?+(?:[eE][+-]?[0-9]++)?+) *+, *+)*+"
)
#: Where ``buf[pos:]`` stops being whole members: ``nested_members(buf, pos).end()``.
nested_members = _NESTED_MEMBERS.match
#: Is ``buf[pos:]`` such a member cut by the end of the text? (Loosely: a cut number or
#: keyword may turn out to be one the inner scan rejects once it is whole.)
nested_member_cut = re.compile(
    r' *+(?:\\(?:"[^"\\\x00-\x1f]*+(?:\\(?:" *+(?:: *+(?:'
    r'\\(?:"[^"\\\x00-\x1f]*+(?:\\(?:" *+)?)?)?|[-0-9.eE+]++ *+|[truefalsn]++ *+'
    r")?)?)?)?)?)?"
).fullmatch


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


def decode_json_string(buf: str, pos: int, final: bool = False) -> tuple[str, int, int]:
    """Decode a JSON string body starting at ``pos`` (just after the opening quote).

    Returns ``(decoded, resume, status)``. ``status`` is 1 when the closing quote was read
    (``resume`` is just past it), 0 when more text is needed (``buf[resume:]`` is a cut
    escape to hold back), and -1 when ``buf[resume]`` starts an invalid escape. A lone
    surrogate becomes U+FFFD.
    """
    n = len(buf)
    end = _STRING_RUN.match(buf, pos).end()  # type: ignore[union-attr]
    if end < n and buf[end] == '"':
        return (decode_string_run(buf[pos:end]) if end > pos else ""), end + 1, 1
    if end < n and (_CUT_ESCAPE.fullmatch(buf, end) is None or final):
        # a backslash that does not start a complete escape, and never will
        return (decode_string_run(buf[pos:end]) if end > pos else ""), end, -1
    # More text is needed (the end of the buffer, or a cut escape to hold back). A high
    # surrogate escape just before that point is held too: its low half may come next.
    # Only a real escape (an odd run of backslashes) counts.
    if not final and end - pos >= 6 and _HIGH_SURROGATE_TAIL.fullmatch(buf, end - 6, end):
        run = end - 6 - pos - len(buf[pos : end - 6].rstrip("\\"))
        if run % 2 == 0:
            end -= 6
    return (decode_string_run(buf[pos:end]) if end > pos else ""), end, 0


# --- JSON values --------------------------------------------------------------------------

_WS = re.compile(r"[ \t\n\r]*")
_WS_CHARS = frozenset(" \t\n\r")
# A number, with its fraction (group 1) and exponent (group 2). What may follow it at the
# end of the text and still make it longer: a '.' if it has neither, an exponent if it has
# none (``1.`` and ``1e`` may grow; ``1.1.`` and ``1e5e`` are broken).
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_FRACTION_MORE = re.compile(r"\.|[eE][+-]?")
_EXPONENT_MORE = re.compile(r"[eE][+-]?")
# The strict body run (possessive, as ``_STRING_RUN``).
_STRICT_RUN = re.compile(
    r'[^"\\\x00-\x1f]*+(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*+)*+'
)
_LITERALS = {"t": "true", "f": "false", "n": "null"}
_CONTROL_ESCAPES = {i: f"\\u{i:04x}" for i in range(32)} | {
    8: "\\b",
    9: "\\t",
    10: "\\n",
    12: "\\f",
    13: "\\r",
}

# expect-states
_VALUE = 0  # a value must come
_VALUE_OR_CLOSE = 1  # just after '[': a value or ']'
_KEY = 2  # after ',' in an object: a key must come
_KEY_OR_CLOSE = 3  # just after '{': a key or '}'
_COLON = 4
_AFTER = 5  # after a value inside a container: ',' or the closer
#: ``JsonScan.expect`` from ``KEY_EXPECTED`` to ``KEY_OR_CLOSE_EXPECTED``: a key must or may
#: come next (when not ``in_string``)
KEY_EXPECTED, KEY_OR_CLOSE_EXPECTED = _KEY, _KEY_OR_CLOSE

# Whole members of an object, each with its ',': a key and a string value with no escape
# or control character, a number or a keyword, and blanks (``"key": 1, ``). Where a key
# must come, they leave the scan where it was. ``ArgsStreamer.push_more`` reads them.
_PLAIN = r'"[^"\\\x00-\x1f]*+"'
_MEMBERS = re.compile(
    rf"[ \t\n\r]*+(?:{_PLAIN}[ \t\n\r]*+:[ \t\n\r]*+(?:{_PLAIN}|true|false|null"
    r"|-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?+(?:[eE][+-]?[0-9]++)?+)[ \t\n\r]*+,[ \t\n\r]*+)*+"
).match
# Such a member cut by the end of the text (loosely: a cut number or keyword may be one
# the scan rejects once it is whole).
_MEMBER_CUT = re.compile(
    r'[ \t\n\r]*+(?:"[^"\\\x00-\x1f]*+(?:"[ \t\n\r]*+(?::[ \t\n\r]*+(?:"[^"\\\x00-\x1f]*+'
    r'(?:"[ \t\n\r]*+)?|[-0-9.eE+]++[ \t\n\r]*+|[truefalsn]++[ \t\n\r]*+)?)?)?)?'
).fullmatch
#: The longest cut member ``ArgsStreamer.push_more`` holds back.
MAX_MEMBER = 64
# ``push_more`` reads whole members with one regex (``_MEMBERS``): many small keys 1.81 ->
# 1.27 µs per chunk on hermes, about 0.7x on every engine that uses it (A/B in CPU time);
# tests pin it on and prove it equal to ``push``.
_MEMBERS_READ_ENABLED = True


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
        # open. That step is written out at each of its five places rather than called:
        # the call cost about 8% per chunk on the object form (A/B, CPU time).
        n = len(buf)
        stack = self.stack
        while pos < n:
            if self.in_string:
                pos = _STRICT_RUN.match(buf, pos).end()  # type: ignore[union-attr]
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
                    if _CUT_ESCAPE.fullmatch(buf, pos) is not None:
                        return pos  # a cut escape: hold it back
                    self.error = True
                    return pos
                self.control = True
                return pos
            c = buf[pos]
            if c in _WS_CHARS:
                pos = _WS.match(buf, pos).end()  # type: ignore[union-attr]
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
                    m = _NUMBER.match(buf, pos)
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


class ArgsStreamer:
    """One JSON object of arguments, streamed verbatim and validated as it goes.

    ``push`` returns the text that may be released now and where it stopped; the caller
    holds back ``buf[resume:]`` (a token that may still grow) unless ``done`` or ``error``.
    Raw control characters inside strings are released escaped, so the arguments always
    load with a strict ``json.loads``.
    """

    __slots__ = ("done", "error", "parts", "scan")

    def __init__(self) -> None:
        self.scan = JsonScan()
        self.parts: list[str] = []
        # Copies of the scan's outcome, kept as plain attributes: they are read after
        # every push, on the hot path.
        self.done = False
        self.error = False

    def push(self, buf: str, pos: int, final: bool = False) -> tuple[str, int]:
        scan = self.scan
        start = pos
        pos = scan.feed(buf, pos, final)
        if not scan.control:
            delta = buf[start:pos]
            if delta:
                self.parts.append(delta)
            self.done = scan.done
            self.error = scan.error
            return delta, pos
        else:
            pieces = []
            while scan.control:
                pieces.append(buf[start:pos])
                pieces.append(_CONTROL_ESCAPES[ord(buf[pos])])
                scan.skip_control()
                start = pos + 1
                pos = scan.feed(buf, start, final)
            pieces.append(buf[start:pos])
            delta = "".join(pieces)
        if delta:
            self.parts.append(delta)
        self.done = scan.done
        self.error = scan.error
        return delta, pos

    def push_more(self, buf: str, pos: int) -> tuple[str, int]:
        """``push`` when more text is to come, reading whole small members in one step.

        Where a key must come, the members of ``_MEMBERS`` are taken with one regex and
        no scan, and a member cut by the end of ``buf`` is held back whole (at most
        ``MAX_MEMBER`` characters, so its text leaves in one piece with the next chunk);
        anything else is scanned by ``push``.
        """
        scan = self.scan
        expect = scan.expect
        if scan.in_string or expect < _KEY or expect > _KEY_OR_CLOSE or not _MEMBERS_READ_ENABLED:
            return self.push(buf, pos)
        end = _MEMBERS(buf, pos).end()  # type: ignore[union-attr]
        n = len(buf)
        if end == pos:
            if n - end <= MAX_MEMBER and _MEMBER_CUT(buf, end) is not None:
                return "", pos
            return self.push(buf, pos)
        head = buf[pos:end] if pos or end < n else buf
        self.parts.append(head)
        if expect != _KEY and "," in head:
            scan.expect = _KEY
        if end == n or (n - end <= MAX_MEMBER and _MEMBER_CUT(buf, end) is not None):
            return head, end
        delta, end = self.push(buf, end)
        return head + delta, end

    def close(self, tail: str = "") -> str:
        """Finish cut-off arguments; returns the closing delta (also recorded)."""
        delta = self.scan.closing(tail)
        if delta:
            self.parts.append(delta)
        return delta

    def text(self) -> str:
        return "".join(self.parts)
