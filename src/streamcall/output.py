"""The combined output parser: reasoning first, then tool calls, in one ``feed``.

Pipeline::

    model text ─► reasoning parser ─► Reasoning ───────────────────────────► events
                                  └─► Text ─► tool-call parser ─► Text, ToolCall* ─►

The reasoning parser's ``Text`` is what the tool parser reads; ``Reasoning`` passes
straight through. A reasoning format whose tokenizer writes newlines as ``\\n``
(``ReasoningSpec.recover_newlines``: MiniCPM-V) has them recovered last, in the text and
the reasoning but not in the tool calls (``streamcall.text.newlines``). A tool marker that ends reasoning implicitly (Qwen3's ``<tool_call>``,
Kimi K2's ``<|tool_calls_section_begin|>``) leaves the reasoning parser as ``Text``, so the
tool parser sees the whole call, marker included. Either stage may be absent. With both,
the reasoning parser is told that a tool parser reads its text (``feeds_tools``): where
the two read the same message framing (Muse), it then hands on every frame, so that text
the tool parser holds back is decided where its message ends, before the reasoning that
follows.

A reasoning START marker met outside reasoning while the tool parser has a call open (a
``<think>`` inside a call's JSON string) is that call's text: at such a marker the
reasoning parser asks (``ReasoningParser.in_tool_call``), and the tool parser is handed the
text before the marker first, so that it answers for the text up to the marker, whatever
the chunking. Calls are counted open from the tool parser's own events (a
``ToolCallStart`` not yet ended), so the answer is the same for every format.

Both formats are routed from the model id when one is given; an explicit
``tool_format``/``reasoning_format`` wins, and ``"none"`` switches a stage off. The request
decides the rest: its thinking switches where reasoning starts (``reasoning.switches``),
its ``tool_choice`` which calls are parsed (``toolchoice``). Each stage
holds back only its own bounded tail, so the pair is linear and chunking-invariant
whenever each stage is.

Last, the blanks a template writes around the reasoning block and before a call are
dropped as framing (``streamcall.framing.blanks``): no whitespace-only text part comes out
of an answer, and the text after reasoning does not open with the template's separator.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from streamcall.events import Event, Text, ToolCallEnd, ToolCallStart
from streamcall.formats.engines.base import ToolParser, Tools
from streamcall.formats.registry import Parsed, collect, format_for_model, tool_parser
from streamcall.framing.blanks import BlankFraming
from streamcall.reasoning import (
    ReasoningParser,
    reasoning_format_for_model,
    reasoning_parser,
)
from streamcall.reasoning._engine import MarkerReasoningParser
from streamcall.reasoning.switches import prompt_opened_for
from streamcall.text.newlines import NewlineEvents
from streamcall.toolchoice import AllowedCalls, restrict, unknown_calls_error

__all__ = ["OutputParser", "output_parser", "parse_output"]


class OutputParser:
    """Reasoning and tool-call parsing combined; ``feed`` text in, events out."""

    __slots__ = (
        "_ahead",
        "_blanks",
        "_newlines",
        "_open_calls",
        "_sent",
        "_sent_of",
        "reasoning",
        "tools",
    )

    def __init__(
        self, reasoning: ReasoningParser | None, tools: ToolParser | AllowedCalls | None
    ) -> None:
        self.reasoning = reasoning
        self.tools = tools
        recover = isinstance(reasoning, MarkerReasoningParser) and reasoning.spec.recover_newlines
        self._newlines = NewlineEvents() if recover else None
        self._blanks = BlankFraming()
        self._open_calls = 0  # calls the tool parser started and has not ended
        self._ahead: list[Event] = []  # events routed while the reasoning parser ran
        self._sent_of: list[Event] | None = None  # the reasoning step list routed from ...
        self._sent = 0  # ... and how much of it
        if reasoning is not None and tools is not None:
            reasoning.feeds_tools = True
            reasoning.in_tool_call = self._in_tool_call

    @property
    def reasoning_format(self) -> str | None:
        return self.reasoning.name if self.reasoning is not None else None

    @property
    def tool_format(self) -> str | None:
        return self.tools.names[0] if self.tools is not None and self.tools.names else None

    def feed(self, text: str) -> list[Event]:
        """Consume a chunk of model text; return the events it decides."""
        if self.reasoning is None:
            out = self.tools.feed(text) if self.tools is not None else _text(text)
            return self._blanks.apply(out)
        out = self._route_rest(self.reasoning.feed(text))
        if self._newlines is not None:
            out = self._newlines.apply(out, False)
        return self._blanks.apply(out)

    def finish(self) -> list[Event]:
        """End of stream: flush both stages, reasoning first."""
        out: list[Event] = []
        if self.reasoning is not None:
            out = self._route_rest(self.reasoning.finish())
        if self.tools is not None:
            out.extend(self.tools.finish())
        if self._newlines is not None:
            out = self._newlines.apply(out, True)
        return self._blanks.apply(out, True)

    def _route_rest(self, events: list[Event]) -> list[Event]:
        """The reasoning parser's events, after those ``_in_tool_call`` routed already."""
        out, self._ahead = self._ahead, []
        start = self._sent if events is self._sent_of else 0
        self._sent_of, self._sent = None, 0
        return self._route(events[start:] if start else events, out)

    def _route(self, events: list[Event], out: list[Event]) -> list[Event]:
        tools = self.tools
        if tools is None:
            out.extend(events)
            return out
        for ev in events:
            if isinstance(ev, Text):
                got = tools.feed(ev.text)
                for item in got:
                    if isinstance(item, ToolCallStart):
                        self._open_calls += 1
                    elif isinstance(item, ToolCallEnd):
                        self._open_calls -= 1
                out.extend(got)
            else:
                out.append(ev)
        return out

    def _in_tool_call(self, events: list[Event]) -> bool:
        """The reasoning parser's question at a START marker (``in_tool_call``): the events
        of ``events`` not routed yet go to the tool parser now; is a call open after them?"""
        start = self._sent if events is self._sent_of else 0
        self._route(events[start:], self._ahead)
        self._sent_of, self._sent = events, len(events)
        return self._open_calls > 0


