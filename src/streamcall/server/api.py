"""What the proxy's three client APIs share: one upstream path, an answer format per API.

The proxy speaks chat completions to its upstream, whatever the client speaks. Each client
API (chat completions, the Responses API, Anthropic's Messages API) is an ``Endpoint``:

- ``translate``: the client's request body -> a ``Call``: the chat-completions request the
  upstream path takes (validated again there, then sent as ``--upstream-tools`` says, the
  ``render`` mode included), and the request members the answer echoes (``context``);
  a request it cannot honour raises ``BadRequest``;
- ``wire``: a ``Wire``, the streamed answer in the client's event format: fed the
  streamcall events the parser gives (the events ``ChunkEmitter`` is fed), it returns SSE
  bytes; ``start``, ``feed``, then ``end`` (the stream ended well) or ``fail`` (it broke);
- ``answer``: the whole (non-streamed) answer;
- ``error``: an OpenAI-shaped error body ``{"error": {...}}`` in the client API's shape;
- ``call_prefix``: the prefix of the tool-call ids the parser makes (``call_`` or
  ``toolu_`` and a random part).

Everything here is sans-IO: the HTTP side lives in ``app.py``.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from streamcall.chunks import ChunkError, Message, decode_chunk
from streamcall.events import Event, UsageEvent

__all__ = [
    "BadRequest",
    "Call",
    "Endpoint",
    "Offered",
    "Parsed",
    "StopSniffer",
    "Wire",
    "answer_events",
    "error_message",
    "matched_stop",
    "new_id",
    "usage_event",
]


class BadRequest(Exception):
    """A request the proxy refuses (400); ``param`` names the member at fault, ``details``
    (when given) goes in the error as ``details``, for a client that reads it."""

    def __init__(
        self, message: str, param: str | None = None, details: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.param = param
        self.details = details


@dataclass(frozen=True)
class Offered:
    """A tool as the client named it (``server/tools.py``): ``kind`` ``function`` or
    ``custom``, its ``name`` and the ``namespace`` it stood in (None at the top level)."""

    kind: str
    name: str
    namespace: str | None = None


@dataclass
class Call:
    """One client request: the chat request sent upstream, and what the answer echoes.

    ``names`` maps a tool name the model was shown to the tool as the client named it
    (only where the two differ in name or kind); ``hosted`` lists the tools the request
    offered that the proxy cannot run, ``(where, type)``, not offered to the model;
    ``stop`` the client's stop sequences, to report which one ended the answer.
    """

    chat: dict[str, Any]
    context: Mapping[str, Any] = field(default_factory=dict)
    names: Mapping[str, Offered] = field(default_factory=dict)
    hosted: list[tuple[str, str]] = field(default_factory=list)
    stop: list[str] = field(default_factory=list)


@dataclass
class Parsed:
    """One upstream choice, parsed: the choice as sent, its events and its message."""

    choice: dict[str, Any]
    events: list[Event]
    message: Message


class Wire(Protocol):
    """One streamed answer in a client API's event format."""

    def start(self) -> bytes:
        """The stream's opening events."""
        ...

    def feed(self, events: list[Event], rejected: int) -> bytes:
        """One batch of events; ``rejected`` is how many upstream chunks were rejected so
        far (``StreamError`` events are reported by the server, not here)."""
        ...

    def end(self, reason: str | None, rejected: int, stop: str | None = None) -> bytes:
        """The closing events of a stream that ended well; ``reason`` is the finish reason
        the parser saw (None: the upstream sent none), ``stop`` the client's stop sequence
        that ended it, when the upstream said which (``StopSniffer``)."""
        ...

    def fail(self, error: Mapping[str, Any]) -> bytes:
        """The closing events of a stream that broke; ``error`` is an OpenAI-shaped body."""
        ...


@dataclass(frozen=True)
class Endpoint:
    """One client API over the shared upstream path (module docstring)."""

    translate: Callable[[Any], Call]
    wire: Callable[[Call, str], Wire]
    answer: Callable[[Call, dict[str, Any], list[Parsed], int], dict[str, Any]]
    error: Callable[[int, dict[str, Any]], dict[str, Any]]
    call_prefix: Callable[[], str]


def new_id(prefix: str, size: int = 12) -> str:
    """A random id: ``prefix`` and ``2 * size`` hex digits."""
    return f"{prefix}{secrets.token_hex(size)}"


def usage_event(usage: Any) -> UsageEvent | None:
    """An upstream's usage object as a ``UsageEvent``, read by the chunk layer's rules
    (None when it is not one, or carries no token totals)."""
    if not isinstance(usage, dict):
        return None
    try:
        u = decode_chunk(json.dumps({"choices": [], "usage": usage})).usage
    except (ChunkError, ValueError, TypeError, RecursionError):
        return None
    if u is None:
        return None
    return UsageEvent(
        u.prompt_tokens,
        u.completion_tokens,
        u.total_tokens,
        u.cached_tokens,
        u.reasoning_tokens,
        u.prompt_tokens_details,
        u.completion_tokens_details,
        u.extra,
    )


def answer_events(
    answer: Mapping[str, Any], parsed: list[Parsed]
) -> tuple[list[Event], str | None]:
    """A non-streamed answer as an encoder reads it: the first choice's events with the
    answer's usage after them, and that choice's finish reason (None without a choice)."""
    first = parsed[0] if parsed else None
    events: list[Event] = list(first.events) if first is not None else []
    usage = usage_event(answer.get("usage"))
    if usage is not None:
        events.append(usage)
    return events, first.message.finish_reason if first is not None else None


def matched_stop(choice: Any, stops: list[str]) -> str | None:
    """The client's stop sequence a finished choice says it matched: vLLM's
    ``stop_reason``, SGLang's ``matched_stop`` (None when neither names one of ``stops``)."""
    if not stops or not isinstance(choice, Mapping):
        return None
    for key in ("stop_reason", "matched_stop"):
        value = choice.get(key)
        if isinstance(value, str) and value in stops:
            return value
    return None


_STOP_MEMBER = re.compile(rb'"(?:stop_reason|matched_stop)"\s*:\s*("(?:[^"\\]|\\.)*")')


class StopSniffer:
    """Which of the client's stop sequences ended a streamed answer, read from the
    upstream's bytes as they pass (the chunk layer keeps no such member): the last
    ``stop_reason`` or ``matched_stop`` string that is one of ``stops``. Holds the last
    256 bytes, for a member cut between two reads."""

    __slots__ = ("matched", "stops", "tail")

    def __init__(self, stops: list[str]) -> None:
        self.stops = set(stops)
        self.matched: str | None = None
        self.tail = b""

    def see(self, data: bytes) -> None:
        buf = self.tail + data
        for found in _STOP_MEMBER.finditer(buf):
            try:
                value = json.loads(found.group(1))
            except ValueError:
                continue
            if value in self.stops:
                self.matched = value
        self.tail = buf[-256:]


def error_message(error: Mapping[str, Any]) -> str:
    """The message of an OpenAI-shaped error body."""
    inner = error.get("error")
    if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
        return str(inner["message"])
    if isinstance(inner, str):
        return inner
    return json.dumps(error)[:2000]
