"""The pythonic family engine: calls written as Python, converted to JSON while they stream.

Grammar (class attributes choose the block markup)::

    output := text* (block text*)*
    block  := START ws* ( '[' calls? ']' | calls ) ws* END?      # marker formats
            | ^ ws* '[' calls ']'                               # LIST_AT_START formats
    calls  := call (ws* ','? ws* call)* (ws* ',')?              # ws may be a newline (olmo3)
    call   := NAME ws* '(' ( arg (',' arg)* ','? )? ')'         # NAME := ident ('.' ident)*
    arg    := IDENT '=' value | value                           # a positional value: below
    value  := string | number | True | False | None             # and JSON's
            | true | false | null                               #   literals too
            | '[' values ']' | '(' values ')'
            | '{' (key ':' value (',' key ':' value)*)? '}'     # dict
            | '{' values '}'                                    # set

Conversion to JSON: ``True``/``False``/``None`` become ``true``/``false``/``null``, and
JSON's own ``true``/``false``/``null`` are read as the same literals (models trained on
JSON write ``on=false``; in Python they would be unknown names, so nothing valid is read
differently); lists,
tuples and sets become arrays (``(x)`` without a comma is read as a one-element array);
dict keys that are numbers, booleans or ``None`` become strings, as ``json.dumps`` writes
them. Numbers: a JSON number is kept as written (``1e999`` too); otherwise Python's
``1_000``, ``0x1F``, ``0o7``, ``0b1``, ``07`` (leading zeros, vLLM #lfm2), ``1.``,
``.5`` and ``+1`` are normalised. Strings: single, double and triple quotes; prefixes
``r``, ``b``, ``u``, ``f`` (and ``br``/``rb``/``fr``/``rf``; an f-string is taken
literally). Escapes: ``\\\\ \\' \\" \\a \\b \\f \\n \\r \\t \\v``, octal ``\\ooo``,
``\\xhh``, ``\\uXXXX``, ``\\UXXXXXXXX`` and ``\\N{NAME}`` (not in bytes), a backslash
before a newline (a line continuation); an unknown escape keeps its backslash, as Python
does. A surrogate pair written as two ``\\u`` escapes is joined; a lone surrogate becomes
U+FFFD. Raw newlines and control characters inside a string are accepted (vLLM's lfm2
tests expect it) and escaped in the JSON.

A positional argument has no name. With ``tools`` given it takes the name of the schema
parameter at its position (``properties`` order); without, it is keyed ``"_0"``,
``"_1"``, ... by position.

Quotes inside strings: a closing quote is taken as the end of the string only if what
follows can continue the call (``,``, ``:`` after a dict key, the closers of the open
containers, then ``]``, an end marker or the next call). Otherwise it is content, so
``command='sed -n '1,9p' f.py'`` reads as one string (vLLM's lfm2 suite). The check looks
at most 256 characters ahead; valid Python always closes at the first unescaped quote.

Modes: AT_START (only leading whitespace seen) -> TEXT (looking for START) -> HEAD (a call
name up to its ``(``) -> ARGS (the literal scanner; sub-states ARG, VALUE, AFTER, DKEY,
STRING, SCALAR; a stack of open containers) -> BETWEEN (after a call: a separator, the
next call, ``]`` or END) -> AFTER_LIST (``]`` read; END may follow). Formats without START
markers go to PASS (everything is text) once the first block is over or did not begin.

Emission: every emitted piece is final, so any prefix of the deltas is a prefix of the
final JSON. Keys are emitted at their ``=`` or ``:``; a ``,`` is emitted with the next
member, so trailing commas vanish; a string streams as its body arrives; a bare scalar is
held until its terminator. A ``{`` is a dict or a set: its first element is held until the
``:`` or ``,`` after it says which. The pieces decided in one chunk leave as one
``ToolCallArgs`` (an event costs more than scanning a token).

What it holds back: a partial START or END marker; the header until its ``(`` (at most
``MAX_HEAD`` characters); a keyword name until its ``=`` (``MAX_HEAD``); a scalar until its
terminator (scanned once: the scan offset is remembered); inside a string a cut escape
(at most ``\\N{`` plus 100 characters) or a high surrogate escape, and a candidate closing
quote with the text the check above needs. Malformed input in a call closes its JSON and
ends it ``incomplete``; the rest is text. A call whose ``)`` was read is complete only once
what follows proves it ended: a ``,``, the next call's head, END, or the list's ``]`` where
no END follows it (no END, or ``END_OPTIONAL``); junk or the end of the stream first end it
``incomplete``, its arguments whole. A block that breaks before its first call is
released as text, whole. The shortcuts below hold back nothing more.

Shortcuts (``feed``, while a call's arguments stream; the general path is ``_args``): a
chunk inside a long string (one that has filled a whole chunk) that is all body, or body
and a cut escape, is decoded at once; otherwise the common members at the call level (a
plain keyword, ``=``, a bare scalar or a short string with no backslash, ``,``) are read
with about one regex per chunk, whichever token the chunk begins in (``_MEMBER``,
``_SCALAR_REST``, ``_STRING_REST``, ``_VALUE_REST``). After every chunk they have emitted
what the general path emits and left its state; tests/formats/test_pythonic_shortcuts.py
switches each off and compares chunk by chunk. They are kept because they measured faster
(docs/performance.md).
"""

from __future__ import annotations

