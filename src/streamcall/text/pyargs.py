"""A call's arguments written as Python, converted to one JSON object as they arrive.

``PythonArgs`` reads what follows a call's ``(`` up to its ``)``::

    args   := ( arg (',' arg)* ','? )? ')'
    arg    := IDENT '=' value | value                 # a positional value: named below
    value  := string | scalar                         # ``streamcall.text.pyliteral``
            | '[' values ']' | '(' values ')'         # arrays (``(x)``: one element)
            | '{' (key ':' value (',' key ':' value)*)? '}'     # dict
            | '{' values '}'                                    # set: an array

and streams the JSON object it stands for. It is a parser's step while a call's arguments
stream (``read(buf, pos, out, final) -> (pos, hold)``, the ``FeedLoop`` contract): one
``ToolCallArgs`` per step, and ``ended(out)`` called when the arguments end. A positional argument takes the name of the schema parameter
at its position (``params``), else ``"_0"``, ``"_1"``, ... Dict keys that are numbers,
booleans or ``None`` become strings, as ``json.dumps`` writes them. At most ``MAX_DEPTH``
containers may be open.

Emission: every emitted piece is final, so any prefix of the deltas is a prefix of the
final JSON. Keys are emitted at their ``=`` or ``:``; a ``,`` is emitted with the next
member, so trailing commas vanish; a string streams as its body arrives; a bare scalar is
held until its terminator. A ``{`` is a dict or a set: its first element is held until the
``:`` or ``,`` after it says which.

Quotes inside strings: a closing quote is taken as the end of the string only if what
follows can continue the call (``,``, ``:`` after a dict key, the closers of the open
containers, then, after the call's ``)``, ``]`` in a list, or outside one a marker's
``<`` or the next call's name). Otherwise it is content, so ``command='sed -n '1,9p'
f.py'`` reads as one string (vLLM's lfm2 suite). The check looks at most 256 characters
ahead: a quote followed by more blanks and closers than that closes its string, whatever
comes after them and wherever a chunk ends; valid Python always closes at the first
unescaped quote.

What it holds back: a keyword until its ``=``, while at most ``max_keyword`` characters
(a keyword and its ``=`` that span ``max_keyword`` or more are no keyword, however they
arrive: ``streamcall.text.header_match``); a scalar until its terminator (scanned once:
the scan offset is kept); a string prefix, an opening quote that may be a triple one;
inside a string a cut escape or a high surrogate escape, and a candidate closing quote
with the text the check above needs. The arguments end with ``done`` (the call's ``)`` was read; the step returns the
position past it) or ``error`` (malformed text at the position returned: the rest is not
arguments; ``close`` closes what was read so that it loads).

Fast reads (``streamcall.text.fast``; the reference path is the token loop, ``_read``),
written out in the pythonic engine's ``feed`` (``formats/engines/py_calls.py``), where they
run in ``feed``'s own frame wherever the parser's mode is the arguments' (a step's call per
chunk cost as much as the read: docs/performance.md); ``read``, the ARGS step, takes the
token loop from where they stop. The regexes and states they read are this module's:

- the common members at the call level (a plain keyword, ``=``, a bare scalar or a short
  string with no backslash, ``,``) are read with about one regex per chunk, whichever of
  those tokens the chunk begins in (``_MEMBERS``, ``_SCALAR_REST``, ``_STRING_REST``,
  ``_VALUE_REST``). They emit what the token loop emits and leave its state; the token loop
  goes on where they stop;
- inside a string that has filled a whole chunk, a chunk that is all body (or body and a
  cut escape) is decoded at once.

Both emit nothing the token loop would hold and hold nothing it would emit, so that a
chunk's events are the same either way (``tests/formats/pythonic/test_pythonic_fast_reads.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from json.encoder import encode_basestring as _quote
from typing import Final

from streamcall.events import Event, ToolCallArgs
from streamcall.text.jsonscan import MAX_DEPTH
from streamcall.text.jsonstring import HIGH_SURROGATE_TAIL
from streamcall.text.markers import cut_marker, header_match
from streamcall.text.pyliteral import (
    BYTES,
    RAW,
    STR,
    STRING_PREFIXES,
    body_run,
    json_body,
    plain_body_run,
    scalar_json,
)

# Bound once: CPython 3.11 calls a method of an imported name through a bound method
# made on every call (it gives such a call no LOAD_METHOD)
_high_surrogate_tail_fullmatch = HIGH_SURROGATE_TAIL.fullmatch

__all__ = ["MAX_KEYWORD", "PythonArgs"]

#: The longest keyword (or keyword and blanks before its ``=``) held back whole.
MAX_KEYWORD: Final = 256
_LOOKAHEAD = 256

_BLANKS = re.compile(r"\s*")
_KEYWORD_EQ = re.compile(r"([^\W\d]\w*)\s*=(?=[^=])")
_KEYWORD_AT_END = re.compile(r"([^\W\d]\w*)\s*=\Z")
_KEYWORD_CUT = re.compile(r"[^\W\d]\w*\s*=?")
_SCALAR_RUN = re.compile(r"[\w.+\-]*")

# What is being read (``_state``)
_MEMBER = 0  # at the call level: a keyword, a positional value or ')'
_VALUE = 1
_AFTER = 2  # after a value: ',' or a closer (or ':' after a dict key)
_DICT_KEY = 3  # after ',' in a dict: a key or '}'
_STRING = 4
_SCALAR = 5
# Open containers (``_kinds``); _BRACE: a '{' not yet known to be a dict or a set
_CALL, _LIST, _TUPLE, _DICT, _SET, _BRACE = range(6)
_SOURCE_CLOSER = (")", "]", ")", "}", "}", "}")
_JSON_CLOSER = ("}", "]", "]", "}", "]", "}")

# -- the fast member read ---------------------------------------------------------------
# A regex reads what is left of the current token and its ',' (the prefix, if any), then
# the next member: whole, cut by the end of the buffer after its '=' (its key and what has
# come of its value are taken as the token loop takes them), or a keyword cut before its
# '=' (held, as the token loop holds it). A member's groups, from its first (``base + 1``):
# 1 key; 2 scalar; 3 '...' body and 4 its closing quote; 5 "..." body and 6 its closing
# quote; 7 the comma. The last group that took part (``lastindex``, less ``base``) says
# what came: 7 a whole member, 1 a keyword only, 2 to 6 a value cut by the end (4 and 6: a
# string whose closing quote is the last character, held there as ``_closes_here`` holds
# it). A common member is a plain ASCII keyword, '=', a bare scalar or a short string with
# no backslash (and no surrogate) in it. It takes a keyword and its '=' only if they span
# under ``_FAST_KEYWORD`` characters (1 + 127 + 70 + 1; under any ``max_keyword``): a longer
# one is the token loop's to judge.
_FAST_KEYWORD: Final = 200
_KEYWORD = r"[A-Za-z_][A-Za-z0-9_]{0,127}+"
_KEYWORD_BLANKS = r"\s{0,70}+"
_SINGLE_QUOTED_BODY = r"[^'\\\ud800-\udfff]"
_DOUBLE_QUOTED_BODY = r'[^"\\\ud800-\udfff]'


def _member(then: str) -> str:
    return (
        rf"({_KEYWORD}){_KEYWORD_BLANKS}(?:=(?=[^=])\s*+"
        rf"(?:([\w.+\-]*+)|'({_SINGLE_QUOTED_BODY}*+)(')?|\"({_DOUBLE_QUOTED_BODY}*+)(\")?)"
        rf"(?:\s*+(,)\s*+{then}|\Z)|=?\Z)"
    )


_ONE_MEMBER = _member("")
# Before a member: the member, and after its ',' the next one (groups from 8).
_MEMBERS = re.compile(rf"\s*+{_member(f'(?:{_ONE_MEMBER})?')}")
# Inside a bare scalar (from where its scan stopped): its rest (group 1: where it ends).
_SCALAR_REST = re.compile(rf"[\w.+\-]*+(\s*+,)\s*+(?:{_ONE_MEMBER})?")
# Where a value is due (after a key): a whole one and its ',' (groups 1-3 the value, as in
# a member; 4 the comma).
_VALUE_REST = re.compile(
    rf"\s*+(?:([\w.+\-]++)|'({_SINGLE_QUOTED_BODY}*+)'|\"({_DOUBLE_QUOTED_BODY}*+)\")"
    rf"\s*+(,)\s*+(?:{_ONE_MEMBER})?"
)
# Inside a short string: its rest (group 1: the body) and the closing quote.
_STRING_REST = {
    "'": re.compile(rf"({_SINGLE_QUOTED_BODY}*+)'\s*+,\s*+(?:{_ONE_MEMBER})?"),
    '"': re.compile(rf"({_DOUBLE_QUOTED_BODY}*+)\"\s*+,\s*+(?:{_ONE_MEMBER})?"),
}


class PythonArgs:
    """The arguments of a parser's calls, one call at a time, read as the parser's step.

    ``start`` begins a call's arguments (just after its ``(``); ``read`` is then the step
    of the parser's arguments mode (``streamcall.text.FeedLoop``): it emits the new JSON of
    the call as one ``ToolCallArgs`` per step and, when the call's ``)`` (``done``) or
    malformed text (``error``) ends the arguments, calls ``ended(out)``, which sets the
    parser's next mode. ``parts`` is every piece of JSON decided so far (the first is
    ``{``). Satisfies ``formats._base.CallArgs`` (``done``, ``close``, ``text``), so that a
    parser ends an incomplete call through its lifecycle.
    """

    __slots__ = (
        "_after_key",
        "_body_run",
        "_brace_first",
        "_counts",
        "_ended",
        "_given",
        "_in_key",
        "_in_list",
        "_kinds",
        "_long_run",
        "_max_keyword",
        "_params",
        "_positional",
        "_quote",
        "_scanned",
        "_state",
        "_str_kind",
        "done",
        "error",
        "index",
        "parts",
    )

    def __init__(
        self, ended: Callable[[list[Event]], None], *, max_keyword: int = MAX_KEYWORD
    ) -> None:
        if max_keyword <= _FAST_KEYWORD:
            raise ValueError(f"PythonArgs: max_keyword is {max_keyword}, under {_FAST_KEYWORD + 1}")
        self._ended = ended
        self._max_keyword = max_keyword
        self.start(-1, ())

    def start(self, index: int, params: Sequence[str], *, in_list: bool = False) -> None:
        """Begin the arguments of call ``index``. ``params``: the schema's parameter names,
        for positional arguments; ``in_list``: the call is in a ``[...]`` list (what may
        follow it)."""
        self.index = index
        self.parts: list[str] = ["{"]
        self._given = 0  # how many of ``parts`` have been given out
        self.done = False
        self.error = False
        self._params = params
        self._positional = 0
        self._in_list = in_list
        self._state = _MEMBER
        self._kinds = [_CALL]  # the open containers
        self._counts = [0]  # members of each, for the ',' before the next
        self._after_key = False  # a key and its ':' were emitted; its value has not started
        self._in_key = False  # reading a dict key (or it ended and its ':' is due)
        self._brace_first: list[str] | None = None  # the first element of an undecided '{'
        self._quote = ""  # the open string's quote (one or three characters)
        self._str_kind = STR
        self._body_run = body_run("'", STR)
        self._long_run: re.Pattern[str] | None = None  # set once the string filled a chunk
        self._scanned = 0  # how far a held scalar was scanned

    # -- the step ---------------------------------------------------------------------------

    def read(self, buf: str, pos: int, out: list[Event], final: bool) -> tuple[int, bool]:
        """Read ``buf`` from ``pos`` (the loop's step contract: ``(pos, hold)``)."""
        n = len(buf)
        hold = ended = False
        if not hold and pos < n:
            pos, hold = self._read(buf, pos, final)
            if self.done or self.error:
                ended = True
        # the new pieces, as one delta
        parts = self.parts
        given = self._given
        if len(parts) > given:
            if given:
                delta = parts[given] if len(parts) == given + 1 else "".join(parts[given:])
                self._given = len(parts)
            else:  # all of them (a whole call in one chunk): the joined text stands for them
                delta = "".join(parts)
                self.parts = [delta]
                self._given = 1
            out.append(ToolCallArgs(self.index, delta))
        if ended:
            self._ended(out)
        return pos, hold

    def close(self, tail: str = "") -> str:
        """Close what was read (arguments cut short) so that it loads; the closing is
        returned and is the last part. ``tail`` is ignored: a held token is left out."""
        tail_parts = []
        in_string = self._state == _STRING
        if self._brace_first is not None:
            first = "".join(self._brace_first) + ('"' if in_string else "")
            self._brace_first = None
            if first:
                self._kinds[-1] = _SET
                tail_parts.append("[" + first)
            else:
                self._kinds[-1] = _DICT
                tail_parts.append("{")
        elif in_string:
            tail_parts.append('":null' if self._in_key else '"')
        elif self._in_key and self._state == _AFTER:
            tail_parts.append(":null")
        elif self._after_key:
            tail_parts.append("null")
        tail_parts.extend(_JSON_CLOSER[k] for k in reversed(self._kinds))
        self._kinds = []
        closing = "".join(tail_parts)
        self.parts.append(closing)
        self._given = len(self.parts)
        self.done = True
        return closing

    def text(self) -> str:
        """The arguments' JSON so far (all of it once ``done``)."""
        return "".join(self.parts)

    # -- emission -------------------------------------------------------------------------

    def _add(self, text: str) -> None:
        if text:
            if self._brace_first is not None:
                self._brace_first.append(text)
            else:
                self.parts.append(text)

    def _value_begin(self, text: str) -> None:
        """Emit the start of a value (or of a key), with the comma it needs."""
        if self._after_key:
            self._after_key = False
        else:
            counts = self._counts
            if counts[-1]:
                text = "," + text
            counts[-1] += 1
        self._add(text)

    def _key(self, name: str) -> None:
        self._value_begin(_quote(name) + ":")
        self._after_key = True
        self._state = _VALUE

    def _positional_key(self) -> None:
        i = self._positional
        self._positional += 1
        self._key(self._params[i] if i < len(self._params) else f"_{i}")

    def _open(self, kind: int) -> None:
        if self._kinds[-1] == _BRACE:
            self._decide_set()
        if kind == _BRACE:
            self._value_begin("")  # the comma now; '{' or '[' once it is known
            self._brace_first = []
        else:
            self._value_begin("[")
        self._kinds.append(kind)
        self._counts.append(0)
        self._state = _VALUE

    def _close(self) -> None:
        kind = self._kinds.pop()
        self._counts.pop()
        if kind == _BRACE:  # '{}': an empty dict
            self._brace_first = None
            self._add("{}")
        else:
            self._add(_JSON_CLOSER[kind])
        if kind == _CALL:
            self.done = True
        self._state = _AFTER

    def _decide_set(self) -> None:
        first = "".join(self._brace_first or ())
        self._brace_first = None
        self._kinds[-1] = _SET
        self._add("[" + first)

    def _decide_dict(self) -> None:
        key = "".join(self._brace_first or ())
        self._brace_first = None
        self._kinds[-1] = _DICT
        if not key.startswith('"'):
            key = _quote(key)
        self._add("{" + key + ":")

    # -- the token loop (the reference read) ---------------------------------------------

    def _read(self, buf: str, pos: int, final: bool) -> tuple[int, bool]:
        """One token after another until the call's ``)``, malformed text, a hold or the
        end of ``buf``."""
        n = len(buf)
        while pos < n and not self.done:
            state = self._state
            if state == _STRING:
                pos, hold = self._string(buf, pos, final)
                if hold:
                    return pos, True
                continue
            if state == _SCALAR:
                end = _SCALAR_RUN.match(buf, pos + self._scanned).end()  # type: ignore[union-attr]
                if end == n and not final:
                    self._scanned = end - pos
                    return pos, True
                self._scanned = 0
                token = buf[pos:end]
                if end < n and buf[end] in "'\"" and token.lower() in STRING_PREFIXES:
                    low = token.lower()
                    kind = RAW if "r" in low else BYTES if "b" in low else STR
                    opened, hold = self._string_open(buf, end, final, kind)
                    if hold:  # an empty string or a triple quote? the prefix is held
                        self._scanned = end - pos
                        return pos, True
                    pos = opened
                    continue
                value = scalar_json(token)
                if value is None:
                    return self._malformed(pos)
                if self._in_key and self._brace_first is None and not value.startswith('"'):
                    value = _quote(value)
                self._value_begin(value)
                self._state = _AFTER
                pos = end
                continue
            pos = _BLANKS.match(buf, pos).end()  # type: ignore[union-attr]
            if pos == n:
                return pos, False
            c = buf[pos]
            kind = self._kinds[-1]
            if state == _AFTER:
                if self._in_key or kind == _BRACE:
                    if c == ":":
                        if kind == _BRACE:
                            self._decide_dict()
                        else:
                            self._add(":")
                        self._in_key = False
                        self._after_key = True
                        self._state = _VALUE
                        pos += 1
                        continue
                    if self._in_key:
                        return self._malformed(pos)
                    if c == "," or c == "}":
                        self._decide_set()
                        kind = _SET
                if c == ",":
                    pos += 1
                    self._state = (
                        _MEMBER if kind == _CALL else _DICT_KEY if kind == _DICT else _VALUE
                    )
                elif c == _SOURCE_CLOSER[kind]:
                    pos += 1
                    self._close()
                else:
                    return self._malformed(pos)
            elif state == _VALUE:
                if c == "'" or c == '"':
                    pos, hold = self._string_open(buf, pos, final, STR)
                    if hold:
                        return pos, True
                elif c in "[({":
                    if self._in_key or len(self._kinds) >= MAX_DEPTH:
                        return self._malformed(pos)
                    self._open(_LIST if c == "[" else _TUPLE if c == "(" else _BRACE)
                    pos += 1
                elif c in ")]}":
                    if self._after_key or self._in_key or c != _SOURCE_CLOSER[kind]:
                        return self._malformed(pos)
                    pos += 1
                    self._close()
                else:
                    self._state = _SCALAR
                    self._scanned = 0
            elif state == _DICT_KEY:
                if c == "}":
                    pos += 1
                    self._close()
                else:
                    self._in_key = True
                    self._state = _VALUE
            else:  # _MEMBER
                if c == ")":
                    pos += 1
                    self._close()
                elif c.isidentifier():
                    m = header_match(_KEYWORD_EQ, buf, pos, self._max_keyword)
                    if m is not None:
                        self._key(m.group(1))
                        pos = m.end()
                        continue
                    reach = _KEYWORD_CUT.match(buf, pos).end()  # type: ignore[union-attr]
                    if reach == n:
                        if not final and n - pos <= self._max_keyword:
                            return pos, True
                        m = header_match(_KEYWORD_AT_END, buf, pos, self._max_keyword)
                        if m is not None:
                            self._key(m.group(1))
                            return n, False
                    self._positional_key()
                elif c in "'\"[({-+.0123456789":
                    self._positional_key()
                else:
                    return self._malformed(pos)
        return pos, False

    def _malformed(self, pos: int) -> tuple[int, bool]:
        self.error = True
        return pos, False

    # -- strings -------------------------------------------------------------------------

    def _string_open(self, buf: str, pos: int, final: bool, kind: int) -> tuple[int, bool]:
        """``buf[pos]`` is the opening quote."""
        q = buf[pos]
        if buf.startswith(q * 3, pos):
            self._quote = q * 3
            pos += 3
        elif not final and len(buf) - pos <= 2 and buf[pos:] in (q, q * 2):
            return pos, True  # '' or ''' ? the next chunk says
        else:
            self._quote = q
            pos += 1
        self._str_kind = kind
        self._body_run = body_run(q, kind)
        self._long_run = None  # short until it fills a chunk (``_string``)
        self._value_begin('"')
        self._state = _STRING
        return pos, False

    def _string(self, buf: str, pos: int, final: bool) -> tuple[int, bool]:
        n = len(buf)
        quote = self._quote
        q = quote[0]
        kind = self._str_kind
        run = self._body_run
        whole = pos == 0  # the buffer began inside the string
        while True:
            end = run.match(buf, pos).end()  # type: ignore[union-attr]
            hold = -1
            if (
                not final
                and kind == STR
                and end - pos >= 6
                and buf[end - 6] == "\\"  # a cheap test before the regex
                and (end == n or buf[end] == "\\")
                and _high_surrogate_tail_fullmatch(buf, end - 6, end) is not None
            ):
                before = buf[pos : end - 6]
                if (len(before) - len(before.rstrip("\\"))) % 2 == 0:
                    end -= 6  # its low half may be in the next chunk
                    hold = end
            if end > pos:
                self._add(json_body(buf[pos:end], kind))
                pos = end
            if hold >= 0:
                return hold, True
            if pos == n:
                if whole:
                    self._long_string()
                return n, False
            if buf[pos] == "\\":  # a cut escape
                if not final:
                    if whole:
                        self._long_string()
                    return pos, True
                self._add(_quote(buf[pos:])[1:-1])
                return n, False
            # buf[pos] is the quote character
            if len(quote) == 3:
                if buf.startswith(quote, pos):
                    pos += 3
                    break
                if not final and cut_marker(quote, buf, pos):
                    return pos, True
                self._add(_quote(q)[1:-1])
                pos += 1
                continue
            verdict = self._closes_here(buf, pos + 1, final)
            if verdict < 0:
                return pos, True
            if verdict == 0:
                self._add(_quote(q)[1:-1])
                pos += 1
                continue
            pos += 1
            break
        self._add('"')
        self._state = _AFTER
        return pos, False

    def _long_string(self) -> None:
        """A whole chunk was string body: the string is long, and its next chunks are
        decoded at once by ``read``'s fast read."""
        if self._long_run is None and self._brace_first is None:
            self._long_run = plain_body_run(self._quote[0], self._str_kind)

    def _closes_here(self, buf: str, i: int, final: bool) -> int:
        """Is the quote just before ``buf[i]`` the end of the string? 1 yes, 0 no, -1 wait."""
        n = len(buf)
        start = i
        kinds = self._kinds
        top = len(kinds) - 1
        level = top
        while True:
            i = _BLANKS.match(buf, i).end()  # type: ignore[union-attr]
            if i - start > _LOOKAHEAD:
                # past the window the quote closes, whether or not the text goes on: the
                # verdict depends on the window alone, never on where a chunk ended
                return 1
            if i == n:
                return 1 if final else -1
            c = buf[i]
            if c == ",":
                return 1
            if c == ":":
                return int(level == top and (self._in_key or kinds[top] == _BRACE))
            if level >= 0:
                if c != _SOURCE_CLOSER[kinds[level]]:
                    return 0
                level -= 1
                i += 1
                continue
            # every container closed: the call ended; what may follow it?
            if c == "]":
                return int(self._in_list)
            return int(c == "<" or (not self._in_list and c.isidentifier()))

    # -- the fast reads ---------------------------------------------------------------------
