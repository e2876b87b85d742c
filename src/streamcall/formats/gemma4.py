"""Gemma 4: ``<|tool_call>call:NAME{key:value,...}<tool_call|>``.

Grammar (Google Gemma 4; vLLM ``gemma4``)::

    text* ( '<|tool_call>' 'call:' NAME '{' members? '}' '<tool_call|>' text* )*
    members := member (',' member)* ','?                 # trailing commas allowed
    member  := KEY ':' value                             # KEY is bare (or <|"|>-quoted)
    value   := '<|"|>' any-text '<|"|>'                  # a string, taken literally
             | '{' members? '}' | '[' (value (',' value)* ','?)? ']'
             | scalar                                    # bare, up to ',', '}' or ']'
    scalar  := true | false | null/none/nil (any case)   -> JSON literal
             | a JSON number (1e-05, 1e+21 too)          -> number
             | text containing '.' that parses as float  -> number
             | text that parses as int                   -> number
             | anything else                             -> string

Modes (``Mode``) and what each step reads::

    mode        reads                                   next          emits
    TEXT        text up to START                        HEADER        Text
    HEADER      'call:' NAME '{' (blanks around)        KEY           ToolCallStart; '{'
                anything else, or past 512 characters   TEXT          Text (START)
    KEY         whole common members (``BareMembers``)  KEY, AFTER or VALUE
                a key and its ':'                       VALUE
                QUOTE                                   QUOTED_KEY
                '}'                                     AFTER         (CLOSE: the object's)
    QUOTED_KEY  the key up to QUOTE, then ':'           VALUE
    VALUE       QUOTE                                   STRING
                '{' or '['                              KEY or VALUE
                ']' (an empty array)                    AFTER
                ',' '}' ']' right after a key: null     AFTER
                anything else                           SCALAR
    STRING      text up to QUOTE                        AFTER
    SCALAR      text up to ',' '}' ']' or END           AFTER
    AFTER       ','                                     KEY or VALUE
                the open container's closer             AFTER         (CLOSE: the object's)
                a key, its ',' left out (IMPLIED_COMMA) KEY
    CLOSE       blanks, then END                        TEXT          ToolCallEnd
                anything else                           TEXT          ToolCallEnd incomplete;
                                                                      Text (the blanks)

KEY, VALUE and AFTER skip blanks first; END there closes the open containers and ends the
call ``incomplete`` (TEXT). Malformed markup in the arguments does the same, and the
rest is text again. The call is complete when its END comes after the arguments' ``}``;
anything else there, or the end of the stream, ends it ``incomplete`` (its arguments are
whole). A header that never completes is text.

The arguments are converted to compact JSON and streamed while they are written (vLLM
and vLLM's Rust crate, ``rust/src/tool-parser/src/gemma4.rs``, emit them only when the call
is complete). Every emitted piece is final, so any prefix of the deltas is a prefix of the
final JSON:

- a bare scalar is held until its terminator says where it ends, then typed and emitted
  (so a split ``tru|e`` or ``4|2`` is never emitted early, vLLM #39114);
- a ``,`` is emitted only when the next member starts, so trailing commas vanish;
- a bare key is held until its ``:``.

A chunk's argument pieces leave as one ``ToolCallArgs``: the steps collect them in
``_pending``, and a step inside the arguments that stops the chunk (a hold, or the end of
``buf``) returns through ``_stop``, which hands them out; a call's end hands out the rest.

What it holds back: a partial START in text; the header until ``{``; a key until ``:``; a
scalar until its terminator; a partial QUOTE (or END) at the end of the buffer; a common
member (a plain key with a bare scalar or a short string) cut by the end of the buffer,
whole, up to 64 characters, so that it leaves in one piece (``BareMembers.read``, the KEY
step's fast read). END inside a QUOTE string is content.

Fast reads (the text layer's, switched by ``streamcall.text.fast``; the equivalence tests
are in tests/formats/gemma4/test_gemma4_fast_reads.py):

- KEY: ``BareMembers.read``, whole common members as JSON by one regex each. Reference
  path: the member read token by token, by KEY, VALUE, SCALAR or STRING, and AFTER.
- STRING: ``StopMarkers.find``'s "no QUOTE can begin in this buffer" (one ``in`` test of
  its first two characters), written out in the step. Reference path: the marker search.
"""

from __future__ import annotations

import re
from enum import IntEnum
from json.encoder import encode_basestring as _json_string  # json_quote's C escaper
from typing import Any, ClassVar

