"""Short members read whole: one regex per member, and one cut by the end of the text held
whole until the next chunk.

A body of tagged members (``<parameter=k>v</parameter>``...) is read by its engine one
token at a time: the opener, the header, the value (streamed or held), the closer. Most
members are short, and one regex reads such a member at once; a member cut by the end of
a chunk is held whole, so that it comes out in one piece with the next chunk instead of
as a key now and its value later. ``ShortMembers`` is that fast read, and it is the
engine's step between members: it takes the whole members it finds (the engine's
``member`` turns each into its JSON), holds a cut one, and hands the rest to the engine's
token-by-token step (``tokens``) from where it stopped. Its reference path is to hand
everything to ``tokens`` (``streamcall.text.fast.FAST`` selects; the engines'
equivalence tests run both).

The regex is the engine's (it knows the grammar of one member), with two named groups:

- ``member_value``: a whole member's value (the match ends past the member's closer);
- ``member_cut``: a member cut by the end of the text, its value so far (the match ends at
  the end of the text, perhaps inside the closer). A match that ends at the end of the
  text with neither group is a member cut in its opener or header.

Anything else (no match, or a match that stops before the end of the text with no whole
value) is not a short member here: the engine reads it token by token.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence

from streamcall.events import Event
from streamcall.text import fast
from streamcall.text.loop import FeedLoop, Step, StepFn

__all__ = [
    "MAX_CUT_VALUE",
    "MAX_SHORT_MEMBER",
    "ShortMembers",
    "any_prefix",
    "tagged_member_pattern",
]

#: the longest member read whole (opener, header, value and closer)
MAX_SHORT_MEMBER = 128
#: the longest value of a cut member that is held whole (a longer one streams)
MAX_CUT_VALUE = 8


def any_prefix(words: Iterable[str]) -> str:
    """A regex group for any non-empty prefix of ``words``: an alternation, longest first
    (docs/performance.md compares it with a trie of nested optional groups)."""
    cuts = {w[:i] for w in words for i in range(1, len(w) + 1)}
    return "(?:" + "|".join(map(re.escape, sorted(cuts, key=len, reverse=True))) + ")"


@functools.lru_cache(maxsize=128)
def tagged_member_pattern(
    opens: Sequence[str], header: re.Pattern[str], close: str, markers: Sequence[str]
) -> str | None:
    """The ``ShortMembers`` regex of a tagged member: an opener (one of ``opens``), a
    ``header`` regex, a value and ``close``; ``markers`` are the other markers that may
    follow a member (the openers among them), each of which also ends a value whose closer
    is missing. None for a grammar it cannot read exactly.

    It matches, after blanks, an opener and then: a header, a value holding no first
    character of a marker or the closer, and the closer (a whole member, its value in
    ``member_value``); or a header and such a value cut by the end of the text, perhaps in
    its closer (``member_cut``); or a header cut by the end of the text (no whole marker
    after the opener); or just a header. Or a cut opener at the end of the text. The opener
    and the header are atomic groups, so they match exactly what a token-by-token reader
    that tries the markers longest first and then matches ``header`` matches; the value's
    first marker is then its closer, as a search for the first marker finds.
    """
    terminators = (close, *markers)
    if (
        not close
        or not opens
        or header.flags != re.UNICODE
        or header.groups != len(header.groupindex)
        or not header.groupindex.keys().isdisjoint(("member_value", "member_cut"))
        # the closer is the marker found where it starts, and an opener is the marker
        # found where it starts (no longer marker begins with either)
        or any(t != close and t.startswith(close) for t in terminators)
        or any(m not in opens and m.startswith(o) for m in markers for o in opens)
    ):
        return None
    firsts = "".join(sorted({re.escape(t[0]) for t in terminators}))
    terms = "|".join(map(re.escape, sorted(set(terminators), key=len, reverse=True)))
    opener = "|".join(map(re.escape, sorted(opens, key=len, reverse=True)))
    value = f"[^{firsts}]*+"
    return (
        rf"\s*+(?:(?>{opener})(?:(?>{header.pattern})"
        rf"(?:(?P<member_value>{value}){re.escape(close)}"
        rf"|(?P<member_cut>{value}){any_prefix((close,))}?\Z)?"
        rf"|(?:[^{firsts}]|(?!{terms})[{firsts}])*+\Z)"
        rf"|{any_prefix(opens)}?\Z)"
    )


class ShortMembers:
    """The fast read of short members, as the engine's step between them (module
    docstring).

    ``step(buf, pos, out, final)`` reads from ``pos``: each whole short member goes to
    ``member(match)`` (``match.group(self.value)`` is its value; the engine appends its JSON
    to ``pending``); a short member cut by the end of ``buf`` is held whole; anything else
    goes to ``tokens(buf, pos, out, final)``, the engine's token-by-token step, from the
    first position that is not a whole member. Where it stops the chunk (a held member,
    the end of ``buf``), ``pending`` leaves through ``flush(out)`` as the chunk's event.

    A held member (the next buffer starts with it) is kept unread while the chunks added to
    it hold no ``closer_last`` character (cut before its value: ``header_last``, by default
    the same), one that every closer (every header) needs, and it
    stays within ``MAX_CUT_VALUE`` characters of value plus the closer less one (cut before
    its value: within ``MAX_SHORT_MEMBER``). Cut in its value, the value must also end
    within ``MAX_CUT_VALUE`` characters (at ``value_stop``, the one character that ends a
    value in the regex; with none given, the buffer must stay within them), so that a value
    that outgrows a short one is read, and streams, with the chunk that makes it long.
    Nothing that was undecided can have been decided by such a chunk, but for a header that
    a newline may end (Step-3.5's), whose member is then read one chunk later; holding is
    never more than that delay.

    Given its parser (``loop``), a held member also waits there: ``FeedLoop.feed`` joins
    the chunks that the first of those tests would hold (no such character, within the
    bound) to the tail without running a step (the loop's rule 4).

    Two options for openers and closers that hold their own ``header_last``/``closer_last``
    (MiniMax-M3's ``]<]minimax[>[<KEY>`` … ``]<]minimax[>[</KEY>``): ``header_min``, a
    member cut before its value stays unread while the buffer is shorter than the
    shortest whole opener and header; ``keyed_closer``, the closer is ``closer_len``
    characters plus the key and one more, and a member cut in its closer stays unread
    exactly while the buffer is too short to hold that closer whole.
    """

    __slots__ = (
        "_closer_last",
        "_closer_len",
        "_cut",
        "_flush",
        "_header_last",
        "_header_min",
        "_held",
        "_keyed",
        "_last",
        "_limit",
        "_loop",
        "_match",
        "_member",
        "_need",
        "_pending",
        "_room",
        "_start_bound",
        "_stop",
        "_tokens",
        "_value_max",
        "value",
    )

    def __init__(
        self,
        pattern: str,
        closer_last: str,
        closer_len: int,
        value_stop: str = "",
        header_last: str = "",
        *,
        keyed_closer: bool = False,
        header_min: int = 0,
        member: Callable[[re.Match[str]], object],
        tokens: StepFn,
        pending: list[str],
        flush: Callable[[list[Event]], object],
        loop: FeedLoop | None = None,
    ) -> None:
        compiled = re.compile(pattern)
        self._match = compiled.match
        #: the index of ``member_value`` (``match.group(value)`` is a whole member's value)
        self.value: int = compiled.groupindex["member_value"]
        self._cut = compiled.groupindex["member_cut"]
        self._closer_last = closer_last
        self._header_last = header_last or closer_last
        self._last = closer_last  # the character that the held member waits for
        self._room = MAX_CUT_VALUE + closer_len - 1
        self._closer_len = closer_len
        self._keyed = keyed_closer  # the closer ends with the member's key and one more
        self._header_min = header_min  # no header is whole in fewer characters
        self._need = 0  # a held member cannot be whole in a shorter buffer
        self._start_bound = MAX_SHORT_MEMBER - self._room
        self._member = member
        self._tokens = tokens
        self._pending = pending
        self._flush = flush
        self._stop = value_stop
        self._limit = 0  # the longest buffer that a held member is kept unread within
        self._value_max = 0  # where its value must end to be short (0: no such test)
        self._held = 0  # how much of the buffer was held (what follows is new)
        self._loop = loop  # the parser whose feed lets a held member wait unread

    def step(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        n = len(buf)
        if pos == 0 and self._limit:  # a held member, and the chunk added to it
            if (
                n <= self._limit
                and not final
                and (buf.find(self._last, self._held) < 0 or n < self._need)
            ):
                end = self._value_max
                if end and n > end and 0 <= buf.find(self._stop, self._held) <= end:
                    end = self._value_max = 0  # its value ended short: the rest is its closer
                if not end or n <= end:
                    self._held = n
                    loop = self._loop
                    if loop is not None:  # the next chunks wait in the loop (FeedLoop, rule 4)
                        loop._wait_len = end if end and end < self._limit else self._limit
                        loop._wait_for = self._last
                    return 0, True  # it cannot have closed (nothing is pending at 0)
            self._limit = 0
        if not fast.FAST:
            return self._tokens(buf, pos, out, final)
        match = self._match
        while True:
            limit = pos + MAX_SHORT_MEMBER
            m = match(buf, pos, limit) if n > limit else match(buf, pos)
            if m is None:
                break
            if m.start(self.value) < 0:
                # Not a whole member: a cut one if the match reaches the end of ``buf`` (a
                # bounded match never does) with a short value so far.
                if m.end() < n or final:
                    break
                start, end = m.span(self._cut)  # (-1, -1): cut in its opener or header
                if end - start > MAX_CUT_VALUE:
                    break
                # Held from ``pos``, the next buffer's start. Cut in its value, unread while
                # the value may still be short (class docstring); cut before it, within the
                # short member's bound.
                self._value_max = 0
                if start < 0:
                    self._last = self._header_last
                    self._limit = MAX_SHORT_MEMBER
                    self._need = self._header_min
                else:
                    self._last = self._closer_last
                    start -= pos
                    room = self._room
                    self._need = 0
                    if self._keyed:
                        key = len(m.group("key")) + 1
                        room += key
                        if end < n:  # cut in its closer, which ends key + 1 further on:
                            # unread until it can be whole (its last character may be held)
                            self._need = end - pos + self._closer_len + key
                            self._last = ""
                    self._limit = start + room if start <= self._start_bound else 0
                    if end == n:  # cut in its value (not in its closer)
                        self._value_max = start + MAX_CUT_VALUE
                        if not self._stop:
                            self._limit = min(self._limit, self._value_max)
                self._held = n - pos
                loop = self._loop
                if loop is not None and self._last:
                    # The next chunks wait in the loop (``FeedLoop``'s rule 4), as the first
                    # test above would hold them. (That test then searches them again from
                    # ``_held``: they hold no ``last`` and stayed within the value's bound.)
                    end = self._value_max
                    loop._wait_len = end if end and end < self._limit else self._limit
                    loop._wait_for = self._last
                if self._pending:
                    self._flush(out)
                return pos, True
            self._member(m)
            pos = m.end()
            if pos == n:
                if self._pending:
                    self._flush(out)
                return pos, True
        return self._tokens(buf, pos, out, final)
