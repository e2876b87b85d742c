"""The pythonic family engine: calls written as Python, converted to JSON while they stream.

Grammar (class attributes choose the block markup)::

    output := text* (block text*)*
    block  := START ws* ( '[' calls? ']' | calls ) ws* END?      # marker formats
            | ^ ws* '[' calls ']'                               # LIST_AT_START formats
    calls  := call (ws* ','? ws* call)* (ws* ',')?              # ws may be a newline (olmo3)
    call   := NAME ws* '(' args ')'                             # NAME := ident ('.' ident)*

The arguments (``args``, up to the call's ``)``) are read by ``streamcall.text.PythonArgs``,
which converts them to one JSON object as they arrive (Python's literals, and JSON's
``true``/``false``/``null``; positional arguments named from the schema). Formats without
START markers go to PASS (everything is text) once the first block is over or did not
begin (``WHOLE_OUTPUT``).

Modes (``Mode``) and what each step reads::

    mode        reads                                   next        emits
    AT_START    blanks; '[' (LIST_AT_START)             HEAD        Text (the blanks)
                '{' (JSON_OUTPUT)                       DELEGATE
                anything else                           TEXT, PASS
    TEXT        text up to START                        HEAD        Text
    PASS        everything                                          Text
    HEAD        blanks; the list's '['                  HEAD
                NAME '(' and on into the arguments      ARGS        ToolCallEnd (the closed
                                                                    call); ToolCallStart
                '{' first (JSON_BODY)                   JSON_BODY
                ']' or END after calls                  (as BETWEEN)
                anything else                           TEXT, PASS  Text (the block so far)
    ARGS        the arguments up to ')'                 BETWEEN     ToolCallArgs
                ... malformed                           TEXT, PASS  ToolCallEnd incomplete
    BETWEEN     blanks; one ','                         BETWEEN     ToolCallEnd (closed call)
                the next NAME                           HEAD
                ']'                                     AFTER_LIST  (TEXT, PASS without END)
                END                                     TEXT        ToolCallEnd
                anything else                           TEXT, PASS  ToolCallEnd incomplete; Text
    AFTER_LIST  blanks; END                             TEXT        ToolCallEnd
                anything else                           TEXT        ToolCallEnd incomplete
    JSON_BODY   JSON calls (the JSON-call engine)       TEXT        its events
    DELEGATE    everything, to the JSON_OUTPUT parser               its events

A call whose ``)`` was read is complete only once what follows proves it ended
(``_closed_call``): a ``,``, the next call's head, END, or the list's ``]`` where no END
follows it (no END, or ``END_OPTIONAL``); junk or the end of the stream first end it
``incomplete``, its arguments whole. Malformed text inside a call ends it ``incomplete``
with its JSON closed (``ToolParser._end_call`` closes the ``PythonArgs``); the rest is
text. A block that breaks before its first call is released as text, whole
(``_release_raw``); after a block, the blanks that follow are a gap (``_skip_gap``).

What it holds back: a partial START or END marker; the head until its ``(`` (at most
``MAX_HEAD`` characters); in the arguments, what ``PythonArgs`` holds (a keyword until its
``=``, a scalar until its end, a cut escape, a quote that may close the string).
``feed`` is the feed loop written out (``streamcall.text.FeedLoop.feed``, whose rules it
keeps) with ``PythonArgs``'s fast reads in it, run wherever the mode is ARGS, so that most
chunks of a long call take no step's call; the ARGS step (``PythonArgs.read``) takes the
token loop from where they stop.

A block whose first call opens with ``{`` is JSON calls (``JSON_BODY``, LFM2 asked for
JSON), read by the JSON-call engine to the block's end. An output whose first non-blank
character is ``{`` is the ``JSON_OUTPUT`` format's, whole (Llama 4 run with its JSON
template): that parser reads it from the ``{`` on, the blanks before it being text to
both; the decision holds back nothing (the blanks are text as they come).
"""

