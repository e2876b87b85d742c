"""Token-tagged text: a control token the model spelled out is text, never a delimiter.

transformers 5.25 reads generated token ids (``parse_response(ids, ..., tokenizer=)``): a
control token (a special token, or an added token the chat template writes) that the
model generated as its id is a delimiter, as before; the same characters generated as
ordinary tokens (``<``, ``|im``, ``_end``, ``|>``) are text. streamcall has no tokenizer,
so it takes what the ids decode to, tagged: ``(text, True)`` for a control token generated
as its id, ``(text, False)`` for the text of ordinary tokens. ``ControlTokenText`` turns
that into the text the reader scans, the way 5.25's ``TokenIdDecoder`` does:

- a control token generated as its id is its spelling;
- in ordinary text, every spelling of a control token gets ``MARKER`` (U+FDD2, a Unicode
  noncharacter, which model output does not hold) between its characters, so that no
  delimiter can match it;
- ordinary text that ends in a proper prefix of a control token (``<|im``) is held until
  the next piece decides (it may complete a spelled-out token, to be defused whole), never
  cutting through a whole spelling; a control token, or the end, releases it.

``strip_markers`` takes the markers out of what the reader gives back (a region's value,
before the tools type it, as 5.25 does; the events' text), so the spelled-out token reads
as the model wrote it. The control tokens are the caller's to give: transformers takes
them from the tokenizer (its special tokens, and the added tokens the chat template
writes, as ``apply_chat_template(..., sanitize_control_tokens=True)`` protects them).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

__all__ = ["MARKER", "ControlTokenText", "TaggedText", "strip_event_markers", "strip_markers"]

MARKER = "\ufdd2"

# One piece of token-tagged text: (decoded text, generated as a control token's id).
TaggedText = tuple[str, bool]


def strip_markers(value: Any) -> Any:
    """``value`` with every ``MARKER`` removed, in strings, list items, dict keys and values."""
    if isinstance(value, str):
        return value.replace(MARKER, "")
    if isinstance(value, list):
        return [strip_markers(item) for item in value]
    if isinstance(value, dict):
        return {strip_markers(key): strip_markers(item) for key, item in value.items()}
    return value


class ControlTokenText:
    """Token-tagged pieces in, the text a response template's reader scans out (above)."""

    __slots__ = ("_longest", "_prefixes", "_spelling", "_tail")

    def __init__(self, control_tokens: Iterable[str]) -> None:
        tokens = sorted({t for t in control_tokens if isinstance(t, str) and t}, key=len)
        tokens.reverse()  # longest first: a token wins over the tokens it contains
        self._spelling = re.compile("|".join(map(re.escape, tokens)) or "(?!)")
        self._prefixes = frozenset(t[:n] for t in tokens for n in range(1, len(t)))
        self._longest = max(map(len, self._prefixes), default=0)
        self._tail = ""

    def feed(self, pieces: Iterable[TaggedText]) -> str:
        """The text the pieces add (it can be empty while a possible spelling is held)."""
        out: list[str] = []
        for text, control in pieces:
            if control:
                out.append(self._defuse(self._tail, final=True))
                self._tail = ""
                out.append(text)
            elif text:
                out.append(self._defuse(self._tail + text, final=False))
        return "".join(out)

    def flush(self) -> str:
        """The end: what is held, defused."""
        text, self._tail = self._tail, ""
        return self._defuse(text, final=True)

    def _defuse(self, text: str, final: bool) -> str:
        """``text`` with its spellings defused; unless ``final``, a tail that may still
        become a spelling is kept in ``_tail`` instead."""
        self._tail = ""
        if not final and text:
            cut = len(text)
            for length in range(min(self._longest, len(text)), 0, -1):
                if text[-length:] in self._prefixes:
                    cut -= length
                    break
            if cut < len(text):
                # never cut through a whole spelling: it is defused whole once decided
                for m in self._spelling.finditer(text, max(0, cut - self._longest)):
                    if m.start() < cut < m.end():
                        cut = m.start()
                        break
                text, self._tail = text[:cut], text[cut:]
        return self._spelling.sub(lambda m: MARKER.join(m.group()), text)


def strip_event_markers(events: list[Any]) -> list[Any]:
    """The events with ``MARKER`` taken out of their text fields (a new event only where
    one held a marker)."""
    out = []
    for event in events:
        changes = {
            f.name: value.replace(MARKER, "")
            for f in dataclasses.fields(event)
            if isinstance(value := getattr(event, f.name), str) and MARKER in value
        }
        out.append(dataclasses.replace(event, **changes) if changes else event)
    return out
