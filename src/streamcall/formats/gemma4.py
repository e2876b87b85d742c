"""Gemma 4: ``<|tool_call>call:NAME{key:value,...}<tool_call|>``.

Grammar (Google Gemma 4; vLLM ``gemma4``)::

    text* ( '<|tool_call>' 'call:' NAME '{' members? '}' '<tool_call|>' text* )*
    members := member (',' member)* ','?                 # trailing commas allowed
    member  := KEY ':' value                             # KEY is bare (or <|"|>-quoted)
    value   := '<|"|>' any-text '<|"|>'                  # a string, taken literally
             | '{' members? '}' | '[' (value (',' value)* ','?)? ']'
             | scalar                                    # bare, up to ',', '}' or ']'
    scalar  := true | false | null/none/nil (any case)   -> JSON literal
             | text containing '.' that parses as float  -> number
             | text that parses as int                   -> number
             | anything else                             -> string

Modes: TEXT -> HEADER (``call:NAME{``) -> ARGS (a small state machine: KEY, VALUE,
AFTER, STRING, SCALAR) -> CLOSE (``<tool_call|>``). The call is complete when its
``<tool_call|>`` comes after the arguments' ``}``; anything else there, or the end of the
stream, ends it ``incomplete`` (its arguments are whole) and the rest is text.

The arguments are converted to compact JSON and streamed while they are written (vLLM
and vLLM's Rust crate, ``rust/src/tool-parser/src/gemma4.rs``, emit them only when the call
is complete). Every emitted piece is final, so any prefix of the deltas is a prefix of the
final JSON:

- a bare scalar is held until its terminator says where it ends, then typed and emitted
  (so a split ``tru|e`` or ``4|2`` is never emitted early, vLLM #39114);
- a ``,`` is emitted only when the next member starts, so trailing commas vanish;
- a bare key is held until its ``:``.

What it holds back: a partial ``<|tool_call>`` in text; the header until ``{``; a key until
``:``; a scalar until its terminator; a partial ``<|"|>`` (or ``<tool_call|>``) at the end
of the buffer. A common member (a plain key with a bare scalar or a short string) cut by the
end of the buffer is held whole, up to 64 characters, so that it leaves in one piece: the
shortcut in ``_args`` that reads such members with one regex (a test proves it equal to the
general path; docs/performance.md has what it bought). ``<tool_call|>`` inside a ``<|"|>``
string is content. An end marker reached while containers are still open closes them and
ends the call ``incomplete``; so does the end of the stream. Malformed markup closes a
started call the same way and releases the rest as text; a header that never completes is
text.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from streamcall.events import Event, Text, ToolCallArgs
from streamcall.formats._base import ToolParser, Tools
from streamcall.formats._scan import MarkerFinder, PartialMarkers, cut_marker, json_quote
from streamcall.partial.incremental import MAX_DEPTH

__all__ = ["GemmaFourParser", "gemma_scalar"]

START = "<|tool_call>"
END = "<tool_call|>"
QUOTE = '<|"|>'

_HEADER = re.compile(r"\s*call:\s*([^\s{}<>,]+)\s*\{")
# What a header may look like while it is still being written.
_HEADER_PREFIX = re.compile(r"\s*(?:c(?:a(?:l(?:l(?::\s*[^\s{}<>,]*\s*)?)?)?)?)?")
_WS = re.compile(r"\s*")
_KEY_END = re.compile(r"[:{}\[\],<]")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_JSON_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_MAX_HEADER = 512
_MAX_KEY = 1024
_MAX_MEMBER = 64
_LITERALS = frozenset(("true", "false", "null"))

_TEXT, _HEADER_MODE, _ARGS, _CLOSE = 0, 1, 2, 3
# argument sub-states
_KEY, _VALUE, _AFTER, _STRING, _SCALAR, _QKEY = 0, 1, 2, 3, 4, 5


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


def gemma_scalar(text: str) -> str:
    """The JSON text for a bare Gemma 4 scalar."""
    s = text.strip()
    if s == "true" or s == "false":
        return s
    if s.lower() in ("null", "none", "nil") or not s:
        return "null"
    if "." in s:
        if _JSON_NUMBER.fullmatch(s):
            return s
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


class GemmaFourParser(ToolParser):
    names = ("gemma4",)
    family = "Google Gemma 4"
    vllm_differences = (
        "Streams the arguments as JSON deltas while they are written (vLLM re-parses the "
        "whole argument string each delta; the Rust crate emits them only at the end); "
        "holds bare scalars until their terminator so split booleans and numbers are never "
        "emitted early (vLLM #39114, #38946)."
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
        self._scalar_end = re.compile(r"[,}\]]|" + re.escape(self.END))
        self._marker_chars = frozenset((self.END[0], self.QUOTE[0]))
        quote = re.escape(self.QUOTE)
        cut_quote = "|".join(re.escape(self.QUOTE[:i]) for i in range(1, len(self.QUOTE)))
        # The common member, for ``_args``'s shortcut: a plain key, then either its ':' and
        # a bare scalar (with its terminator in sight) or a string with no '<' in it,
        # and the ',' after; or a key, a scalar or such a string cut by the end of the
        # buffer. Groups: key, colon, scalar, string, comma, cut value.
        self._member_re = re.compile(
            rf"([A-Za-z_][\w.\-]*)(?:(:)(?:(?:([\w.+\-]+)(?=[,}}\]])|{quote}([^<]*){quote})(,?)"
            rf"|([\w.+\-]*|(?:{quote}[^<]*)?(?:{cut_quote})?)\Z)?)?"
        )
        self._quote_partial = PartialMarkers((self.QUOTE,))
        self._quote_first = self.QUOTE[0]
        self._quote_reach = len(self.QUOTE) - 1  # a cut quote token is this short at most
        self._end_partial = PartialMarkers((self.END,))
        self._mode = _TEXT
        self._raw: list[str] = []
        self._closed_call: tuple[int, str] | None = None  # arguments closed, END due (_CLOSE)
        self._reset_call()

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(f"{cls.START}call:{n}{gemma_value(a, cls.QUOTE)}{cls.END}" for n, a in calls)

    def _reset_call(self) -> None:
        self._index = -1
        self._arg_state = _KEY
        self._closers: list[str] = []  # JSON closers of the open containers
        self._has_member: list[bool] = []  # per container: has a member been emitted?
        self._key_open = False  # a key was emitted and its value has not started
        self._parts: list[str] = []  # every argument piece of the call
        self._delta: list[str] = []  # the pieces not yet handed out as an event
        self._scanned = 0  # of a held scalar: how much is known to have no terminator

    # -- emission ------------------------------------------------------------------------

    def _add_args(self, out: list[Event], text: str) -> None:
        # One piece per token; they leave as one ToolCallArgs per chunk (``_flush_args``).
        self._parts.append(text)
        self._delta.append(text)

    def _flush_args(self, out: list[Event]) -> None:
        """Hand out the argument pieces of this chunk as one event.

        Many small keys give several tokens (a key, a scalar, a comma) per chunk; one
        event for them all is cheaper than one each, and their concatenation is the same.
        """
        if self._delta:
            out.append(ToolCallArgs(self._index, "".join(self._delta)))
            self._delta.clear()

    def _member_start(self, out: list[Event], text: str) -> None:
        """Emit the start of a new member (key or array element), with its comma."""
        if self._has_member[-1]:
            text = "," + text
        else:
            self._has_member[-1] = True
        self._add_args(out, text)

    def _value_start(self, out: list[Event], text: str) -> None:
        if self._key_open:
            self._key_open = False
            self._add_args(out, text)
        else:
            self._member_start(out, text)

    def _open(self, out: list[Event], opener: str) -> None:
        self._value_start(out, opener)
        self._closers.append("}" if opener == "{" else "]")
        self._has_member.append(False)
        self._arg_state = _KEY if opener == "{" else _VALUE

    def _close(self, out: list[Event]) -> None:
        self._add_args(out, self._closers.pop())
        self._has_member.pop()
        self._after_value(out)

    def _after_value(self, out: list[Event]) -> None:
        self._arg_state = _AFTER
        if not self._closers:
            self._close_call(out, incomplete=False)

    def _close_call(self, out: list[Event], incomplete: bool) -> None:
        if incomplete:
            closing = self._closing_text()
            if closing:
                self._add_args(out, closing)
        self._flush_args(out)
        if incomplete:
            self._end_call(out, self._index, "".join(self._parts), True)
            self._mode = _TEXT
        else:  # the arguments closed: the call is complete when its END marker comes
            self._closed_call = (self._index, "".join(self._parts))
            self._mode = _CLOSE
        self._raw = []

    def _end_closed_call(self, out: list[Event], complete: bool) -> None:
        if self._closed_call is not None:
            index, arguments = self._closed_call
            self._closed_call = None
            self._end_call(out, index, arguments, not complete)

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
        out = []
        if self._arg_state == _STRING:
            out.append('"')
        elif self._key_open:
            out.append("null")
        out.extend(reversed(self._closers))
        return "".join(out)

    # -- the loop ------------------------------------------------------------------------

    def feed(self, text: str) -> list[Event]:
        """``FeedLoop.feed``, with the chunks of a call's arguments taken directly.

        Most chunks of a long call fall inside its arguments; they go straight to
        ``_args``, skipping two calls of mode dispatch. A test checks that this gives what
        the general loop gives.
        """
        if self._mode != _ARGS or not text:
            return super().feed(text)
        buf = self._tail + text if self._tail else text
        if self._arg_state == _STRING and self.QUOTE not in buf:
            # Inside a string with no quote token in sight (most chunks of a long string
            # value): ``_args``'s case, written out. A cut quote token at the end is held.
            n = len(buf)
            safe = n
            if self._quote_first in buf[-self._quote_reach :]:
                safe = self._quote_partial.start(buf)
            self._tail = buf[safe:] if safe < n else ""
            if safe:
                piece = json_quote(buf[:safe] if safe < n else buf)[1:-1]
                self._parts.append(piece)
                return [ToolCallArgs(self._index, piece)]
            return []
        out: list[Event] = []
        pos = self._args(buf, 0, out, False)
        if self._delta:
            self._flush_args(out)
        return self._go_on(buf, pos, out)  # the rest of a call that ended here: _step

    def _step(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        pos = self._run_modes(buf, pos, out, final)
        if self._delta:
            self._flush_args(out)
        return pos

    def _run_modes(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        n = len(buf)
        while pos < n:
            mode = self._mode
            if mode == _TEXT:
                pos, marker = self._text_until_marker(buf, pos, out, self._start_finder, final)
                if marker is None:
                    return pos
                self._raw = [marker]
                self._mode = _HEADER_MODE
            elif mode == _HEADER_MODE:
                m = _HEADER.match(buf, pos)
                if m is None:
                    viable = _HEADER_PREFIX.match(buf, pos).end() == n  # type: ignore[union-attr]
                    if viable and not final and n - pos <= _MAX_HEADER:
                        return pos  # hold the header until its '{'
                    out.append(Text("".join(self._raw)))
                    self._raw = []
                    self._mode = _TEXT
                    continue
                self._reset_call()
                self._index = self._start_call(out, m.group(1))
                self._closers = ["}"]
                self._has_member = [False]
                self._add_args(out, "{")
                self._arg_state = _KEY
                self._mode = _ARGS
                pos = m.end()
            elif mode == _ARGS:
                pos = self._args(buf, pos, out, final)
                if pos < 0:
                    return -pos - 1
            else:  # _CLOSE: the arguments closed; expect the end marker
                ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
                if ws == n:
                    self._raw.append(buf[pos:ws])
                    return ws
                if buf.startswith(self.END, ws):
                    self._end_closed_call(out, True)
                    self._raw = []
                    self._mode = _TEXT
                    self._block_ended()
                    pos = ws + len(self.END)
                elif not final and cut_marker(self.END, buf, ws):
                    self._raw.append(buf[pos:ws])
                    return ws
                else:  # no END after the arguments: the call was cut off
                    self._end_closed_call(out, False)
                    self._raw.append(buf[pos:ws])
                    out.append(Text("".join(self._raw)))
                    self._raw = []
                    self._mode = _TEXT
                    pos = ws
        return pos

    def _args(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """Returns the new position, or ``-(pos + 1)`` to stop and hold ``buf[pos:]``."""
        n = len(buf)
        member = self._member_re.match
        while pos < n and self._mode == _ARGS:
            state = self._arg_state
            if state == _KEY:
                m = member(buf, pos)
                if m is not None:
                    # The shortcut: a whole common member in one regex and one piece, the
                    # JSON the general path below would give. A member cut at the end of
                    # the buffer is held whole (up to _MAX_MEMBER characters) so that it
                    # comes out in one piece with the next chunk.
                    key, colon, scalar, string, comma, cut = m.groups()
                    if m.end() == n and (colon is None or cut is not None):
                        if not final and n - pos <= _MAX_MEMBER:
                            return -(pos + 1)
                    elif colon is not None:
                        # (a key of word characters needs no JSON escaping)
                        if scalar is not None:
                            if scalar in _LITERALS or (
                                scalar.isascii() and scalar.isdigit() and scalar[0] != "0"
                            ):
                                text = f'"{key}":{scalar}'  # gemma_scalar's common cases
                            else:
                                text = f'"{key}":{gemma_scalar(scalar)}'
                            self._arg_state = _KEY if comma else _AFTER
                        elif string is not None:
                            text = f'"{key}":{json_quote(string)}'
                            self._arg_state = _KEY if comma else _AFTER
                        else:
                            text = f'"{key}":'
                            self._key_open = True
                            self._arg_state = _VALUE
                        members = self._has_member
                        if members[-1]:
                            text = "," + text
                        else:
                            members[-1] = True
                        self._parts.append(text)
                        self._delta.append(text)
                        pos = m.end()
                        continue
            if state == _STRING or state == _QKEY:
                q = buf.find(self.QUOTE, pos)
                if q == -1:
                    if state == _QKEY:
                        if final or n - pos > _MAX_KEY:
                            return self._end_malformed(out, pos)
                        return -(pos + 1)
                    safe = n if final else self._quote_partial.start(buf, pos)
                    if safe > pos:
                        self._add_args(out, json_quote(buf[pos:safe])[1:-1])
                    return -(safe + 1) if safe < n else safe
                if state == _QKEY:
                    colon = _WS.match(buf, q + len(self.QUOTE)).end()  # type: ignore[union-attr]
                    if colon == n and not final:
                        return -(pos + 1)
                    if not buf.startswith(":", colon):
                        return self._end_malformed(out, pos)
                    self._member_start(out, json_quote(buf[pos:q]) + ":")
                    self._key_open = True
                    self._arg_state = _VALUE
                    pos = colon + 1
                    continue
                self._add_args(out, json_quote(buf[pos:q])[1:] if q > pos else '"')
                pos = q + len(self.QUOTE)
                self._after_value(out)
                continue
            if state == _SCALAR:
                m = self._scalar_end.search(buf, pos + self._scanned)
                if m is None:
                    if not final:
                        hold = self._end_partial.length(buf, pos)
                        self._scanned = n - pos - hold
                        return -(pos + 1)
                    self._value_start(out, self._bare_value(buf[pos:]))
                    self._arg_state = _AFTER
                    return n
                self._scanned = 0
                self._value_start(out, self._bare_value(buf[pos : m.start()]))
                self._after_value(out)
                pos = m.start()
                continue
            c = buf[pos]
            if c.isspace():
                pos = _WS.match(buf, pos).end()  # type: ignore[union-attr]
                if pos == n:
                    return pos
                c = buf[pos]
            # Markers start with a character that bare text seldom holds: test them only then.
            marker_here = c in self._marker_chars
            if marker_here:
                if buf.startswith(self.END, pos):
                    self._close_call(out, incomplete=True)
                    return pos + len(self.END)
                if not final and (
                    cut_marker(self.END, buf, pos) or cut_marker(self.QUOTE, buf, pos)
                ):
                    return -(pos + 1)  # a marker cut at the end of the chunk
            if state == _KEY:
                if c == "}":
                    pos += 1
                    self._close(out)
                elif marker_here and buf.startswith(self.QUOTE, pos):
                    pos += len(self.QUOTE)
                    self._arg_state = _QKEY
                else:
                    m = _KEY_END.search(buf, pos)
                    if m is None:
                        if final or n - pos > _MAX_KEY:
                            return self._end_malformed(out, pos)
                        return -(pos + 1)
                    key = buf[pos : m.start()].strip()
                    if m.group() != ":" or not key:
                        return self._end_malformed(out, pos)
                    self._member_start(out, json_quote(key) + ":")
                    self._key_open = True
                    self._arg_state = _VALUE
                    pos = m.end()
            elif state == _VALUE:
                if marker_here and buf.startswith(self.QUOTE, pos):
                    self._value_start(out, '"')
                    self._arg_state = _STRING
                    pos += len(self.QUOTE)
                elif c == "{" or c == "[":
                    if len(self._closers) >= MAX_DEPTH:
                        return self._end_malformed(
                            out, pos
                        )  # too deep to load (partial JSON's limit)
                    self._open(out, c)
                    pos += 1
                elif c == "]" and self._closers[-1] == "]" and not self._key_open:
                    pos += 1
                    self._close(out)
                elif c in ",}]":
                    if not self._key_open:
                        return self._end_malformed(out, pos)
                    self._value_start(out, "null")  # an empty value, as in `a:,`
                    self._after_value(out)
                else:
                    self._arg_state = _SCALAR
                    self._scanned = 0
            else:  # _AFTER
                if c == ",":
                    pos += 1
                    self._arg_state = _KEY if self._closers[-1] == "}" else _VALUE
                elif c == self._closers[-1]:
                    pos += 1
                    self._close(out)
                elif self.IMPLIED_COMMA and self._closers[-1] == "}" and c not in "{}[]:,":
                    self._arg_state = _KEY  # the next key, its comma left out
                else:
                    return self._end_malformed(out, pos)
        return pos

    def _end_malformed(self, out: list[Event], pos: int) -> int:
        self._close_call(out, incomplete=True)
        return pos

    def _end_of_stream(self, rest: str, out: list[Event]) -> None:
        if self._mode == _ARGS:
            if self._arg_state == _SCALAR and rest:
                self._value_start(out, gemma_scalar(rest))
                self._arg_state = _AFTER
                rest = ""
            elif self._arg_state == _STRING and rest:
                self._add_args(out, json_quote(rest)[1:-1])
                rest = ""
            self._close_call(out, incomplete=True)
            if rest.strip():
                out.append(Text(rest))
            return
        if self._mode == _CLOSE:
            self._end_closed_call(out, False)  # its END never came
        if self._mode == _HEADER_MODE or (self._mode == _CLOSE and rest.strip()):
            out.append(Text("".join(self._raw) + rest))
        elif self._mode == _TEXT and rest:
            out.append(Text(rest))
        self._raw = []


FORMATS = (GemmaFourParser,)