from __future__ import annotations

import re
from enum import IntEnum
from json.encoder import encode_basestring as _quote
from typing import Any, ClassVar

from streamcall._mypyc import mypyc_attr
from streamcall.events import Event, Text, ToolCallArgs
from streamcall.formats.engines.base import ToolParser, Tools
from streamcall.formats.engines.json_calls import JsonCallsParser
from streamcall.formats.engines.json_embedded import read_embedded_block
from streamcall.text import MarkerFinder, PythonArgs, Step, cut_marker, fast, header_match
from streamcall.text.loop import not_text
from streamcall.text.pyargs import (  # the fast reads' regexes and states (``feed``)
    _CALL,
    _MEMBER,
    _MEMBERS,
    _SCALAR,
    _SCALAR_REST,
    _STRING,
    _STRING_REST,
    _VALUE,
    _VALUE_REST,
)
from streamcall.text.pyliteral import LITERALS, STR, body_run, json_body, quick_scalar, scalar_json

__all__ = ["Mode", "PythonicCallsParser", "py_call", "py_literal"]

_BLANKS = re.compile(r"\s*")
_CALL_HEAD = re.compile(r"([^\W\d]\w*(?:\.[^\W\d]\w*)*)\s*\(")
_CALL_HEAD_CUT = re.compile(r"(?:[^\W\d]\w*(?:\.(?:[^\W\d]\w*)?)*\s*)?")


class Mode(IntEnum):
    """Where the engine is (the table in the module header)."""

    AT_START = 0  # only blanks seen
    TEXT = 1
    PASS = 2  # everything is text
    HEAD = 3  # a call's name up to its '('
    ARGS = 4
    BETWEEN = 5  # after a call's ')'
    AFTER_LIST = 6  # after the list's ']': END may follow
    JSON_BODY = 7
    DELEGATE = 8  # the output is the JSON_OUTPUT format's


# The modes as plain ints, for the steps' comparisons (as in ``engines.json_calls``).
AT_START, TEXT, PASS, HEAD, ARGS, BETWEEN, AFTER_LIST, JSON_BODY, DELEGATE = map(int, Mode)
#: ``body_run`` of a plain string for each quote, looked up once (``feed``'s member read)
_STR_RUNS = {q: body_run(q, STR) for q in "'\""}
# The fast reads' lookups, bound once: CPython 3.11 calls a method of an imported name
# through a bound method made on every call (no LOAD_METHOD for it), about 200 instructions
_members_at = _MEMBERS.match
_scalar_rest_at = _SCALAR_REST.match
_value_rest_at = _VALUE_REST.match
_literal = LITERALS.get


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


