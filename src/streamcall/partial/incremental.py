# PartialJSON: the incremental partial-JSON scanner. repair_json and parse_partial_json are
# this scanner run to the end of one text, so the two can never disagree.
#
# Grammar: RFC 8259 JSON, plus what json.loads also accepts (NaN, Infinity, -Infinity) and
# raw control characters inside strings (models write literal newlines in code strings).
#
# Modes (self._state): an expect-state between tokens, VALUE (after ':' or ',' in an array,
# or at the top), VALUE_OR_END (after '['), KEY (after ',' in an object), KEY_OR_END (after
# '{'), COLON, COMMA (after a value inside a container) and DONE; or inside a token, STRING
# (a value or a key, self._is_key) and LITERAL (a run of [A-Za-z0-9+-.]: number or keyword).
# A container stack holds the open dicts and lists, with the pending key of each object.
# The first character that cannot continue the grammar is junk: it and everything after it
# are dropped, and the state freezes (what comes after a cut is not trusted).
#
# Held back, and only this: in a string, a cut escape (`\`, `\u12`) and a complete high
# surrogate escape at the chunk's end (its low half may follow), at most 11 characters; a
# literal still running at the chunk's end (`tru`, `12.`), since its meaning depends on the
# next character. Everything else is decided and built the moment it is read: a finished
# container is attached to its parent once and shared by every later `.value`.
#
# Snapshots (`.value`, unless live=True): the open containers (the spine) are copied, with
# the unfinished tail put in. Once one is big (_REUSE_MIN entries), the copies down to it are
# kept for the next read, and if by then the caller has dropped that snapshot (CPython's
# sys.getrefcount says only the parser holds it: a UI that renders and discards), each is
# brought up to date in place instead of copied again: what the last read put in is taken
# back, the entries completed since are added, the new tail is put in (_take_back). A read is
# then O(depth + new entries), not O(size of the open containers). A snapshot the caller
# still holds, or any container inside it, is never changed: the read copies, and so do the
# next 1, 3, 7 ... 63 without keeping (a caller that holds one likely holds the next). The
# kept copies cost the memory of one snapshot's open containers, until the document ends.
#
# Work: each character is scanned once, by `re` or `str` methods in C; Python runs once per
# token. Nesting is an explicit stack, never recursion.
#
# Depth: at most MAX_DEPTH containers may be open at once. json's own decoder recurses once
# per level and raises RecursionError near the interpreter's recursion limit (about 1,000
# levels at the top of the stack, fewer when called deep inside a program), so deeper text
# could not be loaded by whoever reads what this returns. The opener that would go past
# the limit is junk like any other: it and everything after it are dropped, so the value is
# the document cut there, closed, and repair_json's text loads.

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from json import decoder as _json_decoder
from typing import Any, Final, TypeAlias

from streamcall.text import (
    CONTROL,
    CUT_ESCAPE,
    HIGH_SURROGATE_TAIL,
    MAX_DEPTH,
    NUMBER,
    STRING_RUN,
    WS,
    too_deep,
)

__all__ = ["MAX_DEPTH", "PartialJSON", "PathKey", "StringAppend", "ValueComplete", "too_deep"]

PathKey: TypeAlias = str | int

# Expect-states and token modes.
_VALUE: Final = 0
_VALUE_OR_END: Final = 1
_KEY: Final = 2
_KEY_OR_END: Final = 3
_COLON: Final = 4
_COMMA: Final = 5
_DONE: Final = 6
_STRING: Final = 7
_LITERAL: Final = 8

# json's own C string decoder (typeshed does not declare it): (text, start, strict).
scanstring: Callable[[str, int, bool], tuple[str, int]] = _json_decoder.scanstring  # type: ignore[attr-defined]

# The text layer's patterns (``streamcall.text``): blanks (``WS``), string content made of
# whole escapes only (``STRING_RUN``: stops at '"', at a cut or invalid escape, or at the
# chunk's end), a cut escape, a high surrogate's escape, a raw control character, a number.
# The starred ones always match, so their `.match(...)` is never None.
_LIT = re.compile(r"[A-Za-z0-9+\-.]*")
_LIT_START: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.")

_KEYWORDS: Final[dict[str, Any]] = {
    "true": True,
    "false": False,
    "null": None,
    "NaN": float("nan"),
    "Infinity": float("inf"),
    "-Infinity": float("-inf"),
}
_KEYWORD_PREFIXES: Final = frozenset(k[:i] for k in _KEYWORDS for i in range(1, len(k)))