from streamcall.events import Event, Text, ToolCallArgs
from streamcall.formats.engines.base import ToolParser, Tools
from streamcall.text import (
    MAX_DEPTH,
    BareMembers,
    MarkerFinder,
    PartialMarkers,
    Step,
    StopMarkers,
    bare_scalar,
    cut_marker,
    fast,
    header_match,
    json_quote,
)
from streamcall.text.bare import AFTER as MEMBER_AFTER
from streamcall.text.bare import CUT as MEMBER_CUT
from streamcall.text.bare import KEY as MEMBER_KEY

__all__ = ["GemmaFourParser", "Mode", "gemma_scalar", "gemma_value"]

START = "<|tool_call>"
END = "<tool_call|>"
QUOTE = '<|"|>'

_HEADER = re.compile(r"\s*call:\s*([^\s{}<>,]+)\s*\{")
# What a header may look like while it is still being written.
_HEADER_PREFIX = re.compile(r"\s*(?:c(?:a(?:l(?:l(?::\s*[^\s{}<>,]*\s*)?)?)?)?)?")
_WS = re.compile(r"\s*")
_KEY_END = re.compile(r"[:{}\[\],<]")
_MAX_HEADER = 512
_MAX_KEY = 1024

#: Gemma 4's scalars are typed by the bare-object rule
gemma_scalar = bare_scalar


class Mode(IntEnum):
    """Where the engine is (the table in the module header)."""

    TEXT = 0
    HEADER = 1
    KEY = 2  # a key must come (or the object's '}')
    QUOTED_KEY = 3  # inside a QUOTE-quoted key
    VALUE = 4  # a value must come (or an empty array's ']')
    STRING = 5  # inside a QUOTE string
    SCALAR = 6  # inside a bare scalar
    AFTER = 7  # after a value: ',' or the container's closer
    CLOSE = 8  # the arguments closed: END is due


# The modes as plain ints, for the steps' comparisons (as in ``engines.json_calls``).
TEXT, HEADER, KEY, QUOTED_KEY, VALUE, STRING, SCALAR, AFTER, CLOSE = map(int, Mode)


