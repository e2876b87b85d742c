"""JSON arguments typed member by member by the tool's schema, streamed where they can be.

Some formats write a call's arguments as a JSON object and still type them by the
request's schema, as they type tagged values (K2 Horizon's JSON dialect: ``"2"`` for an
integer parameter is ``2``). ``TypedJsonArgs`` reads such an object the way the
XML-parameter engine reads parameters::

    args   := '{' ws ( member ( ws ',' ws member )* )? ws '}'
    member := string ws ':' ws value                  # value: any JSON value

Each top-level value is planned by its key's property (``schema.value_plan``): where the
plan takes what the model wrote as it is (untyped, or a JSON string for a string
parameter) the value streams verbatim, through its own ``ArgsStreamer``; any other is
held whole, then converted (``schema.json_value_as``) and emitted with its key. Between
members the output is compact: ``{``, the key as written, ``:``, the value, ``,``, ``}``.

It has ``ArgsStreamer``'s interface (``push``, ``done``, ``error``, ``parts``, ``close``),
so the engine's ARGS mode reads either. What it holds back: a key cut by the end of the
text (at most ``MAX_KEY`` characters before its colon; a longer key is an error, whole or
cut), a value's token that may still grow (``ArgsStreamer``'s), and a value not begun yet
(its first character decides its plan). A held value's text is kept in a list of parts, never in the tail, so feeding stays
linear however long it is.

Fast reads (under ``streamcall.text.fast``, the reference path beside each): where a key
must come, whole small members with their ``,`` (a plain key, then a string with no
escape, a number or a keyword) are taken by one regex each and a member cut by the end of
the text is held whole (at most ``MAX_MEMBER`` characters), as ``ArgsStreamer.push_more``
takes them; and a streamed value's text goes straight to its ``ArgsStreamer``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from streamcall.formats.schema import AUTO, NULLABLE_STRING, STRING, json_value_as, value_plan
from streamcall.text import MAX_MEMBER, ArgsStreamer, fast

__all__ = ["MAX_KEY", "TypedJsonArgs"]

#: the longest key (its quotes, the blanks and the colon around it) held while cut
MAX_KEY = 512

_WS = re.compile(r"[ \t\n\r]*")
_STRING = r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*'
_KEY = re.compile(rf"({_STRING}\")[ \t\n\r]*:[ \t\n\r]*")
# A key cut by the end of the text: it may still become one.
_KEY_CUT = re.compile(rf"{_STRING}(?:\\(?:u[0-9a-fA-F]{{0,3}})?)?(?:\"[ \t\n\r]*)?")


def _long_key(buf: str, key: int, closed: int) -> bool:
    """Whether a whole key (its string from ``key`` to ``closed``, then blanks and a
    colon) is longer than a cut one is held: its text before the colon over ``MAX_KEY``.
    Such a key is an error whole too, as it is when it arrives a character at a time."""
    return buf.find(":", closed) - key > MAX_KEY


# A whole small member and its ',' (a plain key: no escape), and one cut by the end of the
# text (``ArgsStreamer``'s fast read, with the key and the value as groups).
_PLAIN = r'"[^"\\\x00-\x1f]*+"'
_MEMBER = re.compile(
    rf"[ \t\n\r]*+({_PLAIN})[ \t\n\r]*+:[ \t\n\r]*+({_PLAIN}|true|false|null"
    r"|-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?+(?:[eE][+-]?[0-9]++)?+)[ \t\n\r]*+,"
)
_MEMBER_CUT = re.compile(
    r'[ \t\n\r]*+(?:"[^"\\\x00-\x1f]*+(?:"[ \t\n\r]*+(?::[ \t\n\r]*+(?:"[^"\\\x00-\x1f]*+'
    r'(?:"[ \t\n\r]*+)?|[-0-9.eE+]++[ \t\n\r]*+|[truefalsn]++[ \t\n\r]*+)?)?)?)?'
)

# where the reader is
_OPEN, _FIRST, _KEY_NEXT, _VALUE, _AFTER, _DONE = range(6)


class TypedJsonArgs:
    """One JSON object of arguments, typed by ``properties`` (the tool's property
    schemas), streamed as the module header says."""

    __slots__ = (
        "_count",
        "_held",
        "_inner",
        "_key",
        "_plan",
        "_props",
        "_state",
        "_stream",
        "_types",
        "done",
        "error",
        "parts",
    )

    def __init__(self, properties: dict[str, Any]) -> None:
        self._props = properties
        self._state = _OPEN
        self._count = 0  # members begun
        self._key = ""  # the key of the value read, as written (with its quotes)
        self._inner: ArgsStreamer | None = None  # the value's scan; None: not begun
        self._stream = True
        self._plan = AUTO
        self._types: frozenset[str] = frozenset()
        self._held: list[str] = []
        self.parts: list[str] = []
        self.done = False
        self.error = False

    def push(self, buf: str, pos: int, final: bool = False) -> tuple[str, int]:
        """Read ``buf`` from ``pos``: ``(delta, resume)``; the caller holds back
        ``buf[resume:]`` unless ``done`` or ``error`` (then it is what follows)."""
        state = self._state
        out: list[str]
        if not final and fast.FAST:
            if state == _KEY_NEXT or state == _FIRST:
                # Whole short members, then a member cut by the end: the common chunk. (A
                # whole one ends with its ``,``: without one, none is tried.)
                member = _MEMBER.match(buf, pos) if "," in buf else None
                if member is None:
                    if len(buf) - pos <= MAX_MEMBER and _MEMBER_CUT.fullmatch(buf, pos):
                        return "", pos
                    out = []
                else:
                    out = []
                    pos = self._members(buf, pos, out, member)
                    if len(buf) - pos <= MAX_MEMBER and _MEMBER_CUT.fullmatch(buf, pos):
                        delta = out[0] if len(out) == 1 else "".join(out)
                        self.parts.append(delta)
                        return delta, pos
            elif state == _VALUE and self._stream and self._inner is not None:
                # A streamed value's text, straight through.
                inner = self._inner
                delta, pos = inner.push_more(buf, pos)
                if not inner.done and not inner.error:
                    if delta:
                        self.parts.append(delta)
                    return delta, pos
                out = [delta] if delta else []
                if inner.error:
                    self.error = True
                    return self._pushed(out, pos)
                self._inner = None
                self._state = _AFTER
            else:
                out = []
        else:
            out = []
        n = len(buf)
        while True:
            if self._state == _VALUE:
                value = self._inner
                if value is None:
                    pos = _WS.match(buf, pos).end()  # type: ignore[union-attr]
                    if pos == n:
                        break  # the value's first character decides its plan
                    value = self._begin_value(buf[pos], out)
                inner = value
                delta, pos = inner.push(buf, pos, True) if final else inner.push_more(buf, pos)
                if delta:
                    (out if self._stream else self._held).append(delta)
                if inner.error:
                    self.error = True
                    break
                if not inner.done:
                    break
                if not self._stream:
                    out.append(self._held_member(""))
                self._inner = None
                self._state = _AFTER
                continue
            ws = _WS.match(buf, pos).end()  # type: ignore[union-attr]
            if ws == n:
                pos = ws
                break
            c = buf[ws]
            state = self._state
            if state == _AFTER or state == _OPEN:
                pos = ws + 1
                if state == _OPEN and c == "{":
                    out.append("{")
                    self._state = _FIRST
                elif state == _AFTER and c == ",":
                    self._state = _KEY_NEXT
                elif state == _AFTER and c == "}":
                    self._finish(out)
                    break
                else:
                    pos = ws
                    self.error = True
                    break
                continue
            if c == "}" and state == _FIRST:
                pos = ws + 1
                self._finish(out)
                break
            if not final and fast.FAST:
                end = self._members(buf, ws, out)
                if end > ws:
                    pos = end
                    continue
                if n - ws <= MAX_MEMBER and _MEMBER_CUT.fullmatch(buf, ws) is not None:
                    pos = ws  # a short member cut by the end: held whole
                    break
            m = _KEY.match(buf, ws)
            if m is not None and m.end() - ws > MAX_KEY and _long_key(buf, ws, m.end(1)):
                m = None  # longer than a key is held: an error, however it arrives
            if m is None:
                if not final and n - ws <= MAX_KEY and _KEY_CUT.fullmatch(buf, ws) is not None:
                    pos = ws  # a key cut by the end: held
                else:
                    pos = ws
                    self.error = True
                break
            self._key = m.group(1)
            self._state = _VALUE
            pos = m.end()
        return self._pushed(out, pos)

    def _pushed(self, out: list[str], pos: int) -> tuple[str, int]:
        delta = "".join(out)
        if delta:
            self.parts.append(delta)
        return delta, pos

    def _members(
        self, buf: str, pos: int, out: list[str], member: re.Match[str] | None = None
    ) -> int:
        """Whole short members from ``pos`` where a key must come (a fast read), each
        with its ``,``; where they end (``pos`` if there is none). ``member``: the first
        one, matched already."""
        if member is None:
            member = _MEMBER.match(buf, pos)
            if member is None:
                return pos
        start = pos
        while member is not None:
            key = member.start(1)
            if member.start(2) - key > MAX_KEY and _long_key(buf, key, member.end(1)):
                break  # left to the reference read, whose error it is
            out.append(self._whole_member(member.group(1), member.group(2)))
            pos = member.end()
            member = _MEMBER.match(buf, pos)
        if pos > start:
            self._state = _KEY_NEXT
        return pos

    def _whole_member(self, key: str, value: str) -> str:
        """A whole member read at once (a fast read): what the reference read gives for it,
        key and value (the value streamed as written, or held and converted)."""
        plan, types = value_plan(self._props.get(key[1:-1]))
        head = ("," if self._count else "") + key + ":"
        self._count += 1
        if plan == AUTO or (value[0] == '"' and plan in (STRING, NULLABLE_STRING)):
            return head + value
        return head + json_value_as(value, plan, types)

    def push_more(self, buf: str, pos: int) -> tuple[str, int]:
        """``push`` when more text is to come (``ArgsStreamer``'s name for it)."""
        return self.push(buf, pos, False)

    def _begin_value(self, first: str, out: list[str]) -> ArgsStreamer:
        """The value's first character is known: plan it, and emit its key if it streams."""
        key = self._key
        name = key[1:-1] if "\\" not in key else json.loads(key)
        plan, types = value_plan(self._props.get(name))
        self._plan, self._types = plan, types
        self._stream = plan == AUTO or (first == '"' and plan in (STRING, NULLABLE_STRING))
        if self._stream:
            out.append(("," if self._count else "") + key + ":")
        else:
            self._held = []
        self._count += 1
        inner = self._inner = ArgsStreamer()
        return inner

    def _held_member(self, closing: str) -> str:
        """The member of a held value, whole: its key and its converted value."""
        self._held.append(closing)
        raw = "".join(self._held)
        self._held = []
        head = ("," if self._count > 1 else "") + self._key + ":"
        return head + json_value_as(raw, self._plan, self._types)

    def _finish(self, out: list[str]) -> None:
        out.append("}")
        self._state = _DONE
        self.done = True

    def close(self, tail: str = "") -> str:
        """Finish cut-off arguments (``tail``: the text held back, completing a value's
        token); returns the closing delta (also recorded). A held value cut off is
        converted as far as it came; a key with no value is left out."""
        if self.done:
            return ""
        pieces = []
        inner = self._inner
        if self._state == _OPEN:
            pieces.append("{")
        elif self._state == _VALUE and inner is not None:
            closing = inner.close(tail) if not inner.done else ""
            if self._stream:
                pieces.append(closing)
            else:
                pieces.append(self._held_member(closing))
        pieces.append("}")
        self._state = _DONE
        delta = "".join(pieces)
        self.parts.append(delta)
        return delta

    def text(self) -> str:
        return "".join(self.parts)