def _no_refcount(obj: object) -> int:
    return -1  # never a count _take_back accepts


# Snapshot reuse (PartialJSON._take_back) asks sys.getrefcount whether anyone but the parser
# still holds the last snapshot's containers. PyPy has no such count, and a free-threaded
# build's is not trusted (split between threads, partly deferred): there every read copies.
_refcount: Callable[[object], int] = getattr(sys, "getrefcount", _no_refcount)


def _count_in_one_list() -> int:
    """``_refcount(spine[i])`` of an object that one list alone holds, asked as _take_back
    asks it: the list's reference and the argument's (the subscript's result, a new one)."""
    spine: list[Any] = [[]]
    return _refcount(spine[0])


_ALONE: Final = _count_in_one_list()  # 2 on CPython 3.11 to 3.14
# An open container is kept between reads from this many entries on: below it, copying it
# again costs less than keeping it (the crossing, measured, is at 128 to 256 entries by
# shape: docs/performance.md). Without exact counts, never.
_REUSE_MIN: Final = (
    256 if _ALONE == 2 and getattr(sys, "_is_gil_enabled", lambda: True)() else sys.maxsize
)
_SKIP_MAX: Final = 63  # reads copied without keeping after the caller held a snapshot

# What a literal turned out to be (_classify).
_WHOLE: Final = 0  # the whole run is one value
_HEAD: Final = 1  # a number is complete in the run's first `size` characters
_HALF_KEYWORD: Final = 2  # a proper prefix of a keyword (R3)
_NOTHING: Final = 3  # no value at all: junk


def _classify(run: str) -> tuple[int, Any, int]:
    """Classify a literal run as (kind, value, size of the valid part)."""
    if run in _KEYWORDS:
        return _WHOLE, _KEYWORDS[run], len(run)
    m = NUMBER.match(run)
    if m is None:
        if run in _KEYWORD_PREFIXES:
            return _HALF_KEYWORD, None, 0
        return _NOTHING, None, 0
    size = m.end()
    text = run if size == len(run) else run[:size]
    # Exactly json's conversion: int unless there is a fraction or an exponent.
    if "." in text or "e" in text or "E" in text:
        number: Any = float(text)
    else:
        try:
            number = int(text)
        except ValueError:  # longer than sys.get_int_max_str_digits(): json.loads fails too
            return _NOTHING, None, 0
    return (_WHOLE if size == len(run) else _HEAD), number, size


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