import math
import re
import unicodedata
from json.encoder import encode_basestring as _encode_basestring
from typing import Any, ClassVar

from streamcall.events import Event, Text, ToolCallArgs
from streamcall.formats._base import ToolParser, Tools
from streamcall.formats._jsoncalls import JsonCallsParser
from streamcall.formats._scan import MarkerFinder, cut_marker, json_quote
from streamcall.partial.incremental import MAX_DEPTH

__all__ = ["PythonicCallsParser", "py_literal"]

_WS = re.compile(r"\s*")
_CALL_HEAD = re.compile(r"([^\W\d]\w*(?:\.[^\W\d]\w*)*)\s*\(")
_CALL_HEAD_PREFIX = re.compile(r"(?:[^\W\d]\w*(?:\.(?:[^\W\d]\w*)?)*\s*)?")
_KWARG = re.compile(r"([^\W\d]\w*)\s*=(?=[^=])")
_KWARG_AT_END = re.compile(r"([^\W\d]\w*)\s*=\Z")
_KWARG_PREFIX = re.compile(r"[^\W\d]\w*\s*=?")
_SCALAR_RUN = re.compile(r"[\w.+\-]*")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_PY_NUMBER = re.compile(
    r"[+-]?(?:(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?"
    r"|0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+)"
)
_DECIMAL_INT = re.compile(r"-?\d+")
_PREFIXES = frozenset({"r", "u", "b", "f", "br", "rb", "fr", "rf"})
_LITERALS = {
    "True": "true",
    "False": "false",
    "None": "null",
    "true": "true",
    "false": "false",
    "null": "null",
}
# ``feed``'s member shortcut reads the common members of a call with about one regex per
# chunk. A common member is a plain ASCII keyword, '=', a bare scalar or a short string with
# no backslash (and no surrogate) in it, and the ',' after it. A regex reads what is left of
# the current token and its ',' (the prefix, if any), then the next member: whole, cut by
# the end of the buffer after its '=' (its key and what has come of its value are taken as
# the general path takes them), or a keyword cut before its '=' (held, as the general path
# holds it). A member's groups, from its first (``base + 1``): 1 key; 2 scalar; 3 '...'
# body and 4 its closing quote; 5 "..." body and 6 its closing quote; 7 the comma. The last
# group that took part (``lastindex``, less ``base``) says what came: 7 a whole member, 1 a
# keyword only, 2 to 6 a value cut by the end (4 and 6: a string whose closing quote is the
# last character, held there as ``_closes_here`` holds it).
_KEYWORD = r"[A-Za-z_][A-Za-z0-9_]*+"
_SINGLE_QUOTED_BODY = r"[^'\\\ud800-\udfff]"
_DOUBLE_QUOTED_BODY = r'[^"\\\ud800-\udfff]'


def _member(then: str) -> str:
    return (
        rf"({_KEYWORD})\s*+(?:=(?=[^=])\s*+"
        rf"(?:([\w.+\-]*+)|'({_SINGLE_QUOTED_BODY}*+)(')?|\"({_DOUBLE_QUOTED_BODY}*+)(\")?)"
        rf"(?:\s*+(,)\s*+{then}|\Z)|=?\Z)"
    )


_ONE_MEMBER = _member("")
# Before a member: the member, and after its ',' the next one (groups from 8).
_MEMBER = re.compile(rf"\s*+{_member(f'(?:{_ONE_MEMBER})?')}")
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
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_HIGH_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}")

# A run of string body whose escapes are all complete. An escape counts as complete when
# what follows it decides it: ``\x4`` at the end of the buffer may still grow, ``\x4g`` is
# an (invalid, literal) escape. The run stops at a quote character, at a cut escape, or
# at the end of the buffer.
_ESC_STR = (
    r"x[0-9a-fA-F]{2}|x(?=[0-9a-fA-F]?[^0-9a-fA-F])"
    r"|u[0-9a-fA-F]{4}|u(?=[0-9a-fA-F]{0,3}[^0-9a-fA-F])"
    r"|U[0-9a-fA-F]{8}|U(?=[0-9a-fA-F]{0,7}[^0-9a-fA-F])"
    r"|N\{[^{}\n]{1,100}\}|N(?=[^{])|N(?=\{(?:[^{}\n]{0,100}[{}\n]|[^{}\n]{101}))"
    r"|[0-7]{3}|[0-7]{1,2}(?=[^0-7])|\r\n|\r(?=[^\n])|[^xuUN0-7\r]"
)
_ESC_BYTES = (
    r"x[0-9a-fA-F]{2}|x(?=[0-9a-fA-F]?[^0-9a-fA-F])"
    r"|[0-7]{3}|[0-7]{1,2}(?=[^0-7])|\r\n|\r(?=[^\n])|[^x0-7\r]"
)


def _run_re(quote: str, esc: str | None, also: str = "") -> re.Pattern[str]:
    # Possessive: nothing follows, so the match ends where a greedy one would, with no
    # backtracking state kept per escape.
    q = re.escape(quote) + also
    if esc is None:  # raw: a backslash keeps the next character (and hides a quote)
        return re.compile(rf"[^{q}\\]*+(?:\\[\s\S][^{q}\\]*+)*+")
    return re.compile(rf"[^{q}\\]*+(?:\\(?:{esc})[^{q}\\]*+)*+")


