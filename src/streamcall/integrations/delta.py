"""The serving engines' per-delta state on top of one streamcall parser, shared by the vLLM
and SGLang plugins (``integrations/vllm.py``, ``integrations/sglang.py``); no engine needed.

Both engines call a tool parser once per generated delta and, at the end of a stream, read
what it says it streamed: ``prev_tool_call_arr`` (one ``{"name", "arguments"}`` per call,
the arguments text as streamed) and ``streamed_args_for_tool`` (the arguments text sent per
call). If the two disagree the engine sends the difference again, so ``DeltaAdapter`` keeps
them equal: a call's arguments are what its ``ToolCallArgs`` deltas joined, which at
``ToolCallEnd`` is the whole object (the event contract). SGLang also reads
``incomplete_tool_call_indices`` (calls cut off before their end, ``ToolCallEnd.incomplete``)
to keep the finish reason ``stop`` instead of ``tool_calls``.

Routing helpers for the ``streamcall`` parser that picks a format per checkpoint live here
too: the tokenizer's response template (``response_template_of``) and its model id
(``route_tokenizer``).
"""

from __future__ import annotations

import os
from typing import Any

from streamcall.detect import hf_tool_parser
from streamcall.events import Event, Reasoning, Text, ToolCallArgs, ToolCallEnd, ToolCallStart
from streamcall.formats.registry import ToolParser, format_for_model, formats, tool_parser
from streamcall.output import OutputParser
from streamcall.reasoning import ReasoningParser

__all__ = [
    "PREFIX",
    "DeltaAdapter",
    "response_template_of",
    "route_tokenizer",
    "tools_as_dicts",
]

PREFIX = "streamcall_"


def tools_as_dicts(tools: Any) -> list[dict[str, Any]] | None:
    """An engine's request tools (pydantic models or dicts) as plain OpenAI tool dicts."""
    if not tools:
        return None
    out: list[dict[str, Any]] = []
    for tool in tools:
        if isinstance(tool, dict):
            out.append(tool)
        elif hasattr(tool, "model_dump"):
            out.append(tool.model_dump(exclude_none=True))
    return out or None


def response_template_of(tokenizer: Any) -> dict[str, Any] | None:
    """The tokenizer's response template, or None: its ``response_template`` attribute
    (transformers 5.13 and later), else ``init_kwargs["response_template"]`` (where vLLM's
    ``hf`` parser also looks). A template that is not a valid one raises ``ValueError``
    naming the field, so that the server stops at startup instead of failing requests."""
    template = getattr(tokenizer, "response_template", None)
    if template is None:
        init_kwargs = getattr(tokenizer, "init_kwargs", None)
        if isinstance(init_kwargs, dict):
            template = init_kwargs.get("response_template")
    if template is None:
        return None
    from streamcall.response_templates import load_response_template

    if not isinstance(template, dict):
        raise ValueError(
            "the tokenizer's response_template must be a JSON object, got "
            + type(template).__name__
        )
    try:
        load_response_template(template)
    except ValueError as exc:
        raise ValueError(f"the tokenizer's response_template is not valid: {exc}") from None
    return template


def route_tokenizer(tokenizer: Any) -> str:
    """The format the routing parser ``streamcall`` uses for this tokenizer.

    Routed from the tokenizer's ``name_or_path``: the model id the server loaded, or for
    a local checkpoint its directory's name (the directories above it say nothing about
    the model). Raises ``ValueError`` naming the fix when nothing routes.
    """
    name = getattr(tokenizer, "name_or_path", None)
    if isinstance(name, str) and name:
        model = os.path.basename(os.path.normpath(name)) if os.path.exists(name) else name
        fmt = format_for_model(model)
        if fmt is not None:
            return fmt
    raise ValueError(
        f"the routing tool parser 'streamcall' knows no tool-call format for the model "
        f"{name!r} (it routes by model id, see `streamcall formats`); name the format "
        f"instead: --tool-call-parser {PREFIX}<format>, with <format> one of: "
        + ", ".join(formats())
    )


