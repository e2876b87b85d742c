"""streamcall's parsers as vLLM tool parsers (``--tool-parser-plugin``).

vLLM calls a tool parser once per generated delta, through its public ``ToolParser``
interface (``vllm/tool_parsers/abstract_tool_parser.py``)::

    extract_tool_calls(model_output, request) -> ExtractedToolCallInformation
    extract_tool_calls_streaming(previous_text, current_text, delta_text,
                                 previous_token_ids, current_token_ids, delta_token_ids,
                                 request) -> DeltaMessage | None

Its own parsers re-scan ``current_text`` on every delta (quadratic) and break when one
delta holds several tokens. This adapter feeds only ``delta_text`` to a streamcall parser,
so the work per delta is proportional to the delta.

Two layers:

- ``DeltaAdapter`` (pure, no vLLM): ``delta(text)`` returns a DeltaMessage-shaped dict
  (``{"content": ..., "tool_calls": [{"index", "id", "type", "function": {"name",
  "arguments"}}]}``) or None when there is nothing to send yet; ``extract(text)`` is the
  one-shot form. It also keeps the two lists vLLM's serving layer reads at the end of a
  stream, ``prev_tool_call_arr`` (``{"name", "arguments"}`` with the arguments text as
  streamed) and ``streamed_args_for_tool``, consistent, so vLLM sends nothing twice.
- ``register()`` (needs vLLM, imported lazily): subclasses vLLM's ``ToolParser`` once per
  format and registers them with ``ToolParserManager`` as ``streamcall_<format>``, plus
  ``streamcall``, which routes the format from the model's name.

State per request: one streamcall parser and the two lists above. What it cannot do:
vLLM never tells a tool parser that the stream ended, so text the parser still holds
back at the very end (a partial marker) and a call cut off by ``max_tokens`` are not
flushed; vLLM's own parsers behave the same.
"""

from __future__ import annotations

import importlib
import secrets
from collections.abc import Sequence
from typing import Any

from streamcall.events import Event, Text, ToolCallArgs, ToolCallEnd, ToolCallStart
from streamcall.formats.registry import format_for_model, formats, tool_parser

__all__ = ["PREFIX", "DeltaAdapter", "register", "tools_as_dicts"]

PREFIX = "streamcall_"


def tools_as_dicts(tools: Any) -> list[dict[str, Any]] | None:
    """vLLM's request tools (pydantic models or dicts) as plain OpenAI tool dicts."""
    if not tools:
        return None
    out: list[dict[str, Any]] = []
    for tool in tools:
        if isinstance(tool, dict):
            out.append(tool)
        elif hasattr(tool, "model_dump"):
            out.append(tool.model_dump(exclude_none=True))
    return out or None


class DeltaAdapter:
    """vLLM's per-delta calls on top of one streamcall tool parser; no vLLM needed."""

    def __init__(
        self,
        format: str | None = None,
        *,
        model: str | None = None,
        tools: list[dict[str, Any]] | None = None,
        id_prefix: str = "call_",
    ) -> None:
        self.parser = tool_parser(format, model=model, tools=tools, id_prefix=id_prefix)
        #: what vLLM's serving layer reads at the end of a stream (see the module header)
        self.prev_tool_call_arr: list[dict[str, Any]] = []
        self.streamed_args_for_tool: list[str] = []
        self.current_tool_id = -1

    def delta(self, delta_text: str) -> dict[str, Any] | None:
        """One delta of model text in; a DeltaMessage-shaped dict, or None."""
        if not delta_text:
            return None
        return self._message(self.parser.feed(delta_text))

    def finish(self) -> dict[str, Any] | None:
        """End of stream (for callers that know it; vLLM does not call this)."""
        return self._message(self.parser.finish())

    def _message(self, events: list[Event]) -> dict[str, Any] | None:
        content: list[str] = []
        calls: list[dict[str, Any]] = []
        last: dict[str, Any] | None = None
        for ev in events:
            if isinstance(ev, Text):
                content.append(ev.text)
            elif isinstance(ev, ToolCallStart):
                self.current_tool_id = ev.index
                self.prev_tool_call_arr.append({"name": ev.name, "arguments": ""})
                self.streamed_args_for_tool.append("")
                last = {
                    "index": ev.index,
                    "id": ev.id,
                    "type": "function",
                    "function": {"name": ev.name, "arguments": ""},
                }
                calls.append(last)
            elif isinstance(ev, ToolCallArgs):
                self.streamed_args_for_tool[ev.index] += ev.delta
                self.prev_tool_call_arr[ev.index]["arguments"] = self.streamed_args_for_tool[
                    ev.index
                ]
                if last is not None and last["index"] == ev.index:
                    last["function"]["arguments"] += ev.delta
                else:
                    last = {"index": ev.index, "function": {"arguments": ev.delta}}
                    calls.append(last)
            elif isinstance(ev, ToolCallEnd):
                self.prev_tool_call_arr[ev.index]["arguments"] = ev.arguments
        if not content and not calls:
            return None
        out: dict[str, Any] = {}
        if content:
            out["content"] = "".join(content)
        if calls:
            out["tool_calls"] = calls
        return out

    def extract(self, model_output: str) -> dict[str, Any]:
        """A whole output: ``{"tools_called", "tool_calls", "content"}`` (vLLM's shape)."""
        events = self.parser.feed(model_output) + self.parser.finish()
        content = "".join(ev.text for ev in events if isinstance(ev, Text))
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
        return {"tools_called": bool(calls), "tool_calls": calls, "content": content or None}