# (quote char, kind) -> run regex; kind 0 str, 1 bytes, 2 raw
_RUNS = {
    (q, kind): _run_re(q, (_ESC_STR, _ESC_BYTES, None)[kind]) for q in "'\"" for kind in (0, 1, 2)
}
# The same without raw surrogates, for ``feed``'s string path: text with no backslash that
# such a run matches needs no decoding.
_FAST_RUNS = {
    (q, kind): _run_re(q, (_ESC_STR, _ESC_BYTES, None)[kind], r"\ud800-\udfff")
    for q in "'\""
    for kind in (0, 1, 2)
}
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


def _decode(run: str, kind: int) -> str:
    if kind == 2 or "\\" not in run:
        text = run
    else:
        text = (_UNESCAPE_STR if kind == 0 else _UNESCAPE_BYTES).sub(_unescape_one, run)
    if _LONE_SURROGATE.search(text) is not None:
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def py_literal(value: Any) -> str:
    """A JSON value written as a Python literal (what a pythonic model writes)."""
    if value is None:
        return "None"
    if value is True or value is False:
        return "True" if value else "False"
    if isinstance(value, int | float | str):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(py_literal(v) for v in value) + "]"
    return "{" + ", ".join(f"{k!r}: {py_literal(v)}" for k, v in value.items()) + "}"


def py_call(name: str, args: dict[str, Any]) -> str:
    return f"{name}(" + ", ".join(f"{k}={py_literal(v)}" for k, v in args.items()) + ")"


# modes
_AT_START, _TEXT, _HEAD, _ARGS, _BETWEEN, _AFTER_LIST, _PASS, _JSON = range(8)
# argument sub-states
_ARG, _VALUE, _AFTER, _DKEY, _STRING, _SCALAR = range(6)
# containers
_CALL, _LIST, _TUPLE, _DICT, _SET, _BRACE = range(6)  # _BRACE: '{' not yet dict or set
_SOURCE_CLOSER = (")", "]", ")", "}", "}", "}")
_JSON_CLOSER = ("}", "]", "]", "}", "]", "}")
_LOOKAHEAD = 256


