"""The request's ``tool_choice``, applied to what a tool-call parser reads.

A raw-text upstream cannot constrain its model the way a server with a tool parser does,
so the model may write any call whatever the request asked for. The request still says
what the client will accept, and this module is where that is honoured:

- ``"none"``: no calls are parsed; the markup stays content (``output_parser`` turns the
  tool stage off, so nothing here runs).
- ``"auto"``, ``"required"`` or nothing: every call is parsed. ``"required"`` cannot be
  enforced on text that has already been written; a model that makes no call just answers.
- ``{"type": "function", "function": {"name": NAME}}``: calls to ``NAME`` are parsed as
  calls; a call to any other function comes out as ``Text`` once it is complete, written
  in the format's own syntax (``ToolParser.render``), so the content shows what the model
  tried. That text is re-rendered from the parsed call, not the model's bytes: whitespace
  inside the markup may differ.

``OnlyFunction`` wraps a tool parser for the named case. State: the open call being held
back as text (its name and argument deltas), the events that came after its start while
it was open (formats end one call before anything else, so this is normally empty), and
the renumbering of the calls that pass (0, 1, 2... in order). Work per event is
O(1) amortised, so the wrapped parser stays linear; its output depends only on the inner
parser's events, so it stays chunking-invariant whenever the inner parser is.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping
from typing import Any

from streamcall.events import Event, Text, ToolCallArgs, ToolCallEnd, ToolCallStart
from streamcall.formats._base import ToolParser

__all__ = ["OnlyFunction", "chosen_function", "tool_choice_error"]


def tool_choice_error(choice: Any) -> str | None:
    """Why ``choice`` is not a ``tool_choice`` the proxy and the parsers understand."""
    if choice is None or choice in ("none", "auto", "required"):
        return None
    if isinstance(choice, Mapping):
        fn = choice.get("function")
        if (
            choice.get("type", "function") == "function"
            and isinstance(fn, Mapping)
            and isinstance(fn.get("name"), str)
            and fn["name"]
        ):
            return None
    return (
        'tool_choice must be "none", "auto", "required" or '
        '{"type": "function", "function": {"name": "..."}}'
    )


def chosen_function(choice: Any) -> str | None:
    """The function a named ``tool_choice`` forces, else None."""
    if isinstance(choice, Mapping):
        fn = choice.get("function")
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str) and fn["name"]:
            return str(fn["name"])
    return None


class OnlyFunction:
    """A tool parser whose calls to any function but ``name`` come out as text."""

    __slots__ = ("_held", "_index", "_waiting", "inner", "name", "names")

    def __init__(self, inner: ToolParser, name: str) -> None:
        self.inner = inner
        self.name = name
        self.names = inner.names
        self._index: dict[int, int] = {}  # inner index of a passed call -> ours
        self._held: tuple[int, str, list[str]] | None = None  # inner index, name, deltas
        self._waiting: list[Event] = []  # events after the held call's start, in order

    def feed(self, text: str) -> list[Event]:
        return self._filter(self.inner.feed(text))

    def finish(self) -> list[Event]:
        out = self._filter(self.inner.finish())
        held = self._held
        if held is not None:  # the inner parser ends every open call; text all the same
            self._held = None
            out.append(Text(self._as_text(held[1], "".join(held[2]))))
            waiting, self._waiting = self._waiting, []
            out.extend(self._filter(waiting))
        return out

    def _filter(self, events: list[Event]) -> list[Event]:
        out: list[Event] = []
        queue = deque(events)
        while queue:
            ev = queue.popleft()
            held = self._held
            if held is not None:
                if isinstance(ev, ToolCallArgs) and ev.index == held[0]:
                    held[2].append(ev.delta)
                elif isinstance(ev, ToolCallEnd) and ev.index == held[0]:
                    out.append(Text(self._as_text(held[1], ev.arguments)))
                    self._held = None
                    queue.extendleft(reversed(self._waiting))  # in their order, next
                    self._waiting.clear()
                else:  # an event after the held call's start waits for its end
                    self._waiting.append(ev)
                continue
            if isinstance(ev, ToolCallStart):
                if ev.name == self.name:
                    index = self._index[ev.index] = len(self._index)
                    out.append(ToolCallStart(index, ev.id, ev.name))
                else:
                    self._held = (ev.index, ev.name, [])
            elif isinstance(ev, ToolCallArgs):
                out.append(ToolCallArgs(self._index[ev.index], ev.delta))
            elif isinstance(ev, ToolCallEnd):
                out.append(ToolCallEnd(self._index[ev.index], ev.arguments, ev.incomplete))
            else:
                out.append(ev)
        return out

    def _as_text(self, name: str, arguments: str) -> str:
        try:
            args = json.loads(arguments)
        except ValueError:  # the contract says they load; text all the same if not
            args = None
        if isinstance(args, dict):
            try:
                return type(self.inner).render([(name, args)])
            except NotImplementedError:
                pass
        return json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