@mypyc_attr(allow_interpreted_subclasses=True)
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
    #: a format whose parser reads the whole output when its first non-blank character
    #: is ``{`` (Llama 4 writes pythonic calls or, with its JSON template, a JSON call)
    JSON_OUTPUT: ClassVar[type[ToolParser] | None] = None
    #: the longest call head (and keyword) held back before its '(' (or '=')
    MAX_HEAD: ClassVar[int] = 256

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__(tools, id_prefix=id_prefix)
        self._start_finder = MarkerFinder(self.START) if self.START else None
        self._after_block = PASS if self.WHOLE_OUTPUT else TEXT  # the mode a block ends in
        self._mode = AT_START
        self._bracketed = False  # the block is a '[...]' list
        self._block_calls = 0
        self._separator_read = False  # a ',' since the last call
        # the arguments of the open call; its ``read`` is the ARGS step
        self._args = PythonArgs(self._arguments_ended, max_keyword=self.MAX_HEAD)
        # A call whose ')' was read, waiting for what proves it ended: (index, arguments)
        self._closed_call: tuple[int, str] | None = None
        self._json: _JsonBody | None = None
        self._delegate: ToolParser | None = None  # the JSON_OUTPUT parser, once chosen
        self._steps = (
            self._read_at_start,
            self._read_text,
            self._read_pass,
            self._read_head,
            self._args.read,
            self._read_between,
            self._read_after_list,
            self._read_json_body,
            self._read_delegate,
        )

    # -- the feed loop, with the arguments' fast reads in it ----------------------------------

    def feed(self, text: str) -> list[Event]:
        """``FeedLoop.feed`` written out, with ``PythonArgs``'s fast reads in it
        (``streamcall.text.pyargs``; the reference path is its ``read``, the ARGS step).

        Most chunks of a long call fall inside its arguments, and there a step's call (a
        Python frame, the step's tuple) costs as much as the fast read itself: so the fast
        reads run here, in ``feed``'s own frame, wherever the mode is ARGS, and the step
        runs only where they stop (docs/performance.md, "The pure build's creep"). They
        read ``PythonArgs``'s state as its own methods would, and emit what they decided
        as ``read`` does: one ``ToolCallArgs`` a chunk.
        """
        out: list[Event] = []
        tail = self._tail
        try:  # (free unless it raises: the type is checked only then)
            if tail:  # (a finished parser holds no tail)
                if not text:
                    return out
                buf = tail + text
                if self._wait_len and self._waits(buf, text):  # (the feed loop's rule 4)
                    return out
            elif text and not self._finished:
                buf = text
            else:
                return out
            n = len(buf)
            pos = 0
            while True:  # (``buf`` is not empty)
                if self._mode == ARGS and fast.FAST:
                    a = self._args
                    if a._long_run is not None and a._state == _STRING:
                        # A chunk inside a long string that is one run of body up to its end, or up
                        # to an escape cut by it (held, as ``_string`` holds it), and does not end
                        # with what may be a high surrogate escape (which ``_string`` holds for its
                        # low half): decoded at once. Reference: ``_string``.
                        end = a._long_run.match(buf, pos).end()  # type: ignore[union-attr]
                        if (end == n or buf[end] == "\\") and not (
                            end - 6 >= pos and buf.startswith("\\u", end - 6)
                        ):
                            run = buf[pos:end] if pos or end < n else buf
                            piece = (
                                json_body(run, a._str_kind) if "\\" in run else _quote(run)[1:-1]
                            )
                            if piece:  # (empty: nothing, or a line continuation)
                                a.parts.append(piece)
                                a._given += 1
                                out.append(ToolCallArgs(a.index, piece))
                            self._tail = buf[end:] if end < n else ""
                            return out
                    # The common members at the call level, from whichever token ``pos`` is in
                    # (``_MEMBERS``): they stop where the token loop must go on, or hold.
                    # Reference: ``_read``.
                    parts = a.parts
                    hold = False
                    more = True
                    while more and pos < n:
                        # The rest of the current token at the call level, and the next member.
                        state = a._state
                        if state == _MEMBER:
                            m = _members_at(buf, pos)
                            if m is None:
                                break
                            base = 0
                        elif state == _SCALAR:
                            if not a._after_key or a._kinds[-1] != _CALL:
                                break
                            m = _scalar_rest_at(buf, pos + a._scanned)
                            if m is None:
                                break
                            value = quick_scalar(buf[pos : m.start(1)])
                            if value is None:  # the token loop says what is wrong
                                break
                            parts.append(value)
                            a._after_key = False
                            a._scanned = 0
                            a._state = _MEMBER
                            base = 1
                        elif state == _STRING:
                            if (
                                a._long_run is not None
                                or len(a._quote) != 1
                                or a._kinds[-1] != _CALL
                            ):
                                break
                            m = _STRING_REST[a._quote].match(buf, pos)
                            if m is None:
                                break
                            parts.append(_quote(m.group(1))[1:])
                            a._state = _MEMBER
                            base = 1
                        elif state == _VALUE:
                            if not a._after_key or a._kinds[-1] != _CALL:
                                break
                            m = _value_rest_at(buf, pos)
                            if m is None:
                                break
                            scalar = m.group(1)
                            if scalar is None:
                                value = _quote(m.group(2) if m.group(3) is None else m.group(3))
                            else:
                                value = quick_scalar(scalar)
                                if value is None:  # the token loop says what is wrong
                                    break
                            parts.append(value)
                            a._after_key = False
                            a._state = _MEMBER
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
                                key, scalar, single, double = m.group(
                                    base + 1, base + 2, base + 3, base + 5
                                )
                                if scalar is None:
                                    value = _quote(single if double is None else double)
                                else:
                                    value = _literal(scalar)
                                    if value is None:
                                        # quick_scalar's plain decimal integer, written out (a call
                                        # fewer per member: most members of a long call are such)
                                        if (
                                            scalar.isdigit()
                                            and scalar.isascii()
                                            and (scalar[0] != "0" or len(scalar) == 1)
                                        ):
                                            value = scalar
                                        else:
                                            value = scalar_json(scalar)
                                    if value is None:  # the token loop says what is wrong
                                        pos = m.start(base + 1)
                                        break
                                counts = a._counts
                                parts.append(
                                    f',"{key}":{value}' if counts[-1] else f'"{key}":{value}'
                                )
                                counts[-1] += 1
                                if r == 7:
                                    pos = m.end()
                                    more = True
                                    break
                                base += 7
                                continue
                            pos = m.start(base + 1)
                            if r == 1:  # a keyword cut before its value: held
                                hold = n - pos <= a._max_keyword
                                break
                            # cut by the end of the buffer after its '=': the key, and the value begun
                            key = m.group(base + 1)
                            counts = a._counts
                            text = f',"{key}":' if counts[-1] else f'"{key}":'
                            counts[-1] += 1
                            if r == 2:
                                parts.append(text)
                                a._after_key = True
                                value = m.group(base + 2)
                                if value:
                                    a._state = _SCALAR
                                    a._scanned = len(value)
                                    pos = m.start(base + 2)
                                    hold = True
                                    break
                                a._state = _VALUE  # only blanks after the '='
                                pos = n
                                break
                            # a string: cut in its body (r 3 or 5) or its closing quote last (r 4 or 6)
                            body = base + 3 if r <= 4 else base + 5
                            value = m.group(body)
                            if not value:  # ' or '' at the end: held, as _string_open holds it
                                parts.append(text)
                                a._after_key = True
                                a._state = _VALUE
                                pos = m.start(body) - 1
                                hold = True
                                break
                            q = "'" if r <= 4 else '"'
                            a._quote = q
                            a._str_kind = STR
                            a._body_run = _STR_RUNS[q]
                            a._long_run = None  # short, probably: the next chunk tries _STRING_REST
                            parts.append(text + _quote(value)[:-1])
                            a._state = _STRING
                            if r & 1:
                                pos = n
                            else:  # the quote: _closes_here must see what follows it
                                pos = m.start(body + 1)
                                hold = True
                            break
                    if hold or pos >= n:
                        # the new pieces, as one delta (``PythonArgs.read``'s emission)
                        parts = a.parts
                        given = a._given
                        k = len(parts)
                        if k > given:
                            if given:
                                delta = parts[given] if k == given + 1 else "".join(parts[given:])
                                a._given = k
                            else:  # all of them: the joined text stands for them
                                delta = "".join(parts)
                                a.parts = [delta]
                                a._given = 1
                            out.append(ToolCallArgs(a.index, delta))
                        self._tail = buf[pos:] if hold else ""  # (a hold is before the end)
                        return out
                pos, hold = self._steps[self._mode](buf, pos, out, False)
                if hold or pos >= n:
                    break
        except TypeError:
            if not isinstance(text, str):
                raise not_text(text) from None
            raise
        self._tail = (buf[pos:] if pos else buf) if pos < n else ""
        return out

    # -- text ------------------------------------------------------------------------------

    def _read_at_start(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        ws = _BLANKS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            out.append(Text(buf[pos:ws]))
        if ws == len(buf):
            return ws, False
        if self.LIST_AT_START and buf[ws] == "[":
            self._open_block("[", bracketed=True)
            return ws + 1, False
        if self.JSON_OUTPUT is not None and buf[ws] == "{":
            self._delegate = self.JSON_OUTPUT(self.tools, id_prefix=self.id_prefix)
            self._mode = DELEGATE
            return ws, False
        self._mode = TEXT if self._start_finder is not None else PASS
        return ws, False

    def _read_text(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        finder = self._start_finder
        if finder is None:
            self._mode = PASS
            return pos, False
        pos, marker = self._text_until_marker(buf, pos, out, finder, final)
        if marker is None:
            return pos, True
        self._open_block(marker, bracketed=False)
        return pos, False

    def _read_pass(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        if self._gap is not None:
            pos = self._skip_gap(buf, pos, out, (), final)
            if pos == len(buf):
                return pos, False
        out.append(Text(buf[pos:] if pos else buf))
        return len(buf), False

    def _open_block(self, opener: str, *, bracketed: bool) -> None:
        self._raw = [opener]
        self._bracketed = bracketed
        self._block_calls = 0
        self._separator_read = False
        self._mode = HEAD

    def _end_block(self, out: list[Event], pos: int) -> Step:
        """The block ends at ``pos`` without its closing markup: the call waiting for its
        end ends incomplete, and the markup held back is text."""
        self._end_closed_call(out, False)
        self._release_raw(out)
        self._mode = self._after_block
        return pos, False

    def _block_closed(self, pos: int) -> Step:
        """The block's END (after calls): markup; text again after it, blanks a gap."""
        self._raw = []
        self._mode = TEXT
        self._block_ended()
        return pos, False

    # -- between calls ---------------------------------------------------------------------

    def _read_head(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        n = len(buf)
        ws = _BLANKS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            self._raw.append(buf[pos:ws])
        if ws == n:
            return n, False
        c = buf[ws]
        end_marker = self.END
        if c == "[" and not self._bracketed and self._block_calls == 0:
            self._bracketed = True
            self._raw.append("[")
            return ws + 1, False
        if c == "]" and self._bracketed and self._block_calls:  # '[f(), ]'
            self._raw.append("]")
            return self._list_closed(out, ws + 1)
        if c == "{" and self.JSON_BODY and self._block_calls == 0:
            body = _JsonBody(self.tools, id_prefix=self.id_prefix)
            body._open_block(self._raw, bare=False)
            body._lead, self._lead = self._lead, ""  # the gap before it goes with its markup
            body._in_array = self._bracketed
            body._end = end_marker
            self._json = body
            self._raw = []
            self._mode = JSON_BODY
            return ws, False
        if end_marker is not None and self._block_calls and buf.startswith(end_marker, ws):
            self._end_closed_call(out, True)
            return self._block_closed(ws + len(end_marker))
        m = header_match(_CALL_HEAD, buf, ws, self.MAX_HEAD)
        if m is None:
            if end_marker is not None and c == "<":
                viable = cut_marker(end_marker, buf, ws)
            else:
                viable = _CALL_HEAD_CUT.match(buf, ws).end() == n  # type: ignore[union-attr]
            if viable and not final and n - ws <= self.MAX_HEAD:
                return ws, True
            return self._end_block(out, ws)
        self._end_closed_call(out, True)  # the next call: the last one ended
        self._raw = []
        name = m.group(1)
        index = self._start_call(out, name)
        self._args.start(index, list(self._param_types(name)), in_list=self._bracketed)
        self._mode = ARGS
        return self._args.read(buf, m.end(), out, final)  # (its '{' leaves with the head)

    def _read_between(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        ws = _BLANKS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            self._raw.append(buf[pos:ws])
        if ws == len(buf):
            return ws, False
        c = buf[ws]
        end_marker = self.END
        if c == "," and not self._separator_read:
            self._end_closed_call(out, True)  # a separator: the call before it ended
            self._separator_read = True
            self._raw.append(",")
            return ws + 1, False
        if c == "]" and self._bracketed:
            self._raw.append("]")
            return self._list_closed(out, ws + 1)
        if end_marker is not None:
            if buf.startswith(end_marker, ws):
                self._end_closed_call(out, True)
                return self._block_closed(ws + len(end_marker))
            if c == "<" and not final and cut_marker(end_marker, buf, ws):
                return ws, True
        if c.isidentifier():
            self._mode = HEAD
            return ws, False
        return self._end_block(out, ws)

    def _list_closed(self, out: list[Event], pos: int) -> Step:
        """The list's ']' (and the blanks before it) after calls: markup, never text,
        whether or not an end marker follows."""
        self._raw = []
        if self.END is None or self.END_OPTIONAL:
            self._end_closed_call(out, True)
        if self.END is None:
            self._mode = self._after_block
            self._block_ended()  # the blanks after it: a gap, as after any block
        else:
            self._mode = AFTER_LIST
        return pos, False

    def _read_after_list(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        end_marker = self.END
        assert end_marker is not None
        ws = _BLANKS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            self._raw.append(buf[pos:ws])
        if ws == len(buf):
            return ws, False
        if buf.startswith(end_marker, ws):
            self._end_closed_call(out, True)
            return self._block_closed(ws + len(end_marker))
        if not final and cut_marker(end_marker, buf, ws):
            return ws, True
        # no end marker: the blanks are the gap after the block
        self._end_closed_call(out, False)
        self._block_ended()
        assert self._gap is not None
        self._gap.extend(self._raw)
        self._raw = []
        self._mode = TEXT
        return ws, False

    # -- a call ----------------------------------------------------------------------------

    def _arguments_ended(self, out: list[Event]) -> None:
        """The ARGS step read the call's ')', or malformed text."""
        args = self._args
        if args.error:  # the call ends here, incomplete; the rest is text
            self._end_call(out, args.index, args, True)
            self._mode = self._after_block
        else:  # its ')': complete once what follows proves it ended
            self._closed_call = (args.index, args.text())
            self._mode = BETWEEN
        self._block_calls += 1
        self._raw = []
        self._separator_read = False

    def _end_closed_call(self, out: list[Event], complete: bool) -> None:
        """End the call whose ')' was read: complete if a separator, the next call, the
        list's end (where END may be left out) or END followed it; else incomplete."""
        if self._closed_call is not None:
            index, arguments = self._closed_call
            self._closed_call = None
            self._end_call(out, index, arguments, not complete)

    # -- a JSON body -----------------------------------------------------------------------

    def _read_json_body(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        body = self._json
        assert body is not None
        pos, hold = read_embedded_block(body, self, buf, pos, out, final)
        if not body._block_open:
            self._json = None
            self._mode = TEXT
        return pos, hold

    def _read_delegate(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        assert self._delegate is not None
        out.extend(self._delegate.feed(buf[pos:] if pos else buf))
        return len(buf), False

    # -- end of stream ---------------------------------------------------------------------

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        mode = self._mode
        if mode == DELEGATE:
            assert self._delegate is not None
            out.extend(self._delegate.feed(rest))
            out.extend(self._delegate.finish())
            return
        if mode == JSON_BODY:
            assert self._json is not None
            self._json._calls = self._calls
            self._json._end_of_stream(rest, out)
            return
        if mode == ARGS:
            self._end_call(out, self._args.index, self._args, True)
            if rest:
                out.append(Text(rest))
            return
        self._end_closed_call(out, False)  # a call whose closer never came
        if mode == HEAD or mode == BETWEEN:
            self._raw.append(rest)
            self._release_raw(out)
        elif rest and mode != AFTER_LIST:
            out.append(Text(rest))
        self._raw = []


class _JsonBody(JsonCallsParser):
    """A pythonic format's block whose body is JSON calls, read by the JSON-call engine."""
