"""The reasoning engine: one marker-driven state machine shared by every reasoning format.

Grammar (one reasoning block, with every marker configured per format)::

    stream    := text? START prefix? reasoning ( END | IMPLICIT ) text
               | reasoning ( END | IMPLICIT ) text         # the prompt already opened it
               | text                                      # no reasoning at all
    text      := any, with TEXT_DROP markers removed (and, if ``reopen``, further blocks)
    reasoning := ( any | SPAN_OPEN any SPAN_CLOSE )*        # a span is text, not reasoning

DROP markers are removed wherever they appear, in reasoning as in text.

Modes:

- ``BEFORE``: no reasoning yet; text is ``Text`` (TEXT_DROP markers removed, as after
  reasoning: Cohere's answer wrapper when thinking is off). A START marker switches to
  ``REASONING``, unless the tool parser that reads this text has a call open there
  (``in_tool_call``: ``<tool_call>{"name": "f", "arguments": {"a": "<think>"}}``): then the
  marker is that call's text (with ``start_at_beginning`` only at the very start of the stream, the
  way Granite's plain-text phrases work). With ``drop_stray_end`` an END marker here has
  no opener: it is dropped and the mode stays (Mistral's ``abc[/THINK]def`` is ``abcdef``);
  with ``drop_leading_end`` only an END that opens the stream is (MiniMax-M3's
  ``</mm:think>answer`` is ``answer``, its ``XXX</mm:think>YYY`` stays as written).
- ``PREFIX``: just after a START marker; an optional prefix (Gemma 4's ``thought\\n``) is
  dropped if it is there.
- ``REASONING``: text is ``Reasoning`` until an END marker (dropped) or an IMPLICIT
  marker, which ends reasoning but belongs to the text side: it is handed on as ``Text``
  untouched, so that the tool parser downstream sees it (Qwen3's ``<tool_call>``, Kimi
  K2's ``<|tool_calls_section_begin|>``), unless it is a TEXT_DROP marker too (Cohere's
  ``<|START_TEXT|>``: it ends reasoning and is dropped). An IMPLICIT marker may need
  confirmation by what follows it (``implicit_confirm``), so that reasoning which merely
  mentions ``<tool_call>`` stays reasoning. When the prompt opened reasoning, the first
  START marker met in reasoning is dropped (older templates let the model write it
  again). A SPAN_OPEN marker (``pass_through``) switches to ``SPAN``.
- ``SPAN``: a block inside reasoning that belongs to the text side (Apertus writes tool
  calls inside its reasoning): it is handed on as ``Text``, both markers included, and
  reasoning resumes after its SPAN_CLOSE. An END marker met first ends the span and the
  reasoning both.
- ``AFTER``: text, for good; only TEXT_DROP and DROP markers (and START, if ``reopen``)
  are looked for. With nothing to look for, chunks pass straight through. With
  ``lstrip_after_end``, the characters it lists are removed from the start of the text
  that follows an END marker (Granite 4.2's template writes ``\\n</think>\\n``).

What it holds back, and why: the longest suffix of the buffer that is a proper prefix of
a marker the current mode looks for (it may still become that marker), a complete match
that a longer marker starting at or before it could still override, an implicit marker
whose confirmation has not arrived yet (at most ``implicit_window`` characters after it),
and a partial START prefix. All of it is bounded by the marker lengths, so a chunk costs
O(len(chunk)); the scanning is ``re.search`` and ``str.startswith``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum

from streamcall._mypyc import mypyc_attr
from streamcall.events import Event, Reasoning, Text
from streamcall.text import FeedLoop, Step, cut_marker, partial_marker_len

__all__ = ["MarkerReasoningParser", "ReasoningParser", "ReasoningSpec"]


class Mode(IntEnum):
    """The reasoning engine's modes (the module header says what each reads)."""

    BEFORE = 0
    PREFIX = 1
    REASONING = 2
    AFTER = 3
    SPAN = 4


BEFORE, PREFIX, REASONING, AFTER, SPAN = Mode


