"""One anchor's search in a streamed response: ``Watch``, ``look`` and ``partial_search``.

``stream.ResponseStream`` keeps one ``Watch`` per anchor (a field's opener or closer) and
asks ``look`` where it stands from the reader's position: ``(final match or None,
undecided from)``, in stream coordinates. Rules:

- A *final* match is one no further text can move, shorten, lengthen or remove; a match
  that could still start at some position makes the text from there *undecided*. With
  ``final`` (the end of the stream) nothing is undecided.
- Literal anchors are searched with their alternation and held back with the text
  layer's ``PartialMarkers``; pattern anchors need the ``regex`` package's partial
  matching (``partial_search``: the pattern run with every match forced to fail, ``(*F)``,
  and ``partial=True``); a scan-ahead opener (``Anchor.ahead``) matches at the reader's
  position exactly when what it looks for comes later.
- A search resumes: each watch keeps its last final match and the position before which
  nothing can match (``resume``), unless the pattern reads the search's start
  (``reusable`` false). Lookbehind sees up to ``LOOKBEHIND`` characters before the
  reader's position (``context_chars``).
- ``lead_chars`` gives the characters every match of an anchor starts with, when that is
  plain to see: the reader's fast read skips text with none of them.

No state here but the watch's own; the reader decides what a match does.
"""

from __future__ import annotations

import importlib.util
import re
from typing import Any

from streamcall.response_templates import _patterns
from streamcall.response_templates.compiled import Anchor, Field, ResponseTemplate
from streamcall.text import PartialMarkers

__all__ = [
    "LOOKBEHIND",
    "Match",
    "Watch",
    "context_chars",
    "lead_chars",
    "look",
    "partial_search",
    "regex_module",
]

#: how many characters before the reader's position a pattern's lookbehind can see
LOOKBEHIND = 256

_LOOKBEHIND_HINT = re.compile(r"\(\?<[=!]|\\[bBA]|\^|\\G")


def context_chars(template: ResponseTemplate) -> int:
    """How much text before the reader's position the patterns may look at."""
    need = 0
    for f in template.fields:
        for anchor in (f.open, f.close):
            if anchor is None or anchor.is_literal:
                continue
            sources = [anchor.pattern.pattern]
            if anchor.ahead is not None:
                sources.append(anchor.ahead.pattern)
            for source in sources:
                for m in _LOOKBEHIND_HINT.finditer(source):
                    need = max(need, LOOKBEHIND if m.group().startswith("(?<") else 1)
    return need


_META = frozenset("\\.^$*+?{}[]|()")
_ZERO_OK = frozenset("?*{")
# an unescaped ``|`` (also one in a class, which is only cautious), or inline flags
_ALTERNATION_OR_FLAGS = re.compile(r"(?<!\\)(?:\\\\)*\||\(\?[aiLmsuxV0-9-]")


def lead_chars(anchor: Anchor) -> str | None:
    """The characters every match of ``anchor`` starts with, when that is plain to see: the
    literals' first characters, or a pattern that starts with one literal character (plain,
    or escaped punctuation) not made optional, with no ``|`` and no inline flags anywhere.
    None otherwise."""
    if anchor.literals is not None:
        return "".join(sorted({s[0] for s in anchor.literals}))
    if anchor.ahead is not None:
        return None
    source = anchor.pattern.pattern
    if not source or _ALTERNATION_OR_FLAGS.search(source) is not None:
        return None
    if source[0] == "\\":
        if len(source) < 2 or source[1].isalnum() or source[1].isspace():
            return None
        first, rest = source[1], source[2:]
    elif source[0] in _META or source[0].isspace():
        return None
    else:
        first, rest = source[0], source[1:]
    if rest[:1] in _ZERO_OK:
        return None
    return first


def regex_module() -> Any:
    if importlib.util.find_spec("regex") is None:
        return None
    import regex

    return regex


