"""The blanks a chat template writes around a reasoning block and before a call: framing.

Templates separate the parts of an answer with blank lines: Qwen3 writes ``</think>\\n\\n``
before the answer and ``\\n`` before ``<tool_call>``; DeepSeek, GLM and others do the same
in their own markup. Read as text, those blanks become a whitespace-only text part that
no model meant: a client that takes the first text part as the answer (pydantic-ai's
``run_stream``) answers ``"\\n\\n"``, an agent shows an empty message. Anthropic's and
OpenAI's own servers never send one. So, over the events of one answer:

- text that is only blanks (``str.isspace``) and stands at an edge (the start of the
  answer, after reasoning, after a call) is dropped when the next thing is reasoning, a
  call or the end of the answer; when text follows it instead, it is text after all, and
  is released before that text;
- the blanks that open the first text after reasoning are dropped (the template's
  separator after the reasoning block).

Everything else passes as it is; blanks inside and between words of real text are never
touched. What it holds back: a run of blank text at an edge, until the next event that is
not blank text decides it. The decision depends only on the events, never on how the
text was cut, so chunking invariance is kept; the held run is joined once, when released.
"""

from __future__ import annotations

from streamcall.events import Event, Reasoning, Text, ToolCallEnd, ToolCallStart

__all__ = ["BlankFraming"]


class BlankFraming:
    """Drops template framing blanks from one answer's events (module docstring)."""

    __slots__ = ("edge", "held", "trim")

    def __init__(self) -> None:
        self.edge = True  # at the start, after reasoning or after a call
        self.trim = False  # the next text follows reasoning: its opening blanks go
        self.held: list[str] = []  # blank text at the edge, not yet decided

    def apply(self, events: list[Event], final: bool = False) -> list[Event]:
        """One batch of events, with the framing blanks it decides dropped; ``final``: the
        answer ends after them (held blanks are dropped)."""
        if not self.edge:
            # the common case, mid-text or mid-call: nothing to do unless an edge comes
            for ev in events:
                cls = ev.__class__
                if cls is Reasoning or cls is ToolCallEnd:
                    break
            else:
                if final:
                    self.held.clear()
                return events
        out: list[Event] = []
        for ev in events:
            cls = ev.__class__
            if cls is Text:
                if not self.edge:
                    out.append(ev)
                    continue
                text = ev.text  # type: ignore[union-attr]
                if not text or text.isspace():
                    if not self.trim:
                        self.held.append(text)
                    continue
                if self.trim:
                    text = text.lstrip()
                elif self.held:
                    text = "".join(self.held) + text
                self.held.clear()
                self.edge = self.trim = False
                out.append(Text(text))
            elif cls is Reasoning:
                self.held.clear()
                self.edge = self.trim = True
                out.append(ev)
            elif cls is ToolCallStart:
                self.held.clear()
                self.edge = True
                self.trim = False
                out.append(ev)
            elif cls is ToolCallEnd:
                self.edge = True
                self.trim = False
                out.append(ev)
            else:
                out.append(ev)
        if final:
            self.held.clear()
        return out
