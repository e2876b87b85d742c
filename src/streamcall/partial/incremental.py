r"""PartialJSON: the incremental partial-JSON scanner. repair_json and parse_partial_json are
this scanner run to the end of one text, so the two can never disagree.

Grammar: RFC 8259 JSON, plus what json.loads also accepts (NaN, Infinity, -Infinity) and
raw control characters inside strings (models write literal newlines in code strings).

Modes (self._state): an expect-state between tokens, VALUE (after ':' or ',' in an array,
or at the top), VALUE_OR_END (after '['), KEY (after ',' in an object), KEY_OR_END (after
'{'), COLON, COMMA (after a value inside a container) and DONE; or inside a token, STRING
(a value or a key, self._is_key) and LITERAL (a run of [A-Za-z0-9+-.]: number or keyword).
A container stack holds the open dicts and lists, with the pending key of each object.
The first character that cannot continue the grammar is junk: it and everything after it
are dropped, and the state freezes (what comes after a cut is not trusted).

Held back, and only this: in a string, a cut escape (`\`, `\u12`) and a complete high
surrogate escape at the chunk's end (its low half may follow), at most 11 characters; a
literal still running at the chunk's end (`tru`, `12.`), since its meaning depends on the
next character. Everything else is decided and built the moment it is read: a finished
container is attached to its parent once and shared by every later `.value`.

Snapshots (`.value`, unless live=True) are built by ``snapshot.SnapshotReads``, this
class's base, which says how they are kept and reused between reads.

Work: each character is scanned once, by `re` or `str` methods in C; Python runs once per
token. Nesting is an explicit stack, never recursion.

Depth: at most MAX_DEPTH containers may be open at once. json's own decoder recurses once
per level and raises RecursionError near the interpreter's recursion limit (about 1,000
levels at the top of the stack, fewer when called deep inside a program), so deeper text
could not be loaded by whoever reads what this returns. The opener that would go past
the limit is junk like any other: it and everything after it are dropped, so the value is
the document cut there, closed, and repair_json's text loads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, TypeAlias

from streamcall.partial.snapshot import _REUSE_MIN, SnapshotReads, _joined, _uninstall
from streamcall.partial.tokens import (
    _COLON,
    _COMMA,
    _DONE,
    _HALF_KEYWORD,
    _HEAD,
    _KEY,
    _KEY_OR_END,
    _LIT,
    _LIT_START,
    _LITERAL,
    _NOTHING,
    _STRING,
    _VALUE,
    _VALUE_OR_END,
    _classify,
    scanstring,
)
from streamcall.text import (
    CONTROL,
    CUT_ESCAPE,
    HIGH_SURROGATE_TAIL,
    MAX_DEPTH,
    STRING_RUN,
    skip_ws,
    too_deep,
)

# Bound once: CPython 3.11 calls a method of an imported name through a bound method
# made on every call (it gives such a call no LOAD_METHOD)
_control_sub = CONTROL.sub
_lit_match = _LIT.match
_high_surrogate_tail_match = HIGH_SURROGATE_TAIL.match
_control_search = CONTROL.search
_string_run_match = STRING_RUN.match
_cut_escape_fullmatch = CUT_ESCAPE.fullmatch

__all__ = ["MAX_DEPTH", "PartialJSON", "PathKey", "StringAppend", "ValueComplete", "too_deep"]

PathKey: TypeAlias = str | int


@dataclass(frozen=True, slots=True)
class StringAppend:
    """Text appended to the string value at `path` (a growing string, for live UIs)."""

    path: tuple[PathKey, ...]
    text: str


@dataclass(frozen=True, slots=True)
class ValueComplete:
    """The value at `path` is complete and will never change (`()` is the whole document)."""

    path: tuple[PathKey, ...]
    value: Any


PartialEvent: TypeAlias = StringAppend | ValueComplete


class PartialJSON(SnapshotReads):
    """Incremental partial-JSON parser: ``feed`` text, read ``value`` at any time.

    ``value`` always equals ``parse_partial_json(everything fed so far)``; ``feed`` costs
    O(len(chunk)) amortised. ``value`` is a snapshot that no later ``feed`` changes: finished
    containers are shared, and the containers still open are copied, except that on CPython
    the parser keeps its copy of a big one (256 entries or more) and, if the caller has
    dropped that snapshot by the next read, updates the copy in place: O(entries completed
    since) instead of O(size). Reading and dropping after every 7-character chunk of a 64 KB
    object of 3,340 keys: 36 ms against 109 ms copying every time (CPU time, feed included;
    growth from 4 KB to 64 KB 1.04 against 1.45). A snapshot the caller still holds is never
    changed: that read copies (and after one, the parser keeps its copy only now and then).
    ``feed_events`` is the same as ``feed`` but also returns what happened, as
    ``StringAppend`` (text added to a string value) and ``ValueComplete`` events.

    With ``live=True``, ``value`` does not copy at all: it returns the parser's own
    containers, with the unfinished tail put in place, and the next ``feed`` changes them in
    place. Reading is then O(depth) instead of O(size of the open containers); use it when
    each value is consumed (rendered) before the next feed, and never kept.
    """

    # All the parser's state; the kept snapshot's (_spine, _spine_puts, _spine_src, _skip,
    # _misses) is in SnapshotReads' slots, set here too.
    __slots__ = (
        "_base",
        "_carry",
        "_controls",
        "_events",
        "_grown",
        "_installed",
        "_is_key",
        "_junk_at",
        "_keys",
        "_lit",
        "_lit_start",
        "_lit_state",
        "_live",
        "_overwritten",
        "_parts",
        "_result",
        "_safe_end",
        "_snap",
        "_stack",
        "_state",
        "_tok_end",
    )

    def __init__(self, *, live: bool = False) -> None:
        self._live = live
        # live mode: what value() put into the open containers, taken out at the next feed,
        # as (container, key, previous value or _ABSENT); key is None for a list.
        self._installed: list[tuple[Any, Any, Any]] = []
        self._state = _VALUE
        self._stack: list[Any] = []  # open containers: dict or list, innermost last
        self._keys: list[Any] = []  # the pending key of each open object (None for lists)
        self._result: Any = None  # the top-level value, once DONE
        self._parts: list[str] = []  # decoded text of the open string (or literal run)
        self._carry = ""  # a held-back raw escape of the open string
        self._is_key = False
        self._lit: list[str] = []  # raw parts of the open literal run
        self._lit_state = _VALUE  # the expect-state the open literal started in
        # Absolute offsets, for repair_json's text: where the chunk starts, the end of the
        # last complete token, the end of the open string's decided content, the start of
        # the open literal, and the first junk character (-1: none).
        self._base = 0
        self._tok_end = 0
        self._safe_end = 0
        self._lit_start = 0
        self._junk_at = -1
        self._controls: list[tuple[int, int]] | None = None  # string spans with raw controls
        self._events: list[PartialEvent] | None = None
        self._snap: list[Any] = []  # [value] when cached
        # Snapshot mode (_take_back): the kept open containers of the last snapshot, top
        # first; the parser's containers they were copied from; and what that read put into
        # each (the child, or the tail) as (key, value it replaced or _ABSENT), or None.
        self._spine: list[Any] = []
        self._spine_src: list[Any] = []
        self._spine_puts: list[tuple[Any, Any] | None] = []
        self._grown = False  # a container has had _REUSE_MIN entries: reads check sizes
        self._skip = 0  # reads left to copy without keeping (_take_back found it held)
        self._misses = 0  # how many it was last time
        # Open objects in which a duplicate key replaced an entry since the last read.
        self._overwritten: list[dict[Any, Any]] = []

    # --- reading -----------------------------------------------------------------------

    @property
    def complete(self) -> bool:
        """A whole top-level JSON value has been read."""
        return self._state == _DONE

    @property
    def value(self) -> Any:
        """The value so far: equal to ``parse_partial_json(everything fed so far)``."""
        snap = self._snap
        if not snap:
            snap.append(self._build_value())
        return snap[0]

    def _path(self) -> tuple[PathKey, ...]:
        return tuple(
            key if type(frame) is dict else len(frame)
            for frame, key in zip(self._stack, self._keys, strict=True)
        )

    # --- feeding -----------------------------------------------------------------------

    def feed_events(self, chunk: str) -> list[PartialEvent]:
        """Feed ``chunk`` and return the events it caused, in order."""
        events: list[PartialEvent] = []
        self._events = events
        try:
            self.feed(chunk)
        finally:
            self._events = None
        return events

    def feed(self, chunk: str) -> None:
        """Feed the next piece of the document."""
        if not chunk:
            return
        if self._snap:
            self._snap.clear()
        if self._installed:
            _uninstall(self._installed)
        base = self._base
        self._base = base + len(chunk)
        if self._junk_at >= 0:
            return
        state = self._state
        if self._carry:
            # A held-back escape is at most 11 characters: re-reading it is O(1).
            base -= len(self._carry)
            chunk = self._carry + chunk
            self._carry = ""
        stack = self._stack
        keys = self._keys
        events = self._events
        n = len(chunk)
        pos = 0
        junk = -1
        value: Any = None

        if state == _LITERAL:
            e = _lit_match(chunk).end()  # type: ignore[union-attr]
            self._lit.append(chunk[:e])
            if e == n:
                return
            pos = e
            run = "".join(self._lit)
            self._lit = []
            kind, value, size = _classify(run)
            state = self._lit_state
            start = self._lit_start
            if kind >= _HALF_KEYWORD:
                junk = start
            else:
                self._tok_end = start + size
                if kind == _HEAD:
                    junk = start + size
                state = -1  # a complete value is waiting: attached below

        while True:
            if state < 0:
                # A complete value: attach it to its container, or it is the document.
                state = _COMMA
                if events is not None:
                    events.append(ValueComplete(self._path(), value))
                if not stack:
                    self._result = value
                    state = _DONE
                else:
                    top = stack[-1]
                    if type(top) is dict:
                        key = keys[-1]
                        if key in top and self._spine:
                            self._overwritten.append(top)  # see _take_back
                        top[key] = value
                    else:
                        top.append(value)
                    if len(top) >= _REUSE_MIN:
                        self._grown = True  # see _build_value
            if junk >= 0 or pos >= n:
                break
            if state == _STRING:
                e = _string_run_match(chunk, pos).end()  # type: ignore[union-attr]
                if e < n and chunk[e] == '"':
                    if self._controls is not None and _control_search(chunk, pos, e):
                        self._controls.append((base + pos, base + e))
                    if "\\" in chunk[pos:e]:
                        piece = scanstring(chunk, pos, False)[0]
                    else:
                        piece = chunk[pos:e]
                    parts = self._parts
                    if parts:
                        parts.append(piece)
                        text = _joined(parts)
                        self._parts = []
                    else:
                        text = piece
                    pos = e + 1
                    self._tok_end = base + pos
                    if self._is_key:
                        keys[-1] = text
                        state = _COLON
                    else:
                        if events is not None and piece:
                            events.append(StringAppend(self._path(), piece))
                        value = text
                        state = -1
                    continue
                # The string is still open at the chunk's end, or an escape is bad.
                stop = e
                bad = e < n and _cut_escape_fullmatch(chunk, e) is None
                if stop - pos >= 6 and _high_surrogate_tail_match(chunk, stop - 6):
                    j = stop - 7
                    while j >= pos and chunk[j] == "\\":
                        j -= 1
                    if (stop - 7 - j) % 2 == 0:
                        stop -= 6  # its low half may come next
                if self._controls is not None and _control_search(chunk, pos, stop):
                    self._controls.append((base + pos, base + stop))
                if "\\" in chunk[pos:stop]:
                    piece = scanstring(chunk[pos:stop] + '"', 0, False)[0]
                else:
                    piece = chunk[pos:stop]
                if piece:
                    self._parts.append(piece)
                    if events is not None and not self._is_key:
                        events.append(StringAppend(self._path(), piece))
                self._safe_end = base + stop
                if bad:
                    junk = base + e
                else:
                    self._carry = chunk[stop:]
                pos = n
                break
            c = chunk[pos]
            if c in " \t\n\r":
                pos = skip_ws(chunk, pos).end()  # type: ignore[union-attr]
                continue
            if state == _COMMA:
                if c == ",":
                    state = _KEY if type(stack[-1]) is dict else _VALUE
                    pos += 1
                    self._tok_end = base + pos
                    continue
                if c == ("}" if type(stack[-1]) is dict else "]"):
                    pos += 1
                    self._tok_end = base + pos
                    value = stack.pop()
                    keys.pop()
                    state = -1
                    continue
                junk = base + pos
            elif state == _KEY or state == _KEY_OR_END:
                if c == '"':
                    self._is_key = True
                    state = _STRING
                    pos += 1
                    self._safe_end = base + pos
                    continue
                if c == "}" and state == _KEY_OR_END:
                    pos += 1
                    self._tok_end = base + pos
                    value = stack.pop()
                    keys.pop()
                    state = -1
                    continue
                junk = base + pos
            elif state == _COLON:
                if c == ":":
                    state = _VALUE
                    pos += 1
                    self._tok_end = base + pos
                    continue
                junk = base + pos
            elif state == _VALUE or state == _VALUE_OR_END:
                if c == '"':
                    self._is_key = False
                    state = _STRING
                    pos += 1
                    self._safe_end = base + pos
                    continue
                if (c == "{" or c == "[") and len(stack) >= MAX_DEPTH:
                    junk = base + pos  # one level too deep (see the header)
                    continue
                if c == "{":
                    stack.append({})
                    keys.append(None)
                    state = _KEY_OR_END
                    pos += 1
                    self._tok_end = base + pos
                    continue
                if c == "[":
                    stack.append([])
                    keys.append(None)
                    state = _VALUE_OR_END
                    pos += 1
                    self._tok_end = base + pos
                    continue
                if c in _LIT_START:
                    e = _lit_match(chunk, pos).end()  # type: ignore[union-attr]
                    if e == n:
                        self._lit = [chunk[pos:]]
                        self._lit_state = state
                        self._lit_start = base + pos
                        state = _LITERAL
                        pos = n
                        break
                    kind, value, size = _classify(chunk[pos:e])
                    if kind >= _HALF_KEYWORD:
                        junk = base + pos
                        continue
                    self._tok_end = base + pos + size
                    if kind == _HEAD:
                        junk = base + pos + size
                    pos = e
                    state = -1
                    continue
                if c == "]" and state == _VALUE_OR_END:
                    pos += 1
                    self._tok_end = base + pos
                    value = stack.pop()
                    keys.pop()
                    state = -1
                    continue
                junk = base + pos
            else:  # _DONE: only whitespace may follow the document
                junk = base + pos

        self._state = state
        if junk >= 0:
            self._junk_at = junk

    # --- repair (one-shot text) ----------------------------------------------------------

    def _repaired(self, text: str) -> str:
        """The repaired JSON text, given the exact text that was fed."""
        state = self._state
        stack = self._stack
        closers = "".join("}" if type(f) is dict else "]" for f in reversed(stack))
        if state == _DONE:
            out = text if self._junk_at < 0 else text[: self._tok_end]
            return self._escape_controls(out)
        if state == _STRING:
            if self._is_key and "".join(self._parts) in stack[-1]:
                return self._escape_controls(text[: self._tok_end - 1]) + closers  # see R2
            tail = '":null' if self._is_key else '"'
            return self._escape_controls(text[: self._safe_end]) + tail + closers
        ws_end = self._junk_at if self._junk_at >= 0 else len(text)
        if state == _LITERAL:
            kind, _, size = _classify("".join(self._lit))
            start = self._lit_start
            if kind == _HALF_KEYWORD:
                return self._escape_controls(text[:start]) + "null" + closers  # R3
            if kind != _NOTHING:
                return self._escape_controls(text[: start + size]) + closers
            state = self._lit_state  # junk where a value should be
            ws_end = start
        tok_end = self._tok_end
        if state == _VALUE:
            if not stack:
                return "{}"  # R0
            # R5 after ':' in an object; R4 (the dangling comma) in a list.
            head = text[:ws_end] + "null" if type(stack[-1]) is dict else text[: tok_end - 1]
        elif state == _KEY:
            head = text[: tok_end - 1]  # R4
        elif state == _COLON:
            head = text[:tok_end] + ":null"  # R2
        else:  # VALUE_OR_END, KEY_OR_END, COMMA
            head = text[:tok_end]
        return self._escape_controls(head) + closers

    def _escape_controls(self, out: str) -> str:
        spans = self._controls
        if not spans:
            return out
        pieces: list[str] = []
        prev = 0
        for a, b in spans:
            if a >= len(out):
                break
            b = min(b, len(out))
            pieces.append(out[prev:a])
            pieces.append(_control_sub(_escape_control, out[a:b]))
            prev = b
        pieces.append(out[prev:])
        return "".join(pieces)


def _escape_control(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"