def _text(text: str) -> list[Event]:
    return [Text(text)] if text else []


def output_parser(
    model: str | None = None,
    *,
    tools: Tools | None = None,
    tool_format: str | None = None,
    reasoning_format: str | None = None,
    prompt_opened: bool | None = None,
    id_prefix: str = "call_",
    request: Mapping[str, Any] | None = None,
    thinking: bool | None = None,
    tool_choice: Any = None,
    unknown_calls: str = "keep",
) -> OutputParser:
    """A fresh combined parser.

    ``model`` routes both formats (``format_for_model``, ``reasoning_format_for_model``);
    explicit ``tool_format``/``reasoning_format`` win, and ``"none"`` turns a stage off.
    ``prompt_opened`` states whether the prompt already opened reasoning; when it is None
    it is decided by ``thinking`` (an explicit on/off) or else by the ``request`` body's
    thinking switches (``chat_template_kwargs.enable_thinking`` and the like, see
    ``streamcall.reasoning.switches``), and else by the reasoning format's default.
    ``tools`` is the OpenAI tools list. ``tool_choice`` is the request's (see
    ``streamcall.toolchoice``): ``"none"`` turns the tool stage off, so call markup stays
    text; a named function keeps only that function's calls, and calls to any other
    come out as text in the format's own syntax; anything else parses every call.
    ``unknown_calls`` (``"keep"``, the default, or ``"text"``) decides a call to a
    function the ``tools`` do not declare: kept as a call, or text in the format's own
    syntax, as a named ``tool_choice`` has it (no tools: every call is kept; see
    ``streamcall.toolchoice``). A value other than these two raises ``ValueError``.
    """
    if tool_choice == "none":
        tool_format = "none"
    if tool_format is None and model is not None:
        tool_format = format_for_model(model)
    if reasoning_format is None and model is not None:
        reasoning_format = reasoning_format_for_model(model)
    if prompt_opened is None and reasoning_format not in (None, "none"):
        prompt_opened = prompt_opened_for(reasoning_format, request, thinking=thinking)
    rp = (
        reasoning_parser(reasoning_format, prompt_opened=prompt_opened)
        if reasoning_format is not None and reasoning_format != "none"
        else None
    )
    tp = (
        tool_parser(tool_format, tools=tools, id_prefix=id_prefix)
        if tool_format is not None and tool_format != "none"
        else None
    )
    why = unknown_calls_error(unknown_calls)
    if why is not None:
        raise ValueError(why)
    if tp is None:
        return OutputParser(rp, None)
    return OutputParser(rp, restrict(tp, tools, tool_choice, unknown_calls))


def parse_output(
    text: str,
    model: str | None = None,
    *,
    tools: Tools | None = None,
    tool_format: str | None = None,
    reasoning_format: str | None = None,
    prompt_opened: bool | None = None,
    request: Mapping[str, Any] | None = None,
    thinking: bool | None = None,
    tool_choice: Any = None,
    unknown_calls: str = "keep",
) -> Parsed:
    """One-shot: ``output_parser`` fed the whole text, then finished."""
    parser = output_parser(
        model,
        tools=tools,
        tool_format=tool_format,
        reasoning_format=reasoning_format,
        prompt_opened=prompt_opened,
        request=request,
        thinking=thinking,
        tool_choice=tool_choice,
        unknown_calls=unknown_calls,
    )
    events = parser.feed(text)
    events.extend(parser.finish())
    return collect(events)