class Match:
    """A final match in stream coordinates."""

    __slots__ = ("end", "groups", "start", "text")

    def __init__(self, start: int, end: int, text: str, groups: dict[str, str]) -> None:
        self.start = start
        self.end = end
        self.text = text
        self.groups = groups


def partial_search(
    pattern: re.Pattern[str],
    failing: re.Pattern[str],
    buf: str,
    pos: int,
    final: bool,
) -> tuple[re.Match[str] | None, int]:
    """``(final match or None, undecided from)`` of a pattern in ``buf`` from ``pos``
    (positions in ``buf``; ``len(buf) + 1`` for "nowhere")."""
    m = pattern.search(buf, pos)
    n = len(buf)
    if final:
        return m, n + 1
    f = failing.search(buf, pos, partial=True)  # type: ignore[call-overload]
    undecided = f.start() if f is not None else n + 1
    if m is not None:
        if m.end() >= n - 1:
            undecided = min(undecided, m.start())
        if m.start() >= undecided:
            m = None
    return m, undecided


class Watch:
    """One anchor's search state, in stream coordinates."""

    __slots__ = (
        "ahead_failing",
        "anchor",
        "failing",
        "field",
        "kind",
        "match",
        "partial",
        "resume",
        "reusable",
        "x_at",
        "x_from",
    )

    def __init__(self, kind: str, field: Field, anchor: Anchor, regex: Any) -> None:
        self.kind = kind
        self.field = field
        self.anchor = anchor
        self.match: Match | None = None  # the last final match
        self.resume = 0  # no match starts before this (from where it was searched)
        self.reusable = not _patterns.uses_search_start(anchor.pattern)
        self.partial: PartialMarkers | None = None
        self.failing: Any = None
        self.ahead_failing: Any = None
        self.x_at = -1  # where the looked-for pattern of a scan-ahead anchor was found
        self.x_from = 0  # before this, it is not found
        if anchor.literals is not None:
            self.partial = PartialMarkers(anchor.literals, whole=anchor.can_extend)
        elif anchor.ahead is not None:
            self.ahead_failing = _failing(regex, anchor.ahead)
        else:
            self.failing = _failing(regex, anchor.pattern)


def _failing(regex: Any, pattern: re.Pattern[str]) -> Any:
    """``pattern`` with every match forced to fail (``(*F)``), compiled by ``regex``: run
    with ``partial=True``, its first partial match is where a match could still start."""
    return regex.compile(f"(?:{pattern.pattern})(*F)", regex.DOTALL)


def look(w: Watch, buf: str, base: int, pos: int, final: bool) -> tuple[Match | None, int]:
    """``(final match or None, undecided from)`` of one anchor from ``pos``."""
    n = len(buf)
    nowhere = base + n + 1
    anchor = w.anchor
    if anchor.ahead is not None:
        if w.x_at >= pos:
            return Match(pos, pos, "", {}), nowhere
        start = max(pos, w.x_from)
        m, u = partial_search(anchor.ahead, w.ahead_failing, buf, start - base, final)
        if m is not None:
            w.x_at = base + m.start()
            return Match(pos, pos, "", {}), nowhere
        w.x_from = max(start, base + u) if u <= n else base + n
        return None, (nowhere if final else pos)
    m_old = w.match
    if w.reusable and m_old is not None and m_old.start >= pos:
        return m_old, nowhere
    start = max(pos, w.resume) if w.reusable else pos
    local = start - base
    if w.partial is not None:
        m = anchor.pattern.search(buf, local)
        u = n + 1
        if not final:
            u = w.partial.start(buf, local)
            if u == n:
                u = n + 1
            if m is not None and m.start() >= u:
                m = None
    else:
        m, u = partial_search(anchor.pattern, w.failing, buf, local, final)
    if m is None:
        w.match = None
        w.resume = base + min(u, n)
        return None, (base + u if u <= n else nowhere)
    found = Match(
        base + m.start(),
        base + m.end(),
        m.group(),
        {k: v for k, v in m.groupdict().items() if v is not None},
    )
    w.match = found
    w.resume = found.start
    return found, (base + u if u <= n else nowhere)
