"""The events every layer speaks.

Parsers turn text into a flat list of these. They are frozen, slotted dataclasses so that
they are cheap to make, safe to share and compare by value.

The first five are the public contract (CONTRACT.md). The rest are what a whole stream adds
on top of model text: usage, the finish reason, and chunks the decoder rejected.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Event",
    "Finish",
    "Reasoning",
    "StreamError",
    "Text",
    "ToolCallArgs",
    "ToolCallEnd",
    "ToolCallStart",
    "UsageEvent",
]


@dataclass(frozen=True, slots=True)
class Text:
    """Visible content delta."""

    text: str


@dataclass(frozen=True, slots=True)
class Reasoning:
    """Reasoning (thinking) delta."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallStart:
    """A call begins; its name is known."""

    index: int
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class ToolCallArgs:
    """A fragment of the call's arguments JSON text."""

    index: int
    delta: str


@dataclass(frozen=True, slots=True)
class ToolCallEnd:
    """The call is complete; ``arguments`` is the whole JSON object text.

    ``incomplete`` is true when the model stopped (end of stream, or malformed markup)
    before the arguments were closed. The parser then appended the shortest text that
    closes them, so ``arguments`` still loads as a JSON object and still equals the
    concatenation of the call's ``ToolCallArgs`` deltas.
    """

    index: int
    arguments: str
    incomplete: bool = False


@dataclass(frozen=True, slots=True)
class UsageEvent:
    """Token usage reported by the server."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


@dataclass(frozen=True, slots=True)
class Finish:
    """The server reported a finish reason for a choice."""

    reason: str
    choice: int = 0


@dataclass(frozen=True, slots=True)
class StreamError:
    """Input that was rejected: reported, never silently dropped.

    ``where`` says where in the stream (for example ``"event 12"``) and ``message`` what
    was wrong. ``data`` is the rejected input, kept so that nothing is lost.
    """

    message: str
    where: str = ""
    data: str = ""


Event = (
    Text
    | Reasoning
    | ToolCallStart
    | ToolCallArgs
    | ToolCallEnd
    | UsageEvent
    | Finish
    | StreamError
)