# --- vLLM wiring (lazy) ------------------------------------------------------------------

_PARSER_MODULES = (
    "vllm.tool_parsers.abstract_tool_parser",
    "vllm.entrypoints.openai.tool_parsers.abstract_tool_parser",
)
_PROTOCOL_MODULES = (
    "vllm.entrypoints.openai.engine.protocol",
    "vllm.entrypoints.openai.protocol",
)
_registered: list[str] = []


def _import_first(candidates: Sequence[str], names: Sequence[str]) -> list[Any]:
    errors: list[str] = []
    for module_name in candidates:
        try:
            module = importlib.import_module(module_name)
            return [getattr(module, name) for name in names]
        except (ImportError, AttributeError) as exc:
            errors.append(f"{module_name}: {exc}")
    raise ImportError(
        "streamcall.integrations.vllm needs vLLM (pip install vllm); tried " + "; ".join(errors)
    )


def _make_base() -> tuple[type, Any]:
    tool_parser_cls, manager = _import_first(_PARSER_MODULES, ("ToolParser", "ToolParserManager"))
    (
        delta_message,
        delta_tool_call,
        delta_function_call,
        extracted,
        function_call,
        tool_call,
    ) = _import_first(
        _PROTOCOL_MODULES,
        (
            "DeltaMessage",
            "DeltaToolCall",
            "DeltaFunctionCall",
            "ExtractedToolCallInformation",
            "FunctionCall",
            "ToolCall",
        ),
    )

    def to_delta_message(shaped: dict[str, Any] | None) -> Any:
        if shaped is None:
            return None
        calls = [
            delta_tool_call(
                index=c["index"],
                id=c.get("id"),
                type=c.get("type"),
                function=delta_function_call(**c["function"]),
            )
            for c in shaped.get("tool_calls", ())
        ]
        if calls:
            return delta_message(content=shaped.get("content"), tool_calls=calls)
        return delta_message(content=shaped.get("content"))

    class StreamcallToolParser(tool_parser_cls):  # type: ignore[misc, valid-type]
        """A vLLM tool parser backed by streamcall; ``format_name`` None routes by model."""

        format_name: str | None = None

        def __init__(self, tokenizer: Any) -> None:
            super().__init__(tokenizer)
            self._adapter: DeltaAdapter | None = None

        def _model(self, request: Any) -> str | None:
            name = getattr(self.model_tokenizer, "name_or_path", None)
            if isinstance(name, str) and name and format_for_model(name):
                return name
            model = getattr(request, "model", None)
            return model if isinstance(model, str) else None

        def _new_adapter(self, request: Any) -> DeltaAdapter:
            tools = tools_as_dicts(getattr(request, "tools", None))
            prefix = f"call_{secrets.token_hex(6)}_"  # unique across requests, as vLLM's ids
            if self.format_name is not None:
                return DeltaAdapter(self.format_name, tools=tools, id_prefix=prefix)
            return DeltaAdapter(model=self._model(request), tools=tools, id_prefix=prefix)

        def adjust_request(self, request: Any) -> Any:
            request = super().adjust_request(request)
            if getattr(request, "tools", None) and getattr(request, "tool_choice", None) != "none":
                # markers are special tokens for several models; vLLM would strip them
                request.skip_special_tokens = False
            return request

        def extract_tool_calls(self, model_output: str, request: Any) -> Any:
            result = self._new_adapter(request).extract(model_output)
            calls = [
                tool_call(
                    id=c["id"],
                    type="function",
                    function=function_call(
                        name=c["function"]["name"], arguments=c["function"]["arguments"]
                    ),
                )
                for c in result["tool_calls"]
            ]
            return extracted(
                tools_called=result["tools_called"], tool_calls=calls, content=result["content"]
            )

        def extract_tool_calls_streaming(
            self,
            previous_text: str,
            current_text: str,
            delta_text: str,
            previous_token_ids: Sequence[int],
            current_token_ids: Sequence[int],
            delta_token_ids: Sequence[int],
            request: Any,
        ) -> Any:
            if self._adapter is None:
                self._adapter = self._new_adapter(request)
            adapter = self._adapter
            shaped = adapter.delta(delta_text)
            # vLLM's serving layer reads these after the last delta
            self.prev_tool_call_arr = adapter.prev_tool_call_arr
            self.streamed_args_for_tool = adapter.streamed_args_for_tool
            self.current_tool_id = adapter.current_tool_id
            return to_delta_message(shaped)

    return StreamcallToolParser, manager


def register(names: Sequence[str] | None = None) -> list[str]:
    """Register ``streamcall`` and ``streamcall_<format>`` with vLLM's ToolParserManager.

    Returns the registered names. Raises ``ImportError`` (with a clear message) when vLLM
    is not installed. Calling it again registers nothing new.
    """
    if _registered:
        return list(_registered)
    base, manager = _make_base()
    wanted = list(names) if names is not None else formats()
    manager.register_module(name="streamcall", module=base)
    _registered.append("streamcall")
    for fmt in wanted:
        cls = type(f"Streamcall_{fmt}_ToolParser", (base,), {"format_name": fmt})
        manager.register_module(name=f"{PREFIX}{fmt}", module=cls)
        _registered.append(f"{PREFIX}{fmt}")
    return list(_registered)
