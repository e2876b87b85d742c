"""Reasoning formats that split nothing off: every chunk is text.

- ``identity``: no reasoning; every chunk is ``Text``. Holds nothing.
- ``minimax_m2_append_think``: no split either; the model's reasoning stays in the content
  with the ``<think>`` the template pre-filled written back in front of it (vLLM's
  ``MiniMaxM2AppendThinkReasoningParser``). Holds nothing; an empty stream stays empty.
"""

from __future__ import annotations

from streamcall.events import Event, Text
from streamcall.reasoning._engine import ReasoningParser
from streamcall.text import Step

__all__ = ["AppendThinkParser", "IdentityParser"]


class IdentityParser(ReasoningParser):
    """No reasoning: everything is text (one mode, one step)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._steps = (self._read_text,)

    def _read_text(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        out.append(Text(buf[pos:] if pos else buf))
        return len(buf), False


class AppendThinkParser(ReasoningParser):
    """MiniMax-M2 append-think: all text, with the pre-filled ``<think>`` put back."""

    def __init__(self, name: str, *, prompt_opened: bool | None = None) -> None:
        super().__init__(name)
        # the <think> the template pre-filled, written back before the first text
        self._prefill = "<think>" if prompt_opened is None or prompt_opened else ""
        self._steps = (self._read_text,)

    def _read_text(self, buf: str, pos: int, out: list[Event], final: bool) -> Step:
        if self._prefill:
            # its own event: joined to a big first chunk it would copy the chunk
            out.append(Text(self._prefill))
            self._prefill = ""
        out.append(Text(buf[pos:] if pos else buf))
        return len(buf), False