def gemma_value(value: Any, quote: str = QUOTE) -> str:
    """Render a JSON value in Gemma 4 syntax (bare keys, ``<|"|>`` strings)."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return quote + value + quote
    if isinstance(value, list):
        return "[" + ",".join(gemma_value(v, quote) for v in value) + "]"
    return "{" + ",".join(f"{k}:{gemma_value(v, quote)}" for k, v in value.items()) + "}"


class GemmaFourParser(ToolParser):
    names = ("gemma4",)
    family = "Google Gemma 4"
    vllm_differences = (
        "Streams the arguments as JSON deltas while they are written (vLLM re-parses the "
        "whole argument string each delta; the Rust crate emits them only at the end); "
        "holds bare scalars until their terminator so split booleans and numbers are never "
        "emitted early (vLLM #39114, #38946). A bare number with an exponent and no '.' "
        "(1e-05, 1e+21: how the template writes such floats) is a number (vLLM: a string)."
    )

    # The markup, as class attributes so that a sibling grammar (FunctionGemma's
    # ``<start_function_call>`` ... ``<escape>``) is a subclass that sets only these.
    START: ClassVar[str] = START
    END: ClassVar[str] = END
    QUOTE: ClassVar[str] = QUOTE
    #: a member that starts right after a value, with no ``,`` between, is accepted
    IMPLIED_COMMA: ClassVar[bool] = False

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__(tools, id_prefix=id_prefix)
        self._start_finder = MarkerFinder((self.START,))
        self._members = BareMembers(self.QUOTE)
        self._string_end = StopMarkers((self.QUOTE,))
        self._scalar_end = re.compile(r"[,}\]]|" + re.escape(self.END))
        self._end_partial = PartialMarkers((self.END,))
        # Markers start with a character that bare text seldom holds: tested only then.
        self._marker_chars = frozenset((self.END[0], self.QUOTE[0]))
        self._mode = TEXT
        self._closed_call: tuple[int, str] | None = None  # arguments closed, END due
        self._reset_call()
        self._steps = (
            self._read_text,
            self._read_header,
            self._read_key,
            self._read_quoted_key,
            self._read_value,
            self._read_string,
            self._read_scalar,
            self._read_after,
            self._read_close,
        )

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(f"{cls.START}call:{n}{gemma_value(a, cls.QUOTE)}{cls.END}" for n, a in calls)

    def _reset_call(self) -> None:
        self._index = -1
        self._closers: list[str] = []  # JSON closers of the open containers
        self._has_member: list[bool] = []  # per container: has a member been emitted?
        self._key_open = False  # a key was emitted and its value has not started
        self._pending: list[str] = []  # argument pieces read, not yet handed out
        self._sent: list[str] = []  # the argument deltas handed out
        self._scanned = 0  # of a held scalar: how much is known to have no terminator

    # -- the arguments' JSON -------------------------------------------------------------

    def _stop(self, out: list[Event], pos: int) -> Step:
        """Stop reading this chunk at ``pos`` (``buf[pos:]`` is held), the argument pieces
        read in it handed out."""
        if self._pending:
            self._send_args(out)
        return pos, True

    def _send_args(self, out: list[Event]) -> None:
        """The argument pieces read since they were last handed out, as one
        ``ToolCallArgs``."""
        pending = self._pending
        if pending:
            delta = pending[0] if len(pending) == 1 else "".join(pending)
            pending.clear()
            self._sent.append(delta)
            out.append(ToolCallArgs(self._index, delta))

    def _member_start(self, text: str) -> None:
        """The start of a new member (key or array element), with its comma."""
        if self._has_member[-1]:
            text = "," + text
        else:
            self._has_member[-1] = True
        self._pending.append(text)

    def _value_start(self, text: str) -> None:
        if self._key_open:
            self._key_open = False
            self._pending.append(text)
        else:
            self._member_start(text)

    def _open_container(self, opener: str) -> None:
        self._value_start(opener)
        self._closers.append("}" if opener == "{" else "]")
        self._has_member.append(False)
        self._mode = KEY if opener == "{" else VALUE

    def _close_container(self, out: list[Event]) -> None:
        self._pending.append(self._closers.pop())
        self._has_member.pop()
        self._after_value(out)

    def _after_value(self, out: list[Event]) -> None:
        self._mode = AFTER
        if not self._closers:
            self._close_call(out, incomplete=False)

    def _bare_value(self, text: str) -> str:
        """The JSON for a bare value, read whole (up to its terminator).

        A bare value that ends with a quote token and holds no other is a string whose
        opening token the model left out (``query:weather in Tokyo<|"|>``, as SGLang
        recovers it); anything else is ``gemma_scalar``'s.
        """
        quote = self.QUOTE
        if quote in text:
            s = text.strip()
            if s.endswith(quote) and s.find(quote) == len(s) - len(quote):
                return json_quote(s[: -len(quote)].strip())
        return gemma_scalar(text)

    def _closing_text(self) -> str:
        """What closes the arguments where they stopped: a string, a key's value, the
        open containers."""
        out = []
        if self._mode == STRING:
            out.append('"')
        elif self._key_open:
            out.append("null")
        out.extend(reversed(self._closers))
        return "".join(out)

    # -- a call's end ----------------------------------------------------------------------

    def _close_call(self, out: list[Event], incomplete: bool) -> None:
        """The arguments end: closed where they stopped (``incomplete``), or whole, when
        the call is complete once its END comes (CLOSE)."""
        if incomplete:
            closing = self._closing_text()
            if closing:
                self._pending.append(closing)
        self._send_args(out)
        if incomplete:
            self._end_call(out, self._index, "".join(self._sent), True)
            self._mode = TEXT
        else:
            self._closed_call = (self._index, "".join(self._sent))
            self._mode = CLOSE
        self._raw = []

    def _end_closed_call(self, out: list[Event], complete: bool) -> None:
        if self._closed_call is not None:
            index, arguments = self._closed_call
            self._closed_call = None
            self._end_call(out, index, arguments, not complete)

    def _malformed(self, out: list[Event], pos: int) -> Step:
        """Markup the grammar does not allow at ``pos``: the call ends ``incomplete`` and
        text is read again from there."""
        self._close_call(out, incomplete=True)
        return pos, False

    # -- the steps -------------------------------------------------------------------------

    def _read_text(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        pos, marker = self._text_until_marker(buf, pos, out, self._start_finder, final)
        if marker is None:
            return pos, True
        self._raw = [marker]
        self._mode = HEADER
        return pos, False

    def _read_header(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        m = header_match(_HEADER, buf, pos, _MAX_HEADER)
        if m is None:
            n = len(buf)
            viable = _HEADER_PREFIX.match(buf, pos).end() == n  # type: ignore[union-attr]
            if viable and not final and n - pos <= _MAX_HEADER:
                return pos, True  # held until its '{'
            self._release_raw(out)  # not a header: START was text
            self._mode = TEXT
            return pos, False
        self._raw = []
        self._reset_call()
        self._index = self._start_call(out, m.group(1))
        self._closers = ["}"]
        self._has_member = [False]
        self._pending.append("{")
        self._mode = KEY
        pos = m.end()
        return (pos, False) if pos < len(buf) else self._stop(out, pos)

    def _at_marker(self, buf: str, pos: int, out: list[Event], final: bool) -> Step | None:
        """Where a key, a value or what follows one must come, ``buf[pos]`` starts a
        marker: END ends the call, a cut marker is held; None if it is neither."""
        if buf.startswith(self.END, pos):
            self._close_call(out, incomplete=True)
            return pos + len(self.END), False
        if not final and (cut_marker(self.END, buf, pos) or cut_marker(self.QUOTE, buf, pos)):
            return self._stop(out, pos)
        return None

    def _read_key(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        # The fast read first: whole common members, or a cut one held whole.
        has_member = self._has_member
        taken, pos, after = self._members.read(buf, pos, not has_member[-1], final)
        n = len(buf)
        if taken:
            has_member[-1] = True
            if after == MEMBER_AFTER:
                self._mode = AFTER
            elif after != MEMBER_KEY and after != MEMBER_CUT:  # a key and its ':'
                self._key_open = True
                self._mode = VALUE
            if pos == n or after == MEMBER_CUT:  # the chunk stops: ``_stop``, written out
                if self._pending:
                    self._pending.append(taken)
                    return self._stop(out, pos)
                self._sent.append(taken)
                out.append(ToolCallArgs(self._index, taken))
                return pos, True
            self._pending.append(taken)
            if after != MEMBER_KEY:
                return pos, False
        elif pos == n or after == MEMBER_CUT:
            return self._stop(out, pos)
        # Then a key token by token: blanks, a marker, a quoted key, '}', a bare key.
        c = buf[pos]
        if c.isspace():
            pos = _WS.match(buf, pos).end()  # type: ignore[union-attr]
            if pos == n:
                return self._stop(out, pos)
            c = buf[pos]
        if c in self._marker_chars:
            step = self._at_marker(buf, pos, out, final)
            if step is not None:
                return step
            if buf.startswith(self.QUOTE, pos):
                self._mode = QUOTED_KEY
                pos += len(self.QUOTE)
                return (pos, False) if pos < n else self._stop(out, pos)
        if c == "}":
            self._close_container(out)
            pos += 1
            return (pos, False) if pos < n else self._stop(out, pos)
        m = _KEY_END.search(buf, pos, pos + _MAX_KEY + 1)
        if m is None:  # a key that ends past the hold is none, whole or cut
            if final or n - pos > _MAX_KEY:
                return self._malformed(out, pos)
            return self._stop(out, pos)  # the key, until its ':'
        key = buf[pos : m.start()].strip()
        if m.group() != ":" or not key:
            return self._malformed(out, pos)
        self._member_start(json_quote(key) + ":")
        self._key_open = True
        self._mode = VALUE
        pos = m.end()
        return (pos, False) if pos < n else self._stop(out, pos)

    def _read_quoted_key(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        n = len(buf)
        # The key, its QUOTE and blanks are held while at most _MAX_KEY characters; longer,
        # they are no key, whole or cut (as a bare key).
        q = buf.find(self.QUOTE, pos, pos + _MAX_KEY)
        if q == -1:
            if final or n - pos > _MAX_KEY:
                return self._malformed(out, pos)
            return self._stop(out, pos)
        colon = _WS.match(buf, q + len(self.QUOTE)).end()  # type: ignore[union-attr]
        if colon - pos > _MAX_KEY:
            return self._malformed(out, pos)
        if colon == n and not final:
            return self._stop(out, pos)
        if not buf.startswith(":", colon):
            return self._malformed(out, pos)
        self._member_start(json_quote(buf[pos:q]) + ":")
        self._key_open = True
        self._mode = VALUE
        pos = colon + 1
        return (pos, False) if pos < n else self._stop(out, pos)

    def _read_value(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        n = len(buf)
        c = buf[pos]
        if c.isspace():
            pos = _WS.match(buf, pos).end()  # type: ignore[union-attr]
            if pos == n:
                return self._stop(out, pos)
            c = buf[pos]
        if c in self._marker_chars:
            step = self._at_marker(buf, pos, out, final)
            if step is not None:
                return step
            if buf.startswith(self.QUOTE, pos):
                self._value_start('"')
                self._mode = STRING
                pos += len(self.QUOTE)
                return (pos, False) if pos < n else self._stop(out, pos)
        if c == "{" or c == "[":
            if len(self._closers) >= MAX_DEPTH:  # too deep to load (partial JSON's limit)
                return self._malformed(out, pos)
            self._open_container(c)
            pos += 1
            return (pos, False) if pos < n else self._stop(out, pos)
        if c == "]" and self._closers[-1] == "]" and not self._key_open:
            self._close_container(out)
            pos += 1
            return (pos, False) if pos < n else self._stop(out, pos)
        if c in ",}]":
            if not self._key_open:
                return self._malformed(out, pos)
            self._value_start("null")  # an empty value, as in `a:,`
            self._after_value(out)
            return pos, False  # (the terminator is AFTER's)
        self._mode = SCALAR
        self._scanned = 0
        return pos, False

    def _read_string(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        stops = self._string_end
        n = len(buf)
        if stops.lead not in buf and not final and fast.FAST:
            # ``StopMarkers.find``'s fast read, written out (most chunks of a long string
            # take it, a call fewer each): no QUOTE can begin in ``buf`` but a cut one's
            # first character, as its last, held
            end = n - 1 if buf[-1] == stops.first else n
            quote = None
        else:
            end, resume, quote = stops.find(buf, pos, final)
        if quote is None:  # the string goes on; a cut QUOTE at the end is held
            if end > pos:
                piece = _json_string(buf[pos:end] if pos or end < n else buf)[1:-1]
                if not self._pending:  # (``_stop`` for this one piece)
                    self._sent.append(piece)
                    out.append(ToolCallArgs(self._index, piece))
                    return end, True
                self._pending.append(piece)
            return self._stop(out, end)
        self._pending.append(json_quote(buf[pos:end])[1:] if end > pos else '"')
        self._after_value(out)
        return (resume, False) if resume < n else self._stop(out, resume)

    def _read_scalar(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        n = len(buf)
        m = self._scalar_end.search(buf, pos + self._scanned)
        if m is None:
            if not final:  # held until its terminator; what was searched is not again
                self._scanned = n - pos - self._end_partial.length(buf, pos)
                return self._stop(out, pos)
            self._value_start(self._bare_value(buf[pos:]))
            self._mode = AFTER
            return self._stop(out, n)
        self._scanned = 0
        self._value_start(self._bare_value(buf[pos : m.start()]))
        self._after_value(out)
        return m.start(), False

    def _read_after(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        n = len(buf)
        c = buf[pos]
        if c.isspace():
            pos = _WS.match(buf, pos).end()  # type: ignore[union-attr]
            if pos == n:
                return self._stop(out, pos)
            c = buf[pos]
        if c in self._marker_chars:
            step = self._at_marker(buf, pos, out, final)
            if step is not None:
                return step
        closer = self._closers[-1]
        if c == ",":
            self._mode = KEY if closer == "}" else VALUE
            pos += 1
            return (pos, False) if pos < n else self._stop(out, pos)
        if c == closer:
            self._close_container(out)
            pos += 1
            return (pos, False) if pos < n else self._stop(out, pos)
        if self.IMPLIED_COMMA and closer == "}" and c not in "{}[]:,":
            self._mode = KEY  # the next key, its comma left out
            return pos, False
        return self._malformed(out, pos)

    def _read_close(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
        if ws > pos:
            self._raw.append(buf[pos:ws])
        if ws == len(buf):
            return ws, True
        if buf.startswith(self.END, ws):
            self._end_closed_call(out, True)
            self._raw = []
            self._mode = TEXT
            self._block_ended()
            return ws + len(self.END), False
        if not final and cut_marker(self.END, buf, ws):
            return ws, True
        # no END after the arguments: the call was cut off, and the blanks are text
        self._end_closed_call(out, False)
        self._release_raw(out)
        self._mode = TEXT
        return ws, False

    # -- the end of the stream -------------------------------------------------------------

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        """A call still open ends ``incomplete``, its arguments closed (a held scalar or
        string read first); held markup is released as text."""
        mode = self._mode
        if KEY <= mode <= AFTER:
            if mode == SCALAR and rest:
                self._value_start(gemma_scalar(rest))
                self._mode = AFTER
                rest = ""
            elif mode == STRING and rest:
                self._pending.append(json_quote(rest)[1:-1])
                rest = ""
            self._close_call(out, incomplete=True)
            if rest.strip():
                out.append(Text(rest))
            return
        if mode == CLOSE:
            self._end_closed_call(out, False)  # its END never came
            if not rest.strip():  # blanks after the arguments are markup
                self._raw = []
                return
        elif mode == TEXT:
            if rest:
                out.append(Text(rest))
            return
        # a header never completed, or text after a call's arguments: the markup is text
        self._raw.append(rest)
        self._release_raw(out)


FORMATS = (GemmaFourParser,)
