"""What ``streamcall parse`` writes: events as JSON, the final message, the live views.

- ``event_json`` turns one event into the dict a JSON line holds: ``{"type": ..., <its
  fields>}``, the field names those of the event's dataclass fields.
- ``Fold`` folds every event into one OpenAI-shaped assistant message (``--message``): a
  ``stop`` with calls reads ``tool_calls``, model text (which has no finish of its own)
  gets ``tool_calls`` or ``stop``, and a cut SSE capture keeps ``finish_reason: null``.
- A sink receives each chunk's events as they are decided: JSON lines (the default),
  nothing (``--message``, which prints once at the end), a plain transcript that grows
  (``--live`` in a pipe, ``--plain``, or without rich) or rich's ``Live`` view, redrawn
  at 20 Hz rather than per chunk so that a long stream stays linear.
- ``Progress`` counts megabytes on stderr for inputs over 4 MB when stderr is a terminal.

Nothing here reads input or chooses a format: ``cli.parse`` does, and hands events in.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

from streamcall.cli.common import note
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

__all__ = ["Fold", "Progress", "Sink", "event_json", "make_sink"]


_EVENT_TYPES: dict[type, str] = {
    Text: "text",
    Reasoning: "reasoning",
    ToolCallStart: "tool_call_start",
    ToolCallArgs: "tool_call_args",
    ToolCallEnd: "tool_call_end",
    UsageEvent: "usage",
    Finish: "finish",
    StreamError: "error",
}


# (read off the dataclass: a compiled build's event classes have no ``__slots__``)
_FIELDS = {cls: tuple(f.name for f in dataclasses.fields(cls)) for cls in _EVENT_TYPES}


def event_json(ev: Event) -> dict[str, Any]:
    """One event as a JSON-ready dict: ``{"type": ..., <its fields>}``."""
    out: dict[str, Any] = {"type": _EVENT_TYPES[type(ev)]}
    for name in _FIELDS[type(ev)]:
        out[name] = getattr(ev, name)
    return out


@dataclass
class Fold:
    """Folds events into an OpenAI-shaped assistant message."""

    content: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)
    #: an SSE stream that ended with neither a finish_reason nor [DONE]
    cut: bool = False

    def add(self, ev: Event) -> None:
        if isinstance(ev, Text):
            self.content.append(ev.text)
        elif isinstance(ev, Reasoning):
            self.reasoning.append(ev.text)
        elif isinstance(ev, ToolCallStart):
            self.calls[ev.index] = {"id": ev.id, "name": ev.name, "args": [], "incomplete": False}
        elif isinstance(ev, ToolCallArgs):
            self.calls[ev.index]["args"].append(ev.delta)
        elif isinstance(ev, ToolCallEnd):
            self.calls[ev.index]["incomplete"] = ev.incomplete
        elif isinstance(ev, Finish):
            self.finish_reason = ev.reason
        elif isinstance(ev, UsageEvent):
            self.usage = ev.to_dict()  # the server's usage object, details included
        elif isinstance(ev, StreamError):
            self.errors.append(event_json(ev))

    def message(self) -> dict[str, Any]:
        calls = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": "".join(c["args"])},
                **({"incomplete": True} if c["incomplete"] else {}),
            }
            for _, c in sorted(self.calls.items())
        ]
        reason = self.finish_reason
        if reason == "stop" and calls:
            reason = "tool_calls"
        elif reason is None and not self.cut:  # model text has no finish of its own
            reason = "tool_calls" if calls else "stop"
        out: dict[str, Any] = {
            "role": "assistant",
            "content": "".join(self.content) or None,
            "reasoning_content": "".join(self.reasoning) or None,
            "tool_calls": calls,
            "finish_reason": reason,
        }
        if self.usage is not None:
            out["usage"] = self.usage
        if self.errors:
            out["errors"] = self.errors
        return out


class Progress:
    """Progress on stderr for long inputs, when stderr is a terminal."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total = total
        self.done = 0
        self.enabled = enabled and total >= 4 << 20 and sys.stderr.isatty()
        self._last = time.monotonic()

    def step(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last >= 0.25:
            self._last = now
            pct = 100.0 * self.done / self.total
            sys.stderr.write(f"\rstreamcall: parsed {self.done >> 20} MB ({pct:.0f}%)")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 48 + "\r")
            sys.stderr.flush()


class Sink(Protocol):
    def events(self, events: list[Event]) -> None: ...
    def close(self) -> None: ...


class _NullSink:
    def events(self, events: list[Event]) -> None:
        pass

    def close(self) -> None:
        pass