class PartialJSON:
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
        "_misses",
        "_overwritten",
        "_parts",
        "_result",
        "_safe_end",
        "_skip",
        "_snap",
        "_spine",
        "_spine_puts",
        "_spine_src",
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

    def _build_value(self) -> Any:
        state = self._state
        spine = self._spine
        if state == _DONE:
            if spine:
                spine.clear()
                self._spine_puts.clear()
                self._spine_src.clear()
            return self._result
        stack = self._stack
        keys = self._keys
        # First, so that the last snapshot no longer holds the open string: _joined extends
        # it in place only when nothing else does.
        reused = self._take_back() if spine else 0
        has_tail = False  # an entry to add to the innermost container
        tail_key: Any = keys[-1] if keys else None
        tail: Any = None
        if state == _STRING:
            text = _joined(self._parts)
            has_tail = True
            if self._is_key:
                # R2: a cut key gets a null value, unless it equals a key already there: a
                # prefix of a longer key must not overwrite a complete entry.
                tail_key = text
                has_tail = text not in stack[-1]
            else:
                tail = text  # R1
        elif state == _LITERAL:
            lit = self._lit
            run = "".join(lit)
            if len(lit) > 1:
                lit[:] = [run]
            kind, number, _ = _classify(run)
            if kind == _NOTHING:
                state = self._lit_state
            else:
                has_tail = True
                tail = number  # None for a half keyword (R3) or a bare '-'
        if not has_tail:
            if state == _VALUE:
                if not stack:
                    return {}  # R0
                has_tail = type(stack[-1]) is dict  # R5 after ':'; R4 after ',' in a list
            elif state == _COLON:
                has_tail = True  # R2: a key without a value
        if not stack:
            return tail if has_tail else {}
        if self._live:
            installed = self._installed
            for i in range(len(stack) - 1):
                installed.append(_install(stack[i], keys[i], stack[i + 1]))
            if has_tail:
                installed.append(_install(stack[-1], tail_key, tail))
            return stack[0]
        # Keep for the next read (_take_back) the open containers down to the deepest big
        # one, and copy the rest, innermost first; finished children are shared. Until some
        # container has grown big (feed notes it), no sizes are checked: all are copied.
        depth = len(stack)
        keep = 0
        if spine or self._grown:
            if self._skip:
                self._skip -= 1  # see _take_back
            else:
                keep = depth
                while keep and len(stack[keep - 1]) < _REUSE_MIN:
                    keep -= 1
        if keep < depth:
            node = stack[-1].copy()
            if has_tail:
                if type(node) is dict:
                    node[tail_key] = tail
                else:
                    node.append(tail)
            for i in range(depth - 2, keep - 1, -1):
                parent = stack[i].copy()
                if type(parent) is dict:
                    parent[keys[i]] = node
                else:
                    parent.append(node)
                node = parent
            if not keep:
                return node
            has_tail = True
            tail_key = keys[keep - 1]
            tail = node
        # The kept ones: those _take_back brought up to date, then copies of the rest; each
        # holds the next, the last the tail (or the copied containers below it).
        puts = self._spine_puts
        if reused > keep:  # small ones whose big child closed: copied above, not kept
            del spine[keep:]
            del puts[keep:]
            reused = keep
        if reused < keep:
            for i in range(reused, keep):
                spine.append(stack[i].copy())
                puts.append(None)
            self._spine_src[reused:] = stack[reused:keep]
        elif len(self._spine_src) > keep:
            del self._spine_src[keep:]
        if keep > 1:
            # A put still in place above the last kept level holds the same child at the same
            # key: nothing was completed there since, so the key did not move on.
            for i in range(keep - 1):
                if i >= reused - 1 or puts[i] is None:
                    puts[i] = _put(spine[i], puts[i], keys[i], spine[i + 1])
        put = puts[-1]
        last = spine[-1]
        if not has_tail:
            if put is not None:
                _take_out(last, put)
                puts[-1] = None
        elif put is None:
            puts[-1] = _put(last, None, tail_key, tail)
        elif type(last) is list:
            last[-1] = tail
        elif put[0] == tail_key:
            last[tail_key] = tail  # in place: the old value (put[1]) stays the same
        else:
            puts[-1] = _put(last, put, tail_key, tail)
        return spine[0]

    def _take_back(self) -> int:
        """Bring the last snapshot's open containers up to date where no one else can see
        them; return how many, from the top. ``_build_value`` copies the rest.

        The last snapshot's container at a level is private if (1) the parser's container at
        that level is still the one it was copied from (still open), (2) every level above is
        private (whoever holds a parent can reach the child), (3) no duplicate key overwrote
        an entry of it since (that changes an entry in place, not at the end), and (4) by
        ``sys.getrefcount``, nothing holds it but this parser: the caller dropped the
        snapshot (a UI that renders and discards; ``pj.value`` as a statement). The `_snap`
        cache holds the top too, but every ``feed`` empties it, and this runs only after one.

        A private container is the parser's as it was at the last read, plus what that read
        put in (the child or the tail). If entries were completed since, that put is taken
        back (a duplicate key's old value goes back in its old place, else the entry is
        deleted or popped) and they are added, in order: a list or an object only ever
        appends (but see (3)). Otherwise the put stays, for ``_put`` to overwrite in place.
        None is kept unless one of them is big (_REUSE_MIN): small ones copy faster.
        """
        spine = self._spine
        stack = self._stack
        src = self._spine_src
        puts = self._spine_puts
        overwritten = self._overwritten
        n = len(stack) if len(stack) < len(spine) else len(spine)
        last = len(spine) - 1
        # What sys.getrefcount counts for a container no one else holds: at the top,
        # `self._spine`'s reference and getrefcount's argument (_ALONE); below, the parent's
        # put too, which is still in place if the child is still the same open container (the
        # parent gains entries only once the child has closed). `snap` and `put` are the
        # parent's here: they do not hold the child.
        held = _ALONE
        big = False  # a kept one is big enough to be worth keeping
        i = 0
        while i < n:
            frame = stack[i]
            if frame is not src[i]:
                break
            if _refcount(spine[i]) != held:
                if not i:
                    # The caller holds the last snapshot (to diff frames, say), and will
                    # likely hold the next: copy without keeping for 1, 3, 7 ... 63 reads,
                    # then try again (keeping what cannot be reused costs a read more).
                    self._skip = self._misses = min(2 * self._misses + 1, _SKIP_MAX)
                break
            if overwritten and any(o is frame for o in overwritten):
                break
            size = len(frame)
            if size >= _REUSE_MIN:
                big = True
            snap = spine[i]
            put = puts[i]
            if type(snap) is list:
                added = size - len(snap) + (put is not None)
                if not added:
                    if put is not None and i == last:
                        snap[-1] = None  # let go of the tail: it may be the open string
                else:
                    if put is not None:
                        snap.pop()
                        puts[i] = put = None
                    snap += frame[len(snap) :]
            else:
                added = size - len(snap) + (put is not None and put[1] is _ABSENT)
                if not added:
                    if put is not None and i == last:
                        snap[put[0]] = None  # let go of the tail, as above
                else:
                    if put is not None:
                        _take_out(snap, put)
                        puts[i] = put = None
                    if added == 1:
                        k, v = next(reversed(frame.items()))
                        snap[k] = v
                    else:
                        items = list(islice(reversed(frame.items()), added))
                        items.reverse()
                        snap.update(items)
            held = _ALONE + 1
            i += 1
        if i:
            self._misses = 0
        if not big:
            i = 0  # all small now: _build_value copies them
        if i < len(spine):
            del spine[i:]
            del puts[i:]
        if overwritten:
            overwritten.clear()
        return i

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
            e = _LIT.match(chunk).end()  # type: ignore[union-attr]
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
                e = STRING_RUN.match(chunk, pos).end()  # type: ignore[union-attr]
                if e < n and chunk[e] == '"':
                    if self._controls is not None and CONTROL.search(chunk, pos, e):
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
                bad = e < n and CUT_ESCAPE.fullmatch(chunk, e) is None
                if stop - pos >= 6 and HIGH_SURROGATE_TAIL.match(chunk, stop - 6):
                    j = stop - 7
                    while j >= pos and chunk[j] == "\\":
                        j -= 1
                    if (stop - 7 - j) % 2 == 0:
                        stop -= 6  # its low half may come next
                if self._controls is not None and CONTROL.search(chunk, pos, stop):
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
                pos = WS.match(chunk, pos).end()  # type: ignore[union-attr]
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
                    e = _LIT.match(chunk, pos).end()  # type: ignore[union-attr]
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
            pieces.append(CONTROL.sub(_escape_control, out[a:b]))
            prev = b
        pieces.append(out[prev:])
        return "".join(pieces)


