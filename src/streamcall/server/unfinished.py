"""A call the model did not finish never reaches a client as runnable.

The parsers close a cut call's arguments (``ToolCallEnd.incomplete``: the model stopped at
its token limit, or its markup broke) so that the library's ``arguments`` always load: for
display, and for the contract. An agent that runs every call it receives would run that
repaired call: ``{"cmd": "rm -rf /tmp/bu`` closed to ``{"cmd": "rm -rf /tmp/bu"}`` is a
different command. OpenAI's API leaves such arguments as the model wrote them, and so does
the proxy: ``WrittenCalls`` sits between the parser and each API's wire, and for a call
that ends incomplete it sends the arguments without the closing the parser added.

What the closing is: the parser appends the shortest text that makes the arguments a JSON
value (a closing quote, ``null`` for a missing value, the brackets still open, the rest of
a half keyword). ``written`` takes it off again: the closing brackets at the end, then a
``null`` (or ``:null``, ``"":null``) before them, then one quote. That can take off a
bracket or a quote the model wrote itself, never add one, so what is left never loads as
the object the parser made (and a cut call whose arguments the model had written whole
stays whole when they were already sent).

Per stream: the argument pieces sent for each open call, so that the last batch sends only
what the model wrote past them. A batch with no incomplete end passes unchanged.
"""

from __future__ import annotations

import dataclasses

from streamcall.chunks import Message
from streamcall.events import Event, ToolCallArgs, ToolCallEnd

__all__ = ["WrittenCalls", "as_written", "written"]

_CLOSERS = "}] \t\r\n"
_NULLS = ('"":null', ":null", "null")


def written(arguments: str) -> str:
    """``arguments`` of an incomplete call without the closing a parser added (module
    docstring)."""
    text = arguments.rstrip(_CLOSERS)
    for null in _NULLS:
        if text.endswith(null):
            text = text[: -len(null)]
            break
    if text.endswith('"'):
        text = text[:-1]
    return text


class WrittenCalls:
    """One answer's events with each unfinished call's arguments as the model wrote them."""

    __slots__ = ("sent",)

    def __init__(self) -> None:
        self.sent: dict[int, list[str]] = {}  # open call index -> argument pieces sent

    def apply(self, events: list[Event]) -> list[Event]:
        cut: set[int] = set()
        for ev in events:
            if ev.__class__ is ToolCallEnd and ev.incomplete:
                cut.add(ev.index)
        sent = self.sent
        if not cut:
            for ev in events:
                cls = ev.__class__
                if cls is ToolCallArgs:
                    sent.setdefault(ev.index, []).append(ev.delta)  # type: ignore[union-attr]
                elif cls is ToolCallEnd:
                    sent.pop(ev.index, None)  # type: ignore[union-attr]
            return events
        out: list[Event] = []
        for ev in events:
            if isinstance(ev, ToolCallArgs):
                if ev.index not in cut:
                    sent.setdefault(ev.index, []).append(ev.delta)
                    out.append(ev)
            elif isinstance(ev, ToolCallEnd):
                before = "".join(sent.pop(ev.index, ()))
                if not ev.incomplete:
                    out.append(ev)
                    continue
                target = written(ev.arguments)
                if len(target) > len(before) and target.startswith(before):
                    out.append(ToolCallArgs(ev.index, target[len(before) :]))
                    before = target
                out.append(ToolCallEnd(ev.index, before, True))
            else:
                out.append(ev)
        return out


def as_written(message: Message, events: list[Event]) -> Message:
    """``message`` with the arguments of its cut calls as ``WrittenCalls`` left them in
    ``events`` (a non-streamed answer's)."""
    cut = {ev.index: ev.arguments for ev in events if isinstance(ev, ToolCallEnd) and ev.incomplete}
    if not cut:
        return message
    calls = tuple(
        dataclasses.replace(call, arguments=cut[call.index]) if call.index in cut else call
        for call in message.tool_calls
    )
    return dataclasses.replace(message, tool_calls=calls)