@dataclass(frozen=True, slots=True)
class ReasoningSpec:
    """How one reasoning format marks its reasoning."""

    name: str
    #: the family of models, for ``streamcall formats``
    family: str = ""
    start: tuple[str, ...] = ("<think>",)
    end: tuple[str, ...] = ("</think>",)
    #: whether the chat template usually opens reasoning in the prompt (the default for
    #: ``prompt_opened``): the output then starts inside reasoning
    opened: bool = False
    #: markers that end reasoning and are handed on to the text side untouched
    implicit_end: tuple[str, ...] = ()
    #: what must follow an implicit marker (``re.match`` right after it) for it to count
    implicit_confirm: str | None = None
    #: what may follow while confirmation is still undecided (``re.fullmatch``)
    implicit_maybe: str | None = None
    #: at most this many characters after an implicit marker are held waiting
    implicit_window: int = 64
    #: optional text right after a START marker that is dropped
    start_prefix: str = ""
    #: START counts only at the very beginning of the stream
    start_at_beginning: bool = False
    #: after END, a START marker opens reasoning again
    reopen: bool = False
    #: before reasoning, an END marker with no opener is dropped (the text on both sides
    #: of it stays text) instead of being text
    drop_stray_end: bool = False
    #: an END marker that opens the stream (nothing before it) is dropped, and the stream
    #: stays before reasoning; a later END with no opener is text as written
    drop_leading_end: bool = False
    #: markers removed from the text, before and after reasoning; an IMPLICIT marker that
    #: is one of them is dropped instead of handed on
    text_drop: tuple[str, ...] = ()
    #: markers removed wherever they appear, in reasoning as in text
    drop: tuple[str, ...] = ()
    #: ``(open, close)`` spans inside reasoning that belong to the text side: handed on as
    #: ``Text``, markers included; reasoning resumes after ``close``
    pass_through: tuple[tuple[str, str], ...] = ()
    #: characters removed from the start of the text that follows an END marker
    lstrip_after_end: str = ""
    #: the combined parser (``streamcall.output``) turns a backslash-escaped newline the
    #: tokenizer wrote (``\\n``) back into a newline, in text and reasoning but not in tool
    #: calls (``streamcall.text.newlines``); this engine itself leaves it alone
    recover_newlines: bool = False
    #: every marker may carry a per-checkpoint suffix before its closing ``>`` (Tencent
    #: HY: ``</think:opensource>``, ``SUFFIX`` below); the markers must be ``<…>`` tags
    suffixed: bool = False
    #: where this differs from vLLM's parser of the same name on purpose, and why
    vllm_differences: str = ""


@mypyc_attr(allow_interpreted_subclasses=True)
class ReasoningParser(FeedLoop):
    """Base class: sans-IO, ``feed`` text in, ``Reasoning`` and ``Text`` events out.

    Same loop as ``ToolParser`` (``streamcall.text.FeedLoop``): the held tail is joined
    to the next chunk, and the step of the current mode reads what it can decide.
    """

    #: a tool parser reads this parser's ``Text`` (``output.OutputParser`` sets it): a
    #: format whose tool parser reads the same message framing (Muse, Harmony) then hands on every
    #: frame, so that the tool parser sees each message's end where it is
    feeds_tools: bool = False
    #: set by ``output.OutputParser`` when a tool parser reads this parser's ``Text``:
    #: called with the step's event list when a START marker is met outside reasoning, it
    #: hands the tool parser every ``Text`` so far (the list is left as it is) and says
    #: whether a call is open there; if so the marker is text inside that call (a
    #: ``<think>`` in a JSON string), not reasoning
    in_tool_call: Callable[[list[Event]], bool] | None = None

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    @property
    def in_reasoning(self) -> bool:
        """Whether the text fed so far leaves the stream inside reasoning."""
        return False


def _alternation(markers: tuple[str, ...]) -> re.Pattern[str] | None:
    if not markers:
        return None
    ordered = sorted(set(markers), key=len, reverse=True)
    return re.compile("|".join(re.escape(m) for m in ordered))


#: a marker suffix, as HY's tool parsers read it (``formats/hunyuan.py``): ``:`` and at
#: most 64 characters that end no tag; it bounds what a cut marker holds back
SUFFIX = r":[^\s<>]{0,64}"
SUFFIX_MAX = 65


def _prefixes(text: str) -> str:
    """A regex matching every prefix of ``text``, the empty one included."""
    out = ""
    for ch in reversed(text):
        out = f"(?:{re.escape(ch)}{out})?"
    return out