_ABSENT: Final = object()


def _joined(parts: list[str]) -> str:
    """``"".join(parts)``, left in ``parts`` as its only piece, and cheap when read often.

    The open string is read after every chunk (``value``), so joining all of it each time
    would copy it each time: quadratic. Instead the first piece is extended by the rest
    with ``+=``, which CPython does in place when nothing else holds the first piece (the
    parser took its own references out first; a snapshot or a string the caller still
    holds makes it copy, as it must). On a 64 KB string read after every 7-character
    chunk: 82 against 11 ms (CPU time).
    """
    if len(parts) < 2:
        return parts[0] if parts else ""
    rest = parts[1] if len(parts) == 2 else "".join(parts[1:])
    text = parts[0]
    parts.clear()
    text += rest
    parts.append(text)
    return text


_APPENDED: Final = (None, _ABSENT)


def _put(container: Any, put: tuple[Any, Any] | None, key: Any, value: Any) -> tuple[Any, Any]:
    """Put ``value`` into a snapshot container, at ``key`` or at a list's end, where ``put``
    (what the last read put there) may still be in place; return how to take it out."""
    if type(container) is list:
        if put is None:
            container.append(value)
        else:
            container[-1] = value
        return _APPENDED
    if put is not None:
        if put[0] == key:
            container[key] = value  # in place: the old value (put[1]) stays the same
            return put
        _take_out(container, put)
    previous = container.get(key, _ABSENT)
    container[key] = value
    return key, previous


def _take_out(container: Any, put: tuple[Any, Any]) -> None:
    """Undo ``_put``: a list's last entry is popped, an object's entry deleted, or the
    value a duplicate key had is put back, in its old place."""
    if type(container) is list:
        container.pop()
    elif put[1] is _ABSENT:
        del container[put[0]]
    else:
        container[put[0]] = put[1]


def _install(container: Any, key: Any, value: Any) -> tuple[Any, Any, Any]:
    if type(container) is list:
        container.append(value)
        return container, None, _ABSENT
    previous = container.get(key, _ABSENT)
    container[key] = value
    return container, key, previous


def _uninstall(installed: list[tuple[Any, Any, Any]]) -> None:
    for container, key, previous in reversed(installed):
        if type(container) is list:
            container.pop()
        elif previous is _ABSENT:
            del container[key]
        else:
            container[key] = previous  # a duplicate key: its old value, in its old place
    installed.clear()


def _escape_control(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"