class PythonicCallsParser(ToolParser):
    """Configurable parser for the pythonic tool-call formats."""

    START: ClassVar[tuple[str, ...]] = ()
    END: ClassVar[str | None] = None
    #: a '[' at the very start of the output (after whitespace) opens a block
    LIST_AT_START: ClassVar[bool] = False
    #: the calls must be the whole output (no START markers): text around them is text
    WHOLE_OUTPUT: ClassVar[bool] = False
    #: a block opened by START whose first call is a JSON object (``[{"name": ...,
    #: "arguments": {...}}]``) is read by the JSON-call engine (LFM2 writes JSON calls
    #: when its system prompt asks for them)
    JSON_BODY: ClassVar[bool] = False
    #: after the list's ``]`` the END marker may be left out (Llama 4): the ``]`` then
    #: completes the last call; otherwise only END does
    END_OPTIONAL: ClassVar[bool] = False
    MAX_HEAD: ClassVar[int] = 256

    # The shortcuts of ``feed`` (a test switches them off on an instance to compare them
    # with the general path). Class attributes: more than 30 instance attributes would
    # cost every attribute access its shared-key dict.
    _member_re: ClassVar[re.Pattern[str]] = _MEMBER
    _string_rest: ClassVar[dict[str, re.Pattern[str]]] = _STRING_REST
    _scalar_rest: ClassVar[re.Pattern[str]] = _SCALAR_REST
    _value_rest: ClassVar[re.Pattern[str]] = _VALUE_REST
    _string_path: ClassVar[bool] = True

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__(tools, id_prefix=id_prefix)
        self._start_finder = MarkerFinder(self.START) if self.START else None
        self._mode = _AT_START
        self._raw: list[str] = []  # block text since its start or its last call
        self._bracketed = False
        self._block_calls = 0
        self._separator_read = False
        self._json: _JsonBody | None = None
        # A call whose ')' was read, waiting for what proves it ended: (index, arguments)
        self._closed_call: tuple[int, str] | None = None
        self._reset_call()

    def _reset_call(self) -> None:
        self._index = -1
        self._parts: list[str] = []  # the argument pieces, one per token
        self._flushed = 0  # how many of them have been handed out
        self._arg_state = _ARG
        self._open_kinds: list[int] = []
        self._member_counts: list[int] = []
        self._after_key = False  # a key and its ':' were emitted; its value has not started
        self._in_key = False  # reading a dict key (or it ended and its ':' is due)
        self._brace_first: list[str] | None = None  # the first element of an undecided '{'
        self._quote = ""
        self._str_kind = 0  # 0 str, 1 bytes, 2 raw
        self._body_run = _RUNS["'", 0]  # the body regex of the open string
        self._fast_body_run: re.Pattern[str] | None = None  # and feed's (None: not to be used)
        self._scanned = 0
        self._positional = 0
        self._params: list[str] = []

    # -- emission ------------------------------------------------------------------------

    def _add_args(self, out: list[Event], text: str) -> None:
        if not text:
            return
        if self._brace_first is not None:
            self._brace_first.append(text)
            return
        # One piece per token; they leave as one ToolCallArgs per chunk (``_flush_args``).
        self._parts.append(text)

    def _flush_args(self, out: list[Event]) -> None:
        """Hand out the argument pieces of this chunk as one event.

        Many small keys give several tokens (a key, a value, a comma) per chunk; one event
        for them all is cheaper than one each, and their concatenation is the same.
        """
        parts = self._parts
        done = self._flushed
        if len(parts) > done:
            if done:
                text = "".join(parts[done:])
                self._flushed = len(parts)
            else:
                # All of the call's pieces (a whole call in one chunk): the joined text
                # stands for them, so the call's arguments are not a second copy.
                text = "".join(parts)
                self._parts = [text]
                self._flushed = 1
            out.append(ToolCallArgs(self._index, text))

    def _value_begin(self, out: list[Event], text: str) -> None:
        """Emit the start of a value (or of a key), with the comma it needs."""
        if self._after_key:
            self._after_key = False
        else:
            counts = self._member_counts
            if counts[-1]:
                text = "," + text
            counts[-1] += 1
        self._add_args(out, text)

    def _key(self, out: list[Event], name: str) -> None:
        self._value_begin(out, json_quote(name) + ":")
        self._after_key = True
        self._arg_state = _VALUE

    def _open(self, out: list[Event], kind: int) -> None:
        if self._open_kinds[-1] == _BRACE:
            self._decide_set(out)
        if kind == _BRACE:
            self._value_begin(out, "")  # the comma now; '{' or '[' once it is known
            self._brace_first = []
        else:
            self._value_begin(out, "[")
        self._open_kinds.append(kind)
        self._member_counts.append(0)
        self._arg_state = _VALUE

    def _close(self, out: list[Event]) -> None:
        kind = self._open_kinds.pop()
        self._member_counts.pop()
        if kind == _BRACE:  # '{}': an empty dict
            self._brace_first = None
            self._add_args(out, "{}")
        else:
            self._add_args(out, _JSON_CLOSER[kind])
        if kind == _CALL:
            self._close_call(out, incomplete=False)
        else:
            self._arg_state = _AFTER

    def _decide_set(self, out: list[Event]) -> None:
        first = "".join(self._brace_first or ())
        self._brace_first = None
        self._open_kinds[-1] = _SET
        self._add_args(out, "[" + first)

    def _decide_dict(self, out: list[Event]) -> None:
        key = "".join(self._brace_first or ())
        self._brace_first = None
        self._open_kinds[-1] = _DICT
        if not key.startswith('"'):
            key = json_quote(key)
        self._add_args(out, "{" + key + ":")

    def _scalar_json(self, tok: str) -> str | None:
        lit = _LITERALS.get(tok)
        if lit is not None:
            return lit
        if _JSON_NUMBER.fullmatch(tok):
            return tok
        if not _PY_NUMBER.fullmatch(tok):
            return None
        t = tok.replace("_", "").lstrip("+")
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

    def _close_call(self, out: list[Event], incomplete: bool) -> None:
        if incomplete:
            self._add_closing(out)
        self._flush_args(out)
        if incomplete:
            self._end_call(out, self._index, "".join(self._parts), True)
        else:  # its ')': complete once what follows proves it ended (``_end_closed_call``)
            self._closed_call = (self._index, "".join(self._parts))
        self._block_calls += 1
        self._raw = []
        self._separator_read = False
        self._mode = _BETWEEN

    def _add_closing(self, out: list[Event]) -> None:
        tail = []
        in_string = self._arg_state == _STRING
        if self._brace_first is not None:
            first = "".join(self._brace_first) + ('"' if in_string else "")
            self._brace_first = None
            if first:
                self._open_kinds[-1] = _SET
                tail.append("[" + first)
            else:
                self._open_kinds[-1] = _DICT
                tail.append("{")
        elif in_string:
            tail.append('":null' if self._in_key else '"')
        elif self._in_key and self._arg_state == _AFTER:
            tail.append(":null")
        elif self._after_key:
            tail.append("null")
        tail.extend(_JSON_CLOSER[k] for k in reversed(self._open_kinds))
        self._open_kinds = []
        self._add_args(out, "".join(tail))

    def _end_closed_call(self, out: list[Event], complete: bool) -> None:
        """End the call whose ')' was read: complete if a separator, the next call, the
        list's end (where END may be left out) or END followed it; else incomplete."""
        if self._closed_call is not None:
            index, arguments = self._closed_call
            self._closed_call = None
            self._end_call(out, index, arguments, not complete)

    def _end_malformed(self, out: list[Event], pos: int) -> int:
        """Malformed markup inside a call: close it; the rest is text."""
        self._close_call(out, incomplete=True)
        self._mode = _PASS if self.WHOLE_OUTPUT else _TEXT
        return pos

    # -- the loop ------------------------------------------------------------------------

    def feed(self, text: str) -> list[Event]:
        """``FeedLoop.feed``, with the chunks of a call's arguments taken by shortcuts.

        Most chunks of a long call fall inside its arguments. A chunk inside a long string
        that is all body (or body and a cut escape) is decoded at once (``_FAST_RUNS``).
        Otherwise the common members at the call level are read with about one regex per
        chunk (``_MEMBER`` and the ``_*_REST`` regexes, by the token the chunk begins in);
        what they emit and the state they leave are the general path's, which takes over
        (``_args``) where they stop. (``finish`` always leaves ARGS, so a finished parser
        takes the general loop.) Tests check that this gives what the general loop gives,
        chunk by chunk.
        """
        out: list[Event] = []
        if self._mode != _ARGS or not text:  # FeedLoop.feed, written out (a call less)
            if self._finished or not text:
                return out
            buf = self._tail + text if self._tail else text
            pos = self._step(buf, 0, out, False)
            self._tail = buf[pos:] if pos < len(buf) else ""
            return out
        buf = self._tail + text if self._tail else text
        n = len(buf)
        if self._fast_body_run is not None and self._arg_state == _STRING:
            # Inside a long string most chunks are one run of body up to their end, or up
            # to an escape cut by it (held, as _string holds it), and do not end with what
            # may be a high surrogate escape (which _string holds for its low half).
            end = self._fast_body_run.match(buf).end()  # type: ignore[union-attr]
            if (end == n or buf[end] == "\\") and not buf.startswith("\\u", end - 6):
                run = buf[:end] if end < n else buf
                if "\\" in run:
                    piece = _encode_basestring(_decode(run, self._str_kind))[1:-1]
                else:
                    piece = _encode_basestring(run)[1:-1]
                if piece:  # (empty: nothing, or a line continuation)
                    self._parts.append(piece)
                    self._flushed += 1
                    out.append(ToolCallArgs(self._index, piece))
                self._tail = buf[end:] if end < n else ""
                return out
        delta = self._parts  # (what the shortcut emits)
        pos = 0
        hold = -1
        more = True
        while more and pos < n:
            # The rest of the current token at the call level, and the next member.
            state = self._arg_state
            if state == _ARG:
                m = self._member_re.match(buf, pos)
                if m is None:
                    break
                base = 0
            elif state == _SCALAR:
                if not self._after_key or self._open_kinds[-1] != _CALL:
                    break
                m = self._scalar_rest.match(buf, pos + self._scanned)
                if m is None:
                    break
                value = self._quick_scalar(buf[pos : m.start(1)])
                if value is None:  # the general path says what is wrong
                    break
                delta.append(value)
                self._after_key = False
                self._scanned = 0
                self._arg_state = _ARG
                base = 1
            elif state == _STRING:
                if (
                    self._fast_body_run is not None
                    or len(self._quote) != 1
                    or self._open_kinds[-1] != _CALL
                ):
                    break
                m = self._string_rest[self._quote].match(buf, pos)
                if m is None:
                    break
                delta.append(_encode_basestring(m.group(1))[1:])
                self._arg_state = _ARG
                base = 1
            elif state == _VALUE:
                if not self._after_key or self._open_kinds[-1] != _CALL:
                    break
                m = self._value_rest.match(buf, pos)
                if m is None:
                    break
                scalar = m.group(1)
                if scalar is None:
                    value = _encode_basestring(m.group(2) if m.group(3) is None else m.group(3))
                else:
                    value = self._quick_scalar(scalar)
                    if value is None:  # the general path says what is wrong
                        break
                delta.append(value)
                self._after_key = False
                self._arg_state = _ARG
                base = 4
            else:
                break
            last: int = m.lastindex  # type: ignore[assignment]
            more = False
            while True:  # the members this match read (two at most)
                r = last - base
                if r <= 0:  # no member follows
                    pos = m.end()
                    more = True
                    break
                if r >= 7:  # whole
                    key, scalar, single, double = m.group(base + 1, base + 2, base + 3, base + 5)
                    if scalar is None:
                        value = _encode_basestring(single if double is None else double)
                    else:
                        value = _LITERALS.get(scalar)
                        if value is None:
                            if (
                                scalar.isdigit()
                                and scalar.isascii()
                                and (scalar[0] != "0" or len(scalar) == 1)
                            ):
                                value = scalar  # _scalar_json's common case
                            else:
                                value = self._scalar_json(scalar)
                        if value is None:  # the general path says what is wrong
                            pos = m.start(base + 1)
                            break
                    counts = self._member_counts
                    delta.append(f',"{key}":{value}' if counts[-1] else f'"{key}":{value}')
                    counts[-1] += 1
                    if r == 7:
                        pos = m.end()
                        more = True
                        break
                    base += 7
                    continue
                pos = m.start(base + 1)
                if r == 1:  # a keyword cut before its value: held
                    if n - pos <= self.MAX_HEAD:
                        hold = pos
                    break
                # cut by the end of the buffer after its '=': the key, and the value begun
                key = m.group(base + 1)
                counts = self._member_counts
                text = f',"{key}":' if counts[-1] else f'"{key}":'
                counts[-1] += 1
                if r == 2:
                    delta.append(text)
                    self._after_key = True
                    value = m.group(base + 2)
                    if value:
                        self._arg_state = _SCALAR
                        self._scanned = len(value)
                        hold = m.start(base + 2)
                    else:  # only whitespace after the '='
                        self._arg_state = _VALUE
                        pos = n
                    break
                # a string: cut in its body (r 3 or 5) or its closing quote last (r 4 or 6)
                body = base + 3 if r <= 4 else base + 5
                value = m.group(body)
                if not value:  # ' or '' at the end: held, as _string_open holds it
                    delta.append(text)
                    self._after_key = True
                    self._arg_state = _VALUE
                    hold = m.start(body) - 1
                    break
                q = "'" if r <= 4 else '"'
                self._quote = q
                self._str_kind = 0
                self._body_run = _RUNS[q, 0]
                self._fast_body_run = None  # short, probably: the next chunk tries _STRING_REST
                delta.append(text + _encode_basestring(value)[:-1])
                self._arg_state = _STRING
                if r & 1:
                    pos = n
                else:  # the quote: _closes_here needs to see what follows it
                    hold = m.start(body + 1)
                break
        if hold >= 0:
            pos = hold
        elif pos < n:  # the general path goes on
            pos = self._args(buf, pos, out, False)
            if pos < 0:
                pos = -pos - 1
            elif pos < n:  # the call ended inside this chunk
                pos = self._step(buf, pos, out, False)
        parts = self._parts  # (a new list if a call ended and another began)
        done = self._flushed
        if len(parts) > done:  # _flush_args
            piece = parts[done] if len(parts) == done + 1 else "".join(parts[done:])
            self._flushed = len(parts)
            out.append(ToolCallArgs(self._index, piece))
        self._tail = buf[pos:] if pos < n else ""
        return out

    def _step(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        n = len(buf)
        while pos < n:
            mode = self._mode
            if mode == _ARGS:
                pos = self._args(buf, pos, out, final)
                if pos < 0:
                    pos = -pos - 1
                    break
            elif mode == _TEXT:
                if self._gap is not None:
                    pos = self._skip_gap(buf, pos, out, self.START, final)
                    if pos == n:
                        return pos
                finder = self._start_finder
                if finder is None:
                    self._mode = _PASS
                    continue
                end, resume, marker = (
                    finder.find_final(buf, pos) if final else finder.find(buf, pos)
                )
                if end > pos:
                    out.append(Text(buf[pos:end]))
                if marker is None:
                    return end
                self._open_block(marker, bracketed=False)
                pos = resume
            elif mode == _PASS:
                if self._gap is not None:
                    pos = self._skip_gap(buf, pos, out, (), final)
                    if pos == n:
                        return pos
                out.append(Text(buf[pos:] if pos else buf))
                return n
            elif mode == _AT_START:
                ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
                if ws > pos:
                    out.append(Text(buf[pos:ws]))
                    pos = ws
                if pos == n:
                    return n
                if self.LIST_AT_START and buf[pos] == "[":
                    self._open_block("[", bracketed=True)
                    pos += 1
                else:
                    self._mode = _TEXT
            elif mode == _HEAD:
                pos = self._head(buf, pos, out, final)
                if pos < 0:
                    return -pos - 1
            elif mode == _BETWEEN:
                pos = self._between(buf, pos, out, final)
                if pos < 0:
                    return -pos - 1
            elif mode == _JSON:
                body = self._json
                assert body is not None
                pos = body.step_for(self, buf, pos, out, final)
                if pos < 0:
                    return -pos - 1
                if not body._block_open:
                    self._json = None
                    self._mode = _TEXT
            else:  # _AFTER_LIST: ']' read; the end marker may follow
                end_marker = self.END
                assert end_marker is not None
                ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
                if ws > pos:
                    self._raw.append(buf[pos:ws])
                    pos = ws
                if pos == n:
                    return n
                self._mode = _TEXT
                self._block_ended()
                if buf.startswith(end_marker, pos):
                    self._end_closed_call(out, True)
                    pos += len(end_marker)
                elif not final and cut_marker(end_marker, buf, pos):
                    self._mode = _AFTER_LIST
                    self._gap = None
                    return pos
                else:  # no end marker: the whitespace is the gap after the block
                    self._end_closed_call(out, False)
                    gap = self._gap
                    assert gap is not None
                    gap.extend(self._raw)
                self._raw = []
        # Argument pieces are pending only in ARGS (a call's '{' too), which leaves the loop
        # here: they go out as one event (_flush_args).
        if len(self._parts) > self._flushed:
            self._flush_args(out)
        return pos

    def _open_block(self, opener: str, bracketed: bool) -> None:
        self._raw = [opener]
        self._bracketed = bracketed
        self._block_calls = 0
        self._separator_read = False
        self._mode = _HEAD

    def _end_block(self, out: list[Event]) -> None:
        """The block ends here without its closing markup: what it held back is text."""
        self._end_closed_call(out, False)
        if self._raw:
            out.append(Text("".join(self._raw)))
            self._raw = []
        self._mode = _PASS if self.WHOLE_OUTPUT else _TEXT

    def _head(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """A call name up to its '('. Returns the new position or ``-(pos + 1)`` to hold."""
        n = len(buf)
        ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            self._raw.append(buf[pos:ws])
            pos = ws
        if ws == n:
            return n
        c = buf[ws]
        end_marker = self.END
        if c == "[" and not self._bracketed and self._block_calls == 0:
            self._bracketed = True
            self._raw.append(buf[pos : ws + 1])
            return ws + 1
        if c == "]" and self._bracketed and self._block_calls:  # '[f(), ]'
            self._raw.append(buf[pos : ws + 1])
            return self._list_closed(out, ws + 1)
        if c == "{" and self.JSON_BODY and self._block_calls == 0:
            self._raw.append(buf[pos:ws])
            body = _JsonBody(self.tools, id_prefix=self.id_prefix)
            body._open_block(self._raw, bare=False)
            body._in_array = self._bracketed
            body._end = self.END
            self._json = body
            self._raw = []
            self._mode = _JSON
            return ws
        if end_marker is not None and self._block_calls and buf.startswith(end_marker, ws):
            self._end_closed_call(out, True)
            self._raw = []
            self._mode = _TEXT
            self._block_ended()
            return ws + len(end_marker)
        m = _CALL_HEAD.match(buf, ws)
        if m is None:
            viable = _CALL_HEAD_PREFIX.match(buf, ws).end() == n  # type: ignore[union-attr]
            if end_marker is not None and c == "<":
                viable = cut_marker(end_marker, buf, ws)
            if viable and not final and n - pos <= self.MAX_HEAD:
                return -(pos + 1)
            self._end_block(out)
            return pos
        self._end_closed_call(out, True)  # the next call: the last one ended
        self._raw = []
        self._reset_call()
        name = m.group(1)
        self._index = self._start_call(out, name)
        self._params = list(self._param_types(name))
        self._open_kinds = [_CALL]
        self._member_counts = [0]
        self._add_args(out, "{")
        self._arg_state = _ARG
        self._mode = _ARGS
        return m.end()

    def _list_closed(self, out: list[Event], pos: int) -> int:
        # The ']' (and the blanks before it) close a block that has calls: markup, never
        # text, whether or not an end marker follows.
        self._raw = []
        if self.END is None or self.END_OPTIONAL:
            self._end_closed_call(out, True)
        if self.END is None:
            self._mode = _PASS if self.WHOLE_OUTPUT else _TEXT
            self._block_ended()  # the blanks after it: a gap, as after any block
        else:
            self._mode = _AFTER_LIST
        return pos

    def _between(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        n = len(buf)
        ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws == n:
            self._raw.append(buf[pos:])
            return n
        c = buf[ws]
        end_marker = self.END
        if c == "," and not self._separator_read:
            self._end_closed_call(out, True)  # a separator: the call before it ended
            self._separator_read = True
            self._raw.append(buf[pos : ws + 1])
            return ws + 1
        if c == "]" and self._bracketed:
            self._raw.append(buf[pos : ws + 1])
            return self._list_closed(out, ws + 1)
        if end_marker is not None:
            if buf.startswith(end_marker, ws):
                self._end_closed_call(out, True)
                self._raw = []
                self._mode = _TEXT
                self._block_ended()
                return ws + len(end_marker)
            if c == "<" and not final and cut_marker(end_marker, buf, ws):
                self._raw.append(buf[pos:ws])
                return -(ws + 1)
        if c.isidentifier():
            self._raw.append(buf[pos:ws])
            self._mode = _HEAD
            return ws
        self._end_block(out)
        return pos

    # -- inside a call -------------------------------------------------------------------

    def _args(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """Returns the new position, or ``-(pos + 1)`` to stop and hold ``buf[pos:]``."""
        n = len(buf)
        while pos < n and self._mode == _ARGS:
            state = self._arg_state
            if state == _STRING:
                pos = self._string(buf, pos, out, final)
                if pos < 0:
                    return pos
                continue
            if state == _SCALAR:
                end = _SCALAR_RUN.match(buf, pos + self._scanned).end()  # type: ignore[union-attr]
                if end == n and not final:
                    self._scanned = end - pos
                    return -(pos + 1)
                self._scanned = 0
                tok = buf[pos:end]
                if end < n and buf[end] in "'\"" and tok.lower() in _PREFIXES:
                    low = tok.lower()
                    kind = 2 if "r" in low else 1 if "b" in low else 0
                    opened = self._string_open(buf, end, out, final, kind)
                    if opened < 0:  # an empty string or a triple quote? hold the prefix
                        self._scanned = end - pos
                        return -(pos + 1)
                    pos = opened
                    continue
                value = self._scalar_json(tok)
                if value is None:
                    return self._end_malformed(out, pos)
                if self._in_key and self._brace_first is None and not value.startswith('"'):
                    value = json_quote(value)
                self._value_begin(out, value)
                self._arg_state = _AFTER
                pos = end
                continue
            pos = _WS.match(buf, pos).end()  # type: ignore[union-attr]
            if pos == n:
                return pos
            c = buf[pos]
            kinds = self._open_kinds
            kind = kinds[-1]
            if state == _AFTER:
                if self._in_key or kind == _BRACE:
                    if c == ":":
                        if kind == _BRACE:
                            self._decide_dict(out)
                        else:
                            self._add_args(out, ":")
                        self._in_key = False
                        self._after_key = True
                        self._arg_state = _VALUE
                        pos += 1
                        continue
                    if self._in_key:
                        return self._end_malformed(out, pos)
                    if c == "," or c == "}":
                        self._decide_set(out)
                        kind = _SET
                if c == ",":
                    pos += 1
                    self._arg_state = _ARG if kind == _CALL else _DKEY if kind == _DICT else _VALUE
                elif c == _SOURCE_CLOSER[kind]:
                    pos += 1
                    self._close(out)
                else:
                    return self._end_malformed(out, pos)
            elif state == _VALUE:
                if c == "'" or c == '"':
                    pos = self._string_open(buf, pos, out, final, 0)
                    if pos < 0:
                        return pos
                elif c in "[({":
                    if self._in_key or len(self._open_kinds) >= MAX_DEPTH:
                        return self._end_malformed(out, pos)  # (too deep: partial JSON's limit)
                    self._open(out, _LIST if c == "[" else _TUPLE if c == "(" else _BRACE)
                    pos += 1
                elif c in ")]}":
                    if self._after_key or self._in_key or c != _SOURCE_CLOSER[kind]:
                        return self._end_malformed(out, pos)
                    pos += 1
                    self._close(out)
                else:
                    self._arg_state = _SCALAR
                    self._scanned = 0
            elif state == _DKEY:
                if c == "}":
                    pos += 1
                    self._close(out)
                else:
                    self._in_key = True
                    self._arg_state = _VALUE
            else:  # _ARG
                if c == ")":
                    pos += 1
                    self._close(out)
                elif c.isidentifier():
                    m = _KWARG.match(buf, pos)
                    if m is not None:
                        self._key(out, m.group(1))
                        pos = m.end()
                        continue
                    reach = _KWARG_PREFIX.match(buf, pos).end()  # type: ignore[union-attr]
                    if reach == n:
                        if not final and n - pos <= self.MAX_HEAD:
                            return -(pos + 1)
                        m = _KWARG_AT_END.match(buf, pos)
                        if m is not None:
                            self._key(out, m.group(1))
                            return n
                    self._positional_key(out)
                elif c in "'\"[({-+.0123456789":
                    self._positional_key(out)
                else:
                    return self._end_malformed(out, pos)
        return pos

    def _quick_scalar(self, scalar: str) -> str | None:
        """``_scalar_json``, with its common cases first."""
        value = _LITERALS.get(scalar)
        if value is not None:
            return value
        if scalar.isdigit() and scalar.isascii() and (scalar[0] != "0" or len(scalar) == 1):
            return scalar
        return self._scalar_json(scalar)

    def _positional_key(self, out: list[Event]) -> None:
        i = self._positional
        self._positional += 1
        self._key(out, self._params[i] if i < len(self._params) else f"_{i}")

    # -- strings -------------------------------------------------------------------------

    def _string_open(self, buf: str, pos: int, out: list[Event], final: bool, kind: int) -> int:
        """``buf[pos]`` is the opening quote."""
        q = buf[pos]
        if buf.startswith(q * 3, pos):
            self._quote = q * 3
            pos += 3
        elif not final and len(buf) - pos <= 2 and buf[pos:] in (q, q * 2):
            return -(pos + 1)  # '' or ''' ? the next chunk says
        else:
            self._quote = q
            pos += 1
        self._str_kind = kind
        self._body_run = _RUNS[q, kind]
        self._fast_body_run = None  # short until it fills a chunk (_string)
        self._value_begin(out, '"')
        self._arg_state = _STRING
        return pos

    def _string(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
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
                and kind == 0
                and end - pos >= 6
                and buf[end - 6] == "\\"  # a cheap test before the regex
                and (end == n or buf[end] == "\\")
            ):
                m = _HIGH_SURROGATE.fullmatch(buf, end - 6, end)
                if m is not None:
                    backslashes = len(buf[pos : end - 6]) - len(buf[pos : end - 6].rstrip("\\"))
                    if backslashes % 2 == 0:
                        end -= 6  # its low half may be in the next chunk
                        hold = end
            if end > pos:
                self._add_args(out, json_quote(_decode(buf[pos:end], kind))[1:-1])
                pos = end
            if hold >= 0:
                return -(hold + 1)
            if pos == n:
                if whole and self._fast_body_run is None:
                    self._long_string()
                return n
            if buf[pos] == "\\":  # a cut escape
                if not final:
                    if whole and self._fast_body_run is None:
                        self._long_string()
                    return -(pos + 1)
                self._add_args(out, json_quote(buf[pos:])[1:-1])
                return n
            # buf[pos] is the quote character
            if len(quote) == 3:
                if buf.startswith(quote, pos):
                    pos += 3
                    break
                if not final and cut_marker(quote, buf, pos):
                    return -(pos + 1)
                self._add_args(out, json_quote(q)[1:-1])
                pos += 1
                continue
            verdict = self._closes_here(buf, pos + 1, final)
            if verdict < 0:
                return -(pos + 1)
            if verdict == 0:
                self._add_args(out, json_quote(q)[1:-1])
                pos += 1
                continue
            pos += 1
            break
        self._add_args(out, '"')
        self._arg_state = _AFTER
        return pos

    def _long_string(self) -> None:
        """A whole chunk was string body: the string is long, and ``feed`` takes its next
        chunks with its string path."""
        if self._brace_first is None and self._string_path:
            self._fast_body_run = _FAST_RUNS[self._quote[0], self._str_kind]

    def _closes_here(self, buf: str, i: int, final: bool) -> int:
        """Is the quote just before ``buf[i]`` the end of the string? 1 yes, 0 no, -1 wait."""
        n = len(buf)
        start = i
        kinds = self._open_kinds
        top = len(kinds) - 1
        level = top
        while True:
            i = _WS.match(buf, i).end()  # type: ignore[union-attr]
            if i == n:
                return 1 if final or i - start > _LOOKAHEAD else -1
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
                return int(self._bracketed)
            return int(c == "<" or (not self._bracketed and c.isidentifier()))

    # -- end of stream -------------------------------------------------------------------

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        mode = self._mode
        if mode == _JSON:
            assert self._json is not None
            self._json._calls = self._calls
            self._json._end_of_stream(rest, out)
            return
        if mode == _ARGS:
            self._close_call(out, incomplete=True)
            if rest:
                out.append(Text(rest))
            return
        self._end_closed_call(out, False)  # a call whose closer never came
        if mode in (_HEAD, _BETWEEN):
            text = "".join(self._raw) + rest
            if text:
                out.append(Text(text))
        elif rest and mode != _AFTER_LIST:
            out.append(Text(rest))
        self._raw = []


class _JsonBody(JsonCallsParser):
    """A pythonic format's block whose body is JSON calls, read by the JSON-call engine."""
