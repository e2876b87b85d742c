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

Calls to a function the request does not declare (``unknown_calls``): the model may call
a function that is not in the request's ``tools`` (one it saw in an earlier turn, one it
made up). ``unknown_calls`` decides what they become, the same for every format:

- ``"keep"`` (the default): every call is a call, whatever its name. This is what
  streamcall always did and what vLLM's common parsers do (hermes reads any name without
  looking at the tools; muse_glimmer logs a warning and passes the name through).
- ``"text"``: a call whose name is not the ``function.name`` of one of the request's tools
  comes out as ``Text``, exactly as a call to another function under a named
  ``tool_choice`` does (re-rendered in the format's own syntax). Some peers release such
  calls to the content too (SGLang's dots detector writes the block's body out as text
  when streaming); most of SGLang drops them instead (``parse_base_json`` unless
  ``SGLANG_FORWARD_UNKNOWN_TOOLS``: iquest_q1 among them). streamcall never drops model
  text, so ``"text"`` is the strict choice.

  With no tools given (None or an empty list) there is nothing to check a name against,
  and every call is kept. With a named ``tool_choice`` too, the allowed names are the
  chosen one if the tools declare it, else none (under ``"keep"`` the choice alone
  decides, as before). The name is decided when the call
  starts (``ToolCallStart`` carries the whole name), so a declared call still streams.

``AllowedCalls`` wraps a tool parser with the set of names that stay calls
(``OnlyFunction`` is it for one name). State: the open call being held back as text (its
name and argument deltas), the events that came after its start while it was open
(formats end one call before anything else, so this is normally empty), and the
renumbering of the calls that pass (0, 1, 2... in order). Work per event is O(1)
amortised, so the wrapped parser stays linear; its output depends only on the inner
parser's events, so it stays chunking-invariant whenever the inner parser is.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Collection, Iterable, Mapping
from typing import Any, Literal

from streamcall.events import Event, Text, ToolCallArgs, ToolCallEnd, ToolCallStart
from streamcall.formats.engines.base import ToolParser

__all__ = [
    "UNKNOWN_CALLS",
    "AllowedCalls",
    "OnlyFunction",
    "UnknownCalls",
    "allowed_names",
    "chosen_function",
    "declared_names",
    "restrict",
    "tool_choice_error",
    "unknown_calls_error",
]

UnknownCalls = Literal["keep", "text"]
UNKNOWN_CALLS: tuple[str, ...] = ("keep", "text")


def unknown_calls_error(value: Any) -> str | None:
    """Why ``value`` is not an ``unknown_calls`` setting."""
    if value in UNKNOWN_CALLS:
        return None
    return f'unknown_calls must be "keep" or "text", not {value!r}'


def declared_names(tools: Iterable[Any] | None) -> frozenset[str]:
    """The function names an OpenAI ``tools`` list declares (entries that name none are
    skipped)."""
    names: set[str] = set()
    for tool in tools or ():
        if not isinstance(tool, Mapping):
            continue
        fn = tool.get("function")
        name = fn.get("name") if isinstance(fn, Mapping) else None
        if isinstance(name, str) and name:
            names.add(name)
    return frozenset(names)


def allowed_names(
    tools: Iterable[Any] | None, tool_choice: Any = None, unknown_calls: str = "keep"
) -> frozenset[str] | None:
    """The names whose calls stay calls, or None for every name.

    A named ``tool_choice`` allows its function; ``unknown_calls="text"`` allows the names
    the tools declare, when they declare any (no tools: nothing to check, every call is
    kept). Both: the chosen one if it is declared.
    """
    why = unknown_calls_error(unknown_calls)
    if why is not None:
        raise ValueError(why)
    allowed: frozenset[str] | None = None
    only = chosen_function(tool_choice)
    if only is not None:
        allowed = frozenset((only,))
    if unknown_calls == "text":
        declared = declared_names(tools)
        if declared:
            allowed = declared if allowed is None else allowed & declared
    return allowed


def restrict(
    inner: ToolParser,
    tools: Iterable[Any] | None,
    tool_choice: Any = None,
    unknown_calls: str = "keep",
) -> ToolParser | AllowedCalls:
    """``inner``, wrapped so that only the allowed calls are calls (``allowed_names``)."""
    allowed = allowed_names(tools, tool_choice, unknown_calls)
    return inner if allowed is None else AllowedCalls(inner, allowed)


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


class AllowedCalls:
    """A tool parser whose calls to any function not in ``allowed`` come out as text."""

    __slots__ = ("_held", "_index", "_waiting", "allowed", "inner", "names")

    def __init__(self, inner: ToolParser, allowed: Collection[str]) -> None:
        self.inner = inner
        self.allowed = frozenset(allowed)
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
                if ev.name in self.allowed:
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


class OnlyFunction(AllowedCalls):
    """A tool parser whose calls to any function but ``name`` come out as text."""

    __slots__ = ("name",)

    def __init__(self, inner: ToolParser, name: str) -> None:
        super().__init__(inner, (name,))
        self.name = name