class _Finder:
    """First of several markers; a match that a longer marker could still override, or a
    partial marker at the end of the buffer, is held back.

    With ``suffixed`` every marker ``<name>`` also matches as ``<name SUFFIX>``
    (found by one alternation whose groups say which marker it was); a partial suffixed
    marker is the tail from the last ``<``, held while it is a prefix of one (a suffix
    holds no ``<``, so no earlier ``<`` can start one), at most ``longest`` characters.
    """

    __slots__ = ("longest", "markers", "partial", "regex")

    def __init__(self, markers: tuple[str, ...], suffixed: bool = False) -> None:
        self.markers = tuple(sorted(set(markers), key=len, reverse=True))
        self.partial: re.Pattern[str] | None = None
        if suffixed and self.markers:
            assert all(m[0] == "<" and m[-1] == ">" and "<" not in m[1:] for m in self.markers)
            self.regex: re.Pattern[str] | None = re.compile(
                "|".join(
                    f"(?P<m{i}>{re.escape(m[:-1])}(?:{SUFFIX})?>)"
                    for i, m in enumerate(self.markers)
                )
            )
            self.partial = re.compile(
                "<(?:"
                + "|".join(f"{re.escape(m[1:-1])}{SUFFIX}" for m in self.markers)
                + "|"
                + "|".join(_prefixes(m[1:-1]) for m in self.markers)
                + ")"
            )
            self.longest = len(self.markers[0]) + SUFFIX_MAX
        else:
            self.regex = _alternation(self.markers)
            self.longest = len(self.markers[0]) if self.markers else 0

    def _marker(self, m: re.Match[str]) -> str:
        """The marker as configured (without its suffix) that ``m`` matched."""
        if self.partial is None:
            return m.group()
        assert m.lastgroup is not None
        return self.markers[int(m.lastgroup[1:])]

    def _held(self, buf: str, pos: int) -> int:
        if self.partial is None:
            return partial_marker_len(buf, self.markers, pos)
        n = len(buf)
        lt = buf.rfind("<", max(pos, n - self.longest))
        if lt < 0 or self.partial.fullmatch(buf, lt) is None:
            return 0
        return n - lt

    def find(self, buf: str, pos: int, final: bool) -> tuple[int, int, str | None]:
        """``(text_end, resume, marker)``, as ``MarkerFinder.find``; ``marker`` is None
        when nothing was found, and then ``buf[text_end:]`` must be held (unless final).
        ``marker`` is the configured spelling; ``buf[text_end:resume]`` the one written."""
        n = len(buf)
        m = self.regex.search(buf, pos) if self.regex is not None else None
        if final:
            if m is None:
                return n, n, None
            return m.start(), m.end(), self._marker(m)
        if m is not None and self.partial is not None:
            return m.start(), m.end(), self._marker(m)  # '<…>' tags cannot overlap
        if m is not None and m.start() + self.longest < n:
            return m.start(), m.end(), self._marker(m)  # no longer marker can still overlap it
        held = self._held(buf, pos)
        if m is None:
            return n - held, n - held, None
        if held and n - held <= m.start():
            # A marker that starts at or before this match is still being written, and
            # the whole text would pick it: wait.
            return n - held, n - held, None
        return m.start(), m.end(), self._marker(m)


