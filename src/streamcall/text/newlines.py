"""Escaped newlines written by a tokenizer, turned back into newlines as text streams.

Some tokenizers (MiniCPM-V's) decode a newline token as the two characters ``\\`` and
``n``. ``EscapedNewlines`` recovers them in prose and leaves alone every place where a
backslash means something:

- ``\\n``, ``\\r`` and ``\\r\\n`` become one newline;
- inline code (`` `…` ``), fenced code (```` ```…``` ````), inline and display math
  (``$…$``, ``$$…$$``, ``\\(…\\)``, ``\\[…\\]``) are copied as written up to their closer;
- a run of two or more backslashes is copied as written, and so is the character after it.

State: the closer of the span being copied (None in prose), whether the text so far ends in
a run of backslashes (more of them continue it), and a held tail of at most four
characters that the next chunk decides (a cut escape ``\\``, ``\\r``, ``\\r\\``; a ``$``
or one or two backticks that may grow into ``$$`` or a fence; a cut closer). The result is
therefore the same however the text is chunked. The scan jumps from one special
character to the next with ``re.search``; a loop turn per special character, never per
character.
"""

from __future__ import annotations

import re

from streamcall.events import Event, Reasoning, Text

__all__ = ["EscapedNewlines", "NewlineEvents"]

_SPECIAL = re.compile(r"[`$\\]")
_BACKSLASHES = re.compile(r"\\+")
#: what a backslash starts, in prose
_OPENERS = {"\\(": "\\)", "\\[": "\\]"}
#: a tail that may still become something else once more text arrives
_UNDECIDED = frozenset({"`", "``", "$", "\\", "\\r", "\\r\\"})


class EscapedNewlines:
    """Streaming recovery of ``\\n`` / ``\\r`` / ``\\r\\n`` outside code and math."""

    __slots__ = ("_close", "_held", "_run")

    def __init__(self) -> None:
        self._close: str | None = None
        self._held = ""
        self._run = False

    def feed(self, text: str, final: bool = False) -> str:
        """The recovered text that ``text`` decides; with ``final`` nothing is held."""
        buf = self._held + text if self._held else text
        self._held = ""
        if self._close is None and not self._run and _SPECIAL.search(buf) is None:
            return buf  # plain prose: nothing to recover, nothing to hold
        n = len(buf)
        out: list[str] = []
        pos = 0
        if self._run and pos < n:
            # A run of backslashes cut by the last chunk goes on, still as written.
            m = _BACKSLASHES.match(buf, pos)
            stop = m.end() if m is not None else pos
            out.append(buf[pos:stop])
            pos = stop
            self._run = stop == n
        while pos < n:
            close = self._close
            if close is not None:
                at = buf.find(close, pos)
                if at >= 0:
                    out.append(buf[pos : at + len(close)])
                    pos = at + len(close)
                    self._close = None
                    continue
                keep = 0 if final else _cut_closer(buf, pos, close)
                out.append(buf[pos : n - keep])
                self._held = buf[n - keep :]
                break
            m = _SPECIAL.search(buf, pos)
            if m is None:
                out.append(buf[pos:])
                break
            at = m.start()
            out.append(buf[pos:at])
            pos = at
            if not final and n - at <= 3 and buf[at:] in _UNDECIDED:
                self._held = buf[at:]
                break
            ch = buf[at]
            if ch == "`":
                opener = "```" if buf.startswith("```", at) else "`"
            elif ch == "$":
                opener = "$$" if buf.startswith("$$", at) else "$"
            else:
                run = _BACKSLASHES.match(buf, at)
                assert run is not None
                if run.end() - at > 1:
                    out.append(buf[at : run.end()])
                    pos = run.end()
                    self._run = pos == n and not final
                    continue
                two = buf[at : at + 2]
                if buf.startswith("\\r\\n", at):
                    out.append("\n")
                    pos = at + 4
                elif two in ("\\n", "\\r"):
                    out.append("\n")
                    pos = at + 2
                elif two in _OPENERS:
                    out.append(two)
                    pos = at + 2
                    self._close = _OPENERS[two]
                else:
                    out.append("\\")
                    pos = at + 1
                continue
            out.append(opener)  # a code or math span: copied up to its closer, the same
            pos = at + len(opener)
            self._close = opener
        if final:
            self._run = False
        return "".join(out)

    def flush(self) -> str:
        """What is held, released as at the end of the text (the span state stays)."""
        if not self._held:
            self._run = False
            return ""
        return self.feed("", final=True)


class NewlineEvents:
    """``EscapedNewlines`` over an event stream: ``Text`` and ``Reasoning`` each have their
    own, tool-call events pass untouched (their arguments are JSON, where ``\\n`` means
    what it says). A tail one of them holds is released as soon as an event of another
    kind comes, so that the events keep their order."""

    __slots__ = ("_reasoning", "_text")

    def __init__(self) -> None:
        self._text = EscapedNewlines()
        self._reasoning = EscapedNewlines()

    def apply(self, events: list[Event], final: bool) -> list[Event]:
        """The events with their text recovered; with ``final`` nothing is held."""
        out: list[Event] = []
        for ev in events:
            if isinstance(ev, Text):
                _release(self._reasoning, Reasoning, out)
                if s := self._text.feed(ev.text):
                    out.append(ev if s is ev.text else Text(s))
            elif isinstance(ev, Reasoning):
                _release(self._text, Text, out)
                if s := self._reasoning.feed(ev.text):
                    out.append(ev if s is ev.text else Reasoning(s))
            else:
                _release(self._reasoning, Reasoning, out)
                _release(self._text, Text, out)
                out.append(ev)
        if final:
            _release(self._reasoning, Reasoning, out)
            _release(self._text, Text, out)
        return out


def _release(
    recovery: EscapedNewlines, kind: type[Text] | type[Reasoning], out: list[Event]
) -> None:
    if s := recovery.flush():
        out.append(kind(s))


def _cut_closer(buf: str, pos: int, close: str) -> int:
    """How many characters at the end of ``buf[pos:]`` may be the start of ``close``."""
    for k in range(min(len(close) - 1, len(buf) - pos), 0, -1):
        if close.startswith(buf[-k:]):
            return k
    return 0
