"""Markers: finding the first of several, and holding back one cut by the end of a chunk.

Nothing here re-reads text it has passed. A search either finds a marker or says which
suffix of the buffer must be held back because it may still become one:

- ``partial_marker_len``: the longest suffix that is a proper prefix of a marker (at most
  ``len(marker) - 1`` characters). Python strings index code points, so a multi-byte
  marker such as ``<｜tool▁sep｜>`` can only be cut between characters; splitting inside
  a character is the byte layer's business, and it never does.
- ``cut_marker``: is the rest of the buffer a cut marker? Bounded by the marker's length,
  so that a question asked once per call never copies the rest of a big buffer.
- ``MarkerFinder``: text up to the first of several markers, a partial one at the end held
  back. A caller that keeps its buffer whole while it waits for a marker (a header held
  until its end) passes how far it searched last time, so nothing is searched twice.
- ``StopMarkers``: markers that end a piece of text wherever they occur (special tokens
  that never occur inside arguments), with the fast read "none of them can begin in this
  buffer": when every marker starts with the same one or two characters, a buffer
  without them holds none, and of a cut one at most its first character, as its last.

All scanning is ``re`` and ``str.find``; Python loops run per marker, never per character.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

from streamcall.text import fast

__all__ = ["MarkerFinder", "PartialMarkers", "StopMarkers", "cut_marker", "partial_marker_len"]


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


def header_match(pattern: re.Pattern[str], buf: str, pos: int, bound: int) -> re.Match[str] | None:
    """``pattern.match(buf, pos)`` for a header that its step holds, unread, while
    ``len(buf) - pos <= bound``: a match that ends ``bound`` or more characters on is no
    header (None), so that such a header is text however the chunks cut it. (The match
    must be found within the hold, and a header may need one character after it, in a
    lookahead such as ``(?=<)``, to match.) The pattern sees no more than that: the match
    stops at ``pos + bound + 1``, so that a pattern that backtracks costs the bound, not the
    buffer (a match that reaches that end, ``\\Z`` included, is too long)."""
    m = pattern.match(buf, pos, pos + bound + 1)
    return m if m is None or m.end() - pos < bound else None


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


@functools.lru_cache(maxsize=256)
def _finder_re(markers: tuple[str, ...]) -> tuple[tuple[str, ...], re.Pattern[str]]:
    """The markers longest first, and the pattern of any of them: built once per set (with
    none, a pattern that never matches, not the empty one that matches everywhere)."""
    ordered = tuple(sorted(markers, key=len, reverse=True))
    return ordered, re.compile("|".join(re.escape(m) for m in ordered) or "(?!)")


class MarkerFinder:
    """Finds the first of several markers, holding back a partial one at the end.

    Where two markers match at the same place the longer one wins.
    """

    __slots__ = ("_partial_re", "_re", "_reach", "markers")

    def __init__(self, markers: Sequence[str]) -> None:
        self.markers, self._re = _finder_re(tuple(markers))
        self._partial_re, self._reach = _partial_re(self.markers, False)

    def find(self, buf: str, pos: int, searched: int = 0) -> tuple[int, int, str | None]:
        """Return ``(text_end, resume, marker)``.

        With a marker found, ``buf[pos:text_end]`` is the text before it and ``resume`` is
        just past it. Without one, ``buf[pos:text_end]`` is safe to release and
        ``buf[text_end:]`` (a partial marker) must be held back; ``resume == text_end``.

        ``searched``: a caller that held ``buf[pos:]`` whole since its last search, which
        covered ``buf[:searched]`` and found nothing, passes that end; only the part a
        marker may still overlap is searched again.
        """
        m = self._re.search(buf, max(pos, searched - self._reach))
        if m is not None:
            return m.start(), m.end(), m.group()
        n = len(buf)
        m = self._partial_re.search(buf, max(pos, n - self._reach))
        safe = n if m is None else m.start()
        return safe, safe, None

    def find_final(self, buf: str, pos: int, searched: int = 0) -> tuple[int, int, str | None]:
        """Like ``find`` at the end of the stream: nothing is held back."""
        m = self._re.search(buf, max(pos, searched - self._reach))
        if m is not None:
            return m.start(), m.end(), m.group()
        return len(buf), len(buf), None

    def take(
        self, buf: str, pos: int, final: bool, searched: int = 0
    ) -> tuple[int, int, str | None]:
        """``find``, or ``find_final`` at the end of the stream."""
        if final:
            return self.find_final(buf, pos, searched)
        return self.find(buf, pos, searched)


def _common_lead(markers: Sequence[str]) -> str:
    """The first one or two characters that every marker starts with ('' if none)."""
    lead = min(markers, key=len)[:2] if markers else ""
    while lead and not all(m.startswith(lead) for m in markers):
        lead = lead[:-1]
    return lead


class StopMarkers:
    """Markers that end a piece of text wherever they occur, found as ``MarkerFinder``
    finds them, with the fast read "none can begin in this buffer".

    ``lead`` is the one or two characters every marker starts with (or ''). A buffer
    without it holds no whole marker, and of a cut one at most its first character, as
    its last (``first``: that character where the lead has two, else '', since a cut
    one-character lead is the lead itself): ``find`` then answers with one ``in`` test
    instead of the search.
    """

    __slots__ = ("finder", "first", "lead")

    def __init__(self, markers: Sequence[str]) -> None:
        self.finder = MarkerFinder(markers)
        self.lead = _common_lead(markers)
        self.first = self.lead[:1] if len(self.lead) > 1 else ""

    @property
    def markers(self) -> tuple[str, ...]:
        return self.finder.markers

    def find(self, buf: str, pos: int, final: bool) -> tuple[int, int, str | None]:
        """``(text_end, resume, marker)``, as ``MarkerFinder.take``."""
        if self.lead not in buf and fast.FAST:  # (never with no lead: '' is in any text)
            n = len(buf)
            if final or n == pos or buf[-1] != self.first:
                return n, n, None
            return n - 1, n - 1, None
        return self.finder.take(buf, pos, final)