@mypyc_attr(allow_interpreted_subclasses=True)
class MarkerReasoningParser(ReasoningParser):
    """A reasoning parser driven by a ``ReasoningSpec`` (see the module header)."""

    def __init__(self, spec: ReasoningSpec, *, prompt_opened: bool | None = None) -> None:
        super().__init__(spec.name)
        self.spec = spec
        opened = spec.opened if prompt_opened is None else prompt_opened
        self._mode = REASONING if opened else BEFORE
        self._strip_start = opened  # drop the first START met inside reasoning
        self._at_beginning = True
        self._leading_end = spec.drop_leading_end and not opened
        self._lstrip = False  # removing ``lstrip_after_end`` characters right now
        chars = spec.lstrip_after_end
        self._lstrip_re = re.compile(f"[{re.escape(chars)}]*") if chars else None
        self._implicit = frozenset(spec.implicit_end)
        self._confirm = re.compile(spec.implicit_confirm) if spec.implicit_confirm else None
        self._maybe = re.compile(spec.implicit_maybe) if spec.implicit_maybe else None
        sfx = spec.suffixed
        removed = spec.text_drop + spec.drop  # what the text side drops
        stray = spec.end if spec.drop_stray_end else ()
        opens = tuple(o for o, _ in spec.pass_through)
        inside = spec.end + spec.implicit_end + spec.drop + opens
        self._before_finder = _Finder(spec.start + stray + removed, sfx)
        self._reasoning_strip = _Finder(spec.start + inside, sfx)
        self._reasoning_finder = _Finder(inside, sfx)
        self._after_finder = _Finder(removed + (spec.start if spec.reopen else ()), sfx)
        self._span_finders = {o: _Finder((c, *spec.end, *spec.drop)) for o, c in spec.pass_through}
        self._span_finder = _Finder(())  # the open span's (set when one opens)
        self._starts = frozenset(spec.start)
        self._first_starts = tuple(sorted(spec.start, key=len, reverse=True))
        self._ends = frozenset(spec.end)
        self._text_drop = frozenset(spec.text_drop)
        self._drop = frozenset(spec.drop)
        self._steps = (self._before, self._prefix, self._reasoning, self._after, self._span)

    @property
    def in_reasoning(self) -> bool:
        return self._mode in (REASONING, PREFIX, SPAN)

    # -- the steps (one per mode) ---------------------------------------------------------

    def _before(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        if self.spec.start_at_beginning:
            if not self._at_beginning:
                self._mode = AFTER
                return pos, False
            for start in self._first_starts:
                if buf.startswith(start, pos):
                    self._at_beginning = False
                    self._mode = PREFIX
                    return pos + len(start), False
            if not final and any(cut_marker(m, buf, pos) for m in self._first_starts):
                return pos, True
            self._at_beginning = False
            self._mode = AFTER
            return pos, False
        if self._leading_end:
            for stray in self.spec.end:
                if buf.startswith(stray, pos):
                    self._leading_end = False
                    return pos + len(stray), False
            if not final and any(cut_marker(m, buf, pos) for m in self.spec.end):
                return pos, True
            self._leading_end = False
        end, resume, marker = self._before_finder.find(buf, pos, final)
        if end > pos:
            out.append(Text(buf[pos:end]))
            self._at_beginning = False
        if marker is None:
            return end, True
        if marker in self._starts:
            if self._inside_call(buf, end, resume, out):
                return resume, False
            self._mode = PREFIX
        # else: a stray END or a dropped marker; still before
        return resume, False

    def _prefix(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        prefix = self.spec.start_prefix
        if prefix:
            if buf.startswith(prefix, pos):
                pos += len(prefix)
            elif not final and cut_marker(prefix, buf, pos):
                return pos, True
        self._mode = REASONING
        return pos, False

    def _reasoning(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        finder = self._reasoning_strip if self._strip_start else self._reasoning_finder
        end, resume, marker = finder.find(buf, pos, final)
        if marker is not None and marker in self._implicit and self._confirm is not None:
            verdict = self._confirmed(buf, resume, final)
            if verdict is None:  # undecided: hold the marker and what follows
                if end > pos:
                    out.append(Reasoning(buf[pos:end]))
                return end, True
            if not verdict:  # only a mention: it stays reasoning
                out.append(Reasoning(buf[pos:resume]))
                return resume, False
        if end > pos:
            out.append(Reasoning(buf[pos:end]))
        if marker is None:
            return end, True
        if marker in self._starts and self._strip_start:
            self._strip_start = False
            self._mode = PREFIX
        elif marker in self._implicit:
            self._mode = AFTER
            self._strip_start = False
            if marker not in self._text_drop:
                out.append(Text(buf[end:resume]))  # as written, suffix and all
        elif marker in self._ends:
            self._mode = AFTER
            self._strip_start = False
            self._lstrip = self._lstrip_re is not None
        elif marker in self._span_finders:
            self._span_finder = self._span_finders[marker]
            self._mode = SPAN
            out.append(Text(buf[end:resume]))
        # else: a DROP marker, removed
        return resume, False

    def _span(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        end, resume, marker = self._span_finder.find(buf, pos, final)
        if marker is not None and marker in self._ends:
            if end > pos:
                out.append(Text(buf[pos:end]))
            self._mode = AFTER
            self._strip_start = False
            self._lstrip = self._lstrip_re is not None
            return resume, False
        if marker is not None and marker not in self._drop:  # the span's close
            self._mode = REASONING
            end = resume
        if end > pos:
            out.append(Text(buf[pos:end]))
        if marker is None:
            return end, True
        return resume, False

    def _after(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        if self._lstrip:
            assert self._lstrip_re is not None
            stripped = self._lstrip_re.match(buf, pos)  # '[…]*' always matches
            assert stripped is not None
            pos = stripped.end()
            if pos == len(buf):
                return pos, True  # all of it removed so far; the next chunk goes on
            self._lstrip = False
        if self._after_finder.regex is None:
            out.append(Text(buf[pos:] if pos else buf))
            return len(buf), True
        end, resume, marker = self._after_finder.find(buf, pos, final)
        if end > pos:
            out.append(Text(buf[pos:end]))
        if marker is None:
            return end, True
        if self.spec.reopen and marker in self._starts:
            if self._inside_call(buf, end, resume, out):
                return resume, False
            self._mode = PREFIX
        return resume, False

    def _inside_call(self, buf: str, end: int, resume: int, out: list[Event]) -> bool:
        """Whether the START marker at ``buf[end:resume]`` is inside a tool call the tool
        parser has open (``in_tool_call``): then it is text, handed on as written."""
        if self.in_tool_call is None or not self.in_tool_call(out):
            return False
        out.append(Text(buf[end:resume]))
        return True

    def _confirmed(self, buf: str, at: int, final: bool) -> bool | None:
        """Whether the implicit marker ending at ``at`` is real: True, False, or None
        while what follows it has not arrived yet."""
        assert self._confirm is not None
        if self._confirm.match(buf, at) is not None:
            return True
        if final or len(buf) - at > self.spec.implicit_window:
            return False
        if self._maybe is not None and self._maybe.fullmatch(buf, at) is not None:
            return None
        return False