class DeltaAdapter:
    """An engine's per-delta calls on top of one streamcall tool parser; no engine needed."""

    def __init__(
        self,
        format: str | None = None,
        *,
        model: str | None = None,
        tools: list[dict[str, Any]] | None = None,
        id_prefix: str = "call_",
        reasoning: ReasoningParser | None = None,
        template: dict[str, Any] | None = None,
    ) -> None:
        #: ``template``: a response template, parsed with the ``hf`` format (``format`` is
        #: then ignored)
        tools_parser = (
            hf_tool_parser(template, tools=tools, id_prefix=id_prefix)
            if template is not None
            else tool_parser(format, model=model, tools=tools, id_prefix=id_prefix)
        )
        #: ``reasoning``: a reasoning parser read in front of the tool parser (its
        #: ``Reasoning`` events become ``reasoning`` deltas)
        self.parser: ToolParser | OutputParser = (
            OutputParser(reasoning, tools_parser) if reasoning is not None else tools_parser
        )
        #: what vLLM's serving layer reads at the end of a stream (see the module header)
        self.prev_tool_call_arr: list[dict[str, Any]] = []
        self.streamed_args_for_tool: list[str] = []
        self.current_tool_id = -1
        #: calls that ended cut off (``ToolCallEnd.incomplete``), read by SGLang
        self.incomplete_tool_call_indices: set[int] = set()
        self.finished = False

    def delta(self, delta_text: str) -> dict[str, Any] | None:
        """One delta of model text in; a DeltaMessage-shaped dict, or None."""
        if not delta_text or self.finished:
            return None
        return self._message(self.parser.feed(delta_text))

    def finish(self) -> dict[str, Any] | None:
        """End of stream: what the parser still held back, or None. Idempotent."""
        if self.finished:
            return None
        self.finished = True
        return self._message(self.parser.finish())

    def _message(self, events: list[Event]) -> dict[str, Any] | None:
        content: list[str] = []
        reasoning: list[str] = []
        calls: list[dict[str, Any]] = []
        last: dict[str, Any] | None = None
        for ev in events:
            if isinstance(ev, Text):
                content.append(ev.text)
            elif isinstance(ev, Reasoning):
                reasoning.append(ev.text)
            elif isinstance(ev, ToolCallStart):
                self.current_tool_id = ev.index
                self.prev_tool_call_arr.append({"name": ev.name, "arguments": ""})
                self.streamed_args_for_tool.append("")
                last = {
                    "index": ev.index,
                    "id": ev.id,
                    "type": "function",
                    "function": {"name": ev.name},
                }
                calls.append(last)
            elif isinstance(ev, ToolCallArgs):
                self.streamed_args_for_tool[ev.index] += ev.delta
                self.prev_tool_call_arr[ev.index]["arguments"] = self.streamed_args_for_tool[
                    ev.index
                ]
                if last is not None and last["index"] == ev.index:
                    function = last["function"]
                    function["arguments"] = function.get("arguments", "") + ev.delta
                else:
                    last = {"index": ev.index, "function": {"arguments": ev.delta}}
                    calls.append(last)
            elif isinstance(ev, ToolCallEnd):
                self.prev_tool_call_arr[ev.index]["arguments"] = ev.arguments
                if ev.incomplete:
                    self.incomplete_tool_call_indices.add(ev.index)
        if not content and not calls and not reasoning:
            return None
        out: dict[str, Any] = {}
        if reasoning:
            out["reasoning"] = "".join(reasoning)
        if content:
            out["content"] = "".join(content)
        if calls:
            out["tool_calls"] = calls
        return out

    def extract(self, model_output: str) -> dict[str, Any]:
        """A whole output: ``{"tools_called", "tool_calls", "content"}`` (vLLM's shape)."""
        events = self.parser.feed(model_output) + self.parser.finish()
        self.finished = True
        content = "".join(ev.text for ev in events if isinstance(ev, Text))
        reasoning = "".join(ev.text for ev in events if isinstance(ev, Reasoning))
        starts = {ev.index: ev for ev in events if isinstance(ev, ToolCallStart)}
        calls = [
            {
                "id": starts[ev.index].id,
                "type": "function",
                "function": {"name": starts[ev.index].name, "arguments": ev.arguments},
            }
            for ev in events
            if isinstance(ev, ToolCallEnd)
        ]
        return {
            "tools_called": bool(calls),
            "tool_calls": calls,
            "content": content or None,
            "reasoning": reasoning or None,
        }
