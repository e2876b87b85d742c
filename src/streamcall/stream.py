"""Whole streams: raw SSE bytes of an OpenAI-compatible chat stream in, events out.

The layers wired together, in the order data flows::

    bytes -> SSEDecoder -> decode_chunk -> (choice 0) content -> model-text parser -> events
                                                      reasoning -> Reasoning
                                                      tool_calls -> ToolCall* (passed through)

- ``data: [DONE]`` ends the stream; anything after it is ignored.
- A chunk that ``decode_chunk`` rejects becomes a ``StreamError`` (with the reason, the
  event's position and the rejected data) and is counted in ``rejected``; nothing is
  dropped silently (a Go client that unmarshals each chunk would skip it).
- ``delta.content`` goes through the model-text parser when a tool or reasoning format is
  given (or routed from ``model``); otherwise it is ``Text`` as is. ``request`` (the chat
  request body: its thinking switches), ``thinking``, ``tool_choice`` and
  ``unknown_calls`` go to ``output_parser`` with it. ``unknown_calls="text"`` applies to
  the calls read from the model text only: structured ``delta.tool_calls`` are the
  server's own decision and pass through.
- Structured ``delta.tool_calls`` from the server become the same ``ToolCall*`` events.
  Their arguments are validated as they stream (``ArgsStreamer``), so the contract holds
  for them too; arguments that are not a JSON object end the call ``incomplete`` and the
  rest is reported as a ``StreamError``.
- Call indices are renumbered 0, 1, 2... across both sources, in order of appearance.
- A ``finish_reason`` on choice 0 flushes the model-text parser, closes open calls and
  emits ``Finish`` (a ``stop`` becomes ``tool_calls`` when the text held a call the model
  finished; calls that all ended ``incomplete`` leave it ``stop``). ``usage`` emits ``UsageEvent``, with every field of the chunk's
  ``Usage`` (details and other members included); ``message.usage`` is the last one. Choices other than 0 are only
  accumulated (``ChatAccumulator``), never parsed.

What it holds back: only what its layers hold (a cut UTF-8 character, an unfinished SSE
line, a partial marker in the model text, an argument token that may still grow).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from streamcall.chunks import ChatAccumulator, ChunkError, Message, MessageToolCall, decode_chunk
from streamcall.chunks.decode import ChunkDelta, ToolCallFragment
from streamcall.events import (
    Event,
    Finish,
    Reasoning,
    StreamError,
    Text,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from streamcall.sse import SSEDecoder
from streamcall.text import ArgsStreamer

__all__ = ["StreamParser", "TextParser", "not_bytes"]


class TextParser(Protocol):
    def feed(self, text: str) -> list[Event]: ...
    def finish(self) -> list[Event]: ...


def not_bytes(value: str) -> TypeError:
    """The error for a ``str`` fed to a parser of an SSE stream, which reads bytes."""
    return TypeError(
        "feed() takes the SSE stream as bytes, as it comes off the wire, not str: encode "
        "it, or give model text to a text parser (streamcall.output_parser, tool_parser)"
    )


def _model_text_parser(
    format: str | None,
    model: str | None,
    tools: list[dict[str, Any]] | None,
    reasoning: str | None,
    id_prefix: str,
    request: Mapping[str, Any] | None,
    thinking: bool | None,
    tool_choice: Any,
    unknown_calls: str = "keep",
) -> TextParser | None:
    if format is None and model is None and reasoning is None:
        return None
    from streamcall.output import output_parser

    parser: TextParser = output_parser(
        model,
        tools=tools,
        tool_format=format,
        reasoning_format=reasoning,
        id_prefix=id_prefix,
        request=request,
        thinking=thinking,
        tool_choice=tool_choice,
        unknown_calls=unknown_calls,
    )
    return parser


class _ServerCall:
    __slots__ = ("args", "index", "open", "started", "tail")

    def __init__(self, index: int) -> None:
        self.index = index
        self.args = ArgsStreamer()
        self.tail = ""
        self.started = False  # the first non-blank argument character was seen
        self.open = True


class StreamParser:
    """Raw SSE bytes of a chat stream in, ``Event``s out; ``message`` is the result."""

    def __init__(
        self,
        format: str | None = None,
        *,
        model: str | None = None,
        tools: list[dict[str, Any]] | None = None,
        reasoning: str | None = None,
        id_prefix: str = "call_",
        request: Mapping[str, Any] | None = None,
        thinking: bool | None = None,
        tool_choice: Any = None,
        unknown_calls: str = "keep",
    ) -> None:
        from streamcall.toolchoice import unknown_calls_error

        why = unknown_calls_error(unknown_calls)
        if why is not None:
            raise ValueError(why)
        self._sse = SSEDecoder()
        self._text = _model_text_parser(
            format,
            model,
            tools,
            reasoning,
            id_prefix,
            request,
            thinking,
            tool_choice,
            unknown_calls,
        )
        self._text_done = False
        self._acc = ChatAccumulator()
        self._index_map: dict[int, int] = {}  # text parser's call index -> ours
        self._server_calls: dict[int, _ServerCall] = {}  # server key -> call
        self._next_index = 0
        self._events_seen = 0
        self._done = False
        self._finished = False
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, list[str]] = {}  # our index -> [id, name]
        self._arguments: dict[int, str] = {}
        self._cut: set[int] = set()  # calls that ended incomplete
        self._finish_reason: str | None = None
        self.rejected = 0
        self.errors: list[StreamError] = []

    # -- public --------------------------------------------------------------------------

    def feed(self, data: bytes) -> list[Event]:
        out: list[Event] = []
        if self._done or self._finished:
            return out
        try:  # (free unless it raises: the type is checked only then)
            events = self._sse.feed(data)
        except TypeError:
            if isinstance(data, str):
                raise not_bytes(data) from None
            raise
        for sse in events:
            self._event(sse.data, out)
            if self._done:
                break
        return out

    def finish(self) -> list[Event]:
        out: list[Event] = []
        if self._finished:
            return out
        if not self._done:
            for sse in self._sse.close():
                self._event(sse.data, out)
        self._finished = True
        self._flush(out)
        return out

    @property
    def done(self) -> bool:
        """``[DONE]`` was seen."""
        return self._done

    @property
    def ended_early(self) -> bool:
        """The stream was finished with neither a ``finish_reason`` (choice 0) nor
        ``[DONE]``: it was cut, not ended."""
        return self._finished and not self._done and self._finish_reason is None

    @property
    def message(self) -> Message:
        """The message so far: parsed content, reasoning, calls, finish reason, usage."""
        calls = tuple(
            MessageToolCall(i, ident, name, self._arguments.get(i, ""))
            for i, (ident, name) in sorted(self._calls.items())
        )
        reason = self._finish_reason
        if len(calls) > len(self._cut) and reason == "stop":
            reason = "tool_calls"  # calls closed by [DONE] after a stop
        return Message(
            content="".join(self._content),
            reasoning="".join(self._reasoning),
            tool_calls=calls,
            finish_reason=reason,
            usage=self._acc.usage,
        )

    def feed_delta(self, delta: ChunkDelta) -> list[Event]:
        """One chunk already decoded (``chunks.decode_chunk``'s ``ChunkDelta``), read as if
        it had arrived on the wire: for decoders of other stream APIs, which turn their
        events into the deltas a chat stream would have carried."""
        out: list[Event] = []
        if not (self._done or self._finished):
            self._delta(delta, out)
        return out

    @property
    def accumulator(self) -> ChatAccumulator:
        """The raw merge of every choice's deltas, as the server sent them."""
        return self._acc

    # -- one SSE event -------------------------------------------------------------------

    def _event(self, data: str, out: list[Event]) -> None:
        self._events_seen += 1
        if data.strip() == "[DONE]":
            self._done = True
            self._flush(out)
            return
        try:
            delta = decode_chunk(data)
        except ChunkError as exc:
            self._reject(out, str(exc), data)
            return
        self._delta(delta, out)

    def _delta(self, delta: ChunkDelta, out: list[Event]) -> None:
        self._acc.add(delta)
        if delta.choice == 0:
            self._choice(delta, out)
        else:
            for other in delta.others:
                if other.choice == 0:
                    self._choice(other, out)
        if delta.usage is not None:
            u = delta.usage
            out.append(
                UsageEvent(
                    u.prompt_tokens,
                    u.completion_tokens,
                    u.total_tokens,
                    u.cached_tokens,
                    u.reasoning_tokens,
                    u.prompt_tokens_details,
                    u.completion_tokens_details,
                    u.extra,
                )
            )

    def _reject(self, out: list[Event], message: str, data: str) -> None:
        self.rejected += 1
        err = StreamError(message, f"event {self._events_seen}", data)
        self.errors.append(err)
        out.append(err)

    def _choice(self, delta: ChunkDelta, out: list[Event]) -> None:
        if delta.reasoning:
            self._emit(Reasoning(delta.reasoning), out)
        if delta.content:
            if self._text is not None and not self._text_done:
                for ev in self._text.feed(delta.content):
                    self._emit(ev, out)
            else:
                self._emit(Text(delta.content), out)
        for fragment in delta.tool_calls:
            self._server_fragment(fragment, out)
        if delta.finish_reason:
            self._flush(out)
            reason = delta.finish_reason
            if reason == "stop" and len(self._calls) > len(self._cut):
                # the server saw text; we saw calls in it (a call the model did not
                # finish is not one to run: the reason stays the server's)
                reason = "tool_calls"
            self._finish_reason = reason
            out.append(Finish(reason, 0))

    # -- events from the model-text parser, renumbered -----------------------------------

    def _emit(self, ev: Event, out: list[Event]) -> None:
        if isinstance(ev, Text):
            self._content.append(ev.text)
        elif isinstance(ev, Reasoning):
            self._reasoning.append(ev.text)
        elif isinstance(ev, ToolCallStart):
            index = self._next_index
            self._next_index += 1
            self._index_map[ev.index] = index
            self._calls[index] = [ev.id, ev.name]
            ev = ToolCallStart(index, ev.id, ev.name)
        elif isinstance(ev, ToolCallArgs):
            ev = ToolCallArgs(self._index_map[ev.index], ev.delta)
        elif isinstance(ev, ToolCallEnd):
            index = self._index_map[ev.index]
            self._arguments[index] = ev.arguments
            if ev.incomplete:
                self._cut.add(index)
            ev = ToolCallEnd(index, ev.arguments, ev.incomplete)
        out.append(ev)

    # -- structured tool calls from the server -------------------------------------------

    def _server_fragment(self, fragment: ToolCallFragment, out: list[Event]) -> None:
        key = fragment.index
        call = self._server_calls.get(key)
        if call is None or not call.open:
            if fragment.name is None and call is None:
                # arguments before any name: nothing to attach them to
                self._reject(out, "tool-call arguments arrived before the call's name", "")
                return
            if call is not None and not call.open:
                return
            for other in self._server_calls.values():
                if other.open:
                    self._end_server_call(other, out)
            index = self._next_index
            self._next_index += 1
            call = self._server_calls[key] = _ServerCall(index)
            ident = fragment.id or f"call_s{index}"
            self._calls[index] = [ident, fragment.name or ""]
            out.append(ToolCallStart(index, ident, fragment.name or ""))
        if fragment.arguments:
            self._server_args(call, fragment.arguments, out)

    def _server_args(self, call: _ServerCall, text: str, out: list[Event]) -> None:
        args = call.args
        if args.done or args.error:
            if text.strip():
                self._reject(out, f"text after the arguments of call {call.index}", text)
            return
        buf = call.tail + text if call.tail else text
        pos = 0
        if not call.started:
            stripped = buf.lstrip()
            if not stripped:
                call.tail = ""
                return
            pos = len(buf) - len(stripped)
            if stripped[0] != "{":
                call.tail = ""
                args.error = True
                self._reject(out, f"arguments of call {call.index} are not a JSON object", buf)
                return
            call.started = True
        delta, pos = args.push(buf, pos)
        if delta:
            out.append(ToolCallArgs(call.index, delta))
        if args.error:
            call.tail = ""
            self._reject(out, f"invalid JSON in the arguments of call {call.index}", buf[pos:])
        else:
            call.tail = buf[pos:]

    def _end_server_call(self, call: _ServerCall, out: list[Event]) -> None:
        call.open = False
        args = call.args
        if not call.started:
            out.append(ToolCallArgs(call.index, "{}"))
            self._arguments[call.index] = "{}"
            if args.error:
                self._cut.add(call.index)
            out.append(ToolCallEnd(call.index, "{}", args.error))
            return
        incomplete = not args.done
        if incomplete:
            tail = "" if args.error else call.tail
            if tail:
                delta, pos = args.push(tail, 0, final=True)
                if delta:
                    out.append(ToolCallArgs(call.index, delta))
                tail = tail[pos:]
            if not args.done:
                closing = args.close("" if args.error else tail)
                if closing:
                    out.append(ToolCallArgs(call.index, closing))
        text = args.text()
        self._arguments[call.index] = text
        if incomplete and not args.done:
            self._cut.add(call.index)
        out.append(ToolCallEnd(call.index, text, incomplete and not args.done))

    def _flush(self, out: list[Event]) -> None:
        if self._text is not None and not self._text_done:
            self._text_done = True
            for ev in self._text.finish():
                self._emit(ev, out)
        for call in self._server_calls.values():
            if call.open:
                self._end_server_call(call, out)
