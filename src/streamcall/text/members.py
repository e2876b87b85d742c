"""Short members read whole: one regex per member, and one cut by the end of the text held
whole until the next chunk.

A body of tagged members (``<parameter=k>v</parameter>``...) is read by its engine one
token at a time: the opener, the header, the value (streamed or held), the closer. Most
members are short, and one regex reads such a member at once; a member cut by the end of
a chunk is held whole, so that it comes out in one piece with the next chunk instead of
as a key now and its value later. ``ShortMembers`` is that fast read; its reference path
beside it is to take nothing, so that the engine's token-by-token read goes on from the
same position (``streamcall.text.fast.FAST`` selects; the engines' equivalence tests run
both).

The regex is the engine's (it knows the grammar of one member), with two named groups:

- ``member_value``: a whole member's value (the match ends past the member's closer);
- ``member_cut``: a member cut by the end of the text, its value so far (the match ends at
  the end of the text, perhaps inside the closer). A match that ends at the end of the
  text with neither group is a member cut in its opener or header.

Anything else (no match, or a match that stops before the end of the text with no whole
value) is not a short member here: the engine reads it token by token.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from streamcall.text import fast

__all__ = ["MAX_CUT_VALUE", "MAX_SHORT_MEMBER", "ShortMembers", "any_prefix"]

#: the longest member read whole (opener, header, value and closer)
MAX_SHORT_MEMBER = 128
#: the longest value of a cut member that is held whole (a longer one streams)
MAX_CUT_VALUE = 8


def any_prefix(words: Iterable[str]) -> str:
    """A regex group for any non-empty prefix of ``words``: an alternation, longest first
    (docs/performance.md compares it with a trie of nested optional groups)."""
    cuts = {w[:i] for w in words for i in range(1, len(w) + 1)}
    return "(?:" + "|".join(map(re.escape, sorted(cuts, key=len, reverse=True))) + ")"


class ShortMembers:
    """The fast read of short members (module docstring).

    ``read(buf, pos, final)`` answers for the member at ``pos``:

    - ``(match, False)``: a whole short member; ``match.group("member_value")`` is its
      value and ``match.end()`` is past its closer;
    - ``(None, True)``: a short member cut by the end of ``buf`` starts at ``pos``: hold
      ``buf[pos:]`` whole;
    - ``(None, False)``: none here; the engine's token-by-token read takes it (always the
      answer when ``fast.FAST`` is off).

    A member held from the start of the buffer (so the next chunk is added to it) is kept
    unread while what is added holds no ``closer_last`` character and stays within
    ``MAX_CUT_VALUE`` characters of value plus the closer less one: ``still_cut``.
    """

    __slots__ = ("_held", "_last", "_limit", "_match", "_room", "_start_bound")

    def __init__(self, pattern: str, closer_last: str, closer_len: int) -> None:
        self._match = re.compile(pattern).match
        self._last = closer_last
        self._room = MAX_CUT_VALUE + closer_len - 1
        self._start_bound = MAX_SHORT_MEMBER - self._room
        self._limit = 0  # the longest buffer that a held member is kept unread within
        self._held = 0  # how much of the buffer was held (what follows is new)

    def still_cut(self, buf: str) -> bool:
        """``buf`` is a held member and the chunk added to it: can it not have closed?"""
        if len(buf) <= self._limit and fast.FAST and buf.find(self._last, self._held) < 0:
            self._held = len(buf)
            return True
        self._limit = 0
        return False

    def read(self, buf: str, pos: int, final: bool) -> tuple[re.Match[str] | None, bool]:
        if not fast.FAST:
            return None, False
        n = len(buf)
        limit = pos + MAX_SHORT_MEMBER
        m = self._match(buf, pos, limit) if n > limit else self._match(buf, pos)
        if m is None:
            return None, False
        start, end = m.span("member_value")
        if start >= 0:
            return m, False
        if m.end() < n or final:  # (a bounded match never reaches the end of a longer buf)
            return None, False
        start, end = m.span("member_cut")  # (-1, -1): cut in its opener or header
        if end - start > MAX_CUT_VALUE:
            return None, False
        if pos == 0:
            ok = 0 <= start <= self._start_bound
            self._limit = start + self._room if ok else 0
            self._held = n
        return None, True