class _JSONLinesSink:
    def __init__(self, out: IO[str]) -> None:
        self.out = out

    def events(self, events: list[Event]) -> None:
        if events:
            self.out.write(
                "".join(json.dumps(event_json(ev), ensure_ascii=False) + "\n" for ev in events)
            )

    def close(self) -> None:
        self.out.flush()


class _PlainLiveSink:
    """A transcript that grows as the stream is parsed: a label whenever the kind of
    output changes (``[reasoning]``, ``[text]``, ``[call 0 name]``), then its deltas."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.current: str | None = None
        self.labels: dict[int, str] = {}

    def _switch(self, label: str) -> None:
        if self.current != label:
            if self.current is not None:
                self.out.write("\n")
            self.out.write(f"[{label}] ")
            self.current = label

    def events(self, events: list[Event]) -> None:
        for ev in events:
            if isinstance(ev, Text):
                self._switch("text")
                self.out.write(ev.text)
            elif isinstance(ev, Reasoning):
                self._switch("reasoning")
                self.out.write(ev.text)
            elif isinstance(ev, ToolCallStart):
                self.labels[ev.index] = f"call {ev.index} {ev.name}"
                self._switch(self.labels[ev.index])
            elif isinstance(ev, ToolCallArgs):
                self._switch(self.labels.get(ev.index, f"call {ev.index}"))
                self.out.write(ev.delta)
            elif isinstance(ev, ToolCallEnd):
                self.out.write(" (incomplete)" if ev.incomplete else "")
            elif isinstance(ev, Finish):
                self._switch("finish")
                self.out.write(ev.reason)
            elif isinstance(ev, StreamError):
                self._switch("error")
                self.out.write(f"{ev.where}: {ev.message}")
        self.out.flush()

    def close(self) -> None:
        if self.current is not None:
            self.out.write("\n")
        self.out.flush()


class _RichLiveSink:
    """rich's ``Live``: reasoning, text and one panel per call, growing in place."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.live import Live

        self.console = Console()
        self.reasoning: list[str] = []
        self.text: list[str] = []
        self.calls: dict[int, list[Any]] = {}  # index -> [name, [deltas], state]
        self.finish: str | None = None
        self.errors: list[str] = []
        # rendered at each refresh (20 Hz), not per chunk: a long stream stays linear
        self.live = Live(console=self.console, refresh_per_second=20, get_renderable=self._render)
        self.live.start()

    def _render(self) -> Any:
        from rich.console import Group
        from rich.panel import Panel
        from rich.text import Text as RichText

        parts: list[Any] = []
        if self.reasoning:
            parts.append(
                Panel(RichText("".join(self.reasoning), style="dim italic"), title="reasoning")
            )
        if self.text:
            parts.append(Panel(RichText("".join(self.text)), title="text"))
        for index, (name, deltas, state) in sorted(self.calls.items()):
            style = {"open": "yellow", "done": "green", "incomplete": "red"}[state]
            parts.append(
                Panel(
                    RichText("".join(deltas), style="cyan"),
                    title=f"call {index}: {name}",
                    subtitle=state,
                    border_style=style,
                )
            )
        if self.errors:
            parts.append(Panel(RichText("\n".join(self.errors), style="red"), title="errors"))
        if self.finish:
            parts.append(RichText(f"finish: {self.finish}", style="bold"))
        return Group(*parts)

    def events(self, events: list[Event]) -> None:
        if not events:
            return
        for ev in events:
            if isinstance(ev, Text):
                self.text.append(ev.text)
            elif isinstance(ev, Reasoning):
                self.reasoning.append(ev.text)
            elif isinstance(ev, ToolCallStart):
                self.calls[ev.index] = [ev.name, [], "open"]
            elif isinstance(ev, ToolCallArgs):
                self.calls[ev.index][1].append(ev.delta)
            elif isinstance(ev, ToolCallEnd):
                self.calls[ev.index][2] = "incomplete" if ev.incomplete else "done"
            elif isinstance(ev, Finish):
                self.finish = ev.reason
            elif isinstance(ev, StreamError):
                self.errors.append(f"{ev.where}: {ev.message}")

    def close(self) -> None:
        self.live.refresh()
        self.live.stop()


def make_sink(args: argparse.Namespace, live: bool) -> Sink:
    if live:
        if args.plain or not sys.stdout.isatty():
            return _PlainLiveSink(sys.stdout)
        try:
            import rich  # noqa: F401
        except ImportError:
            note("rich is not installed (pip install -e '.[cli]'): plain live output")
            return _PlainLiveSink(sys.stdout)
        return _RichLiveSink()
    if args.message:
        return _NullSink()
    return _JSONLinesSink(sys.stdout)
