"""streamcall's parsers as vLLM tool parsers (``--tool-parser-plugin``).

vLLM calls a tool parser once per generated delta, through its public ``ToolParser``
interface (``vllm/tool_parsers/abstract_tool_parser.py``)::

    __init__(tokenizer, tools=None)                      # vLLM 0.33; (tokenizer) before
    extract_tool_calls(model_output, request) -> ExtractedToolCallInformation
    extract_tool_calls_streaming(previous_text, current_text, delta_text,
                                 previous_token_ids, current_token_ids, delta_token_ids,
                                 request) -> DeltaMessage | None
    finish_streaming() -> DeltaMessage | None            # vLLM 0.33, engine-based parsers

Many of vLLM's own parsers re-scan ``current_text`` on every delta (quadratic). This
adapter feeds only ``delta_text`` to a streamcall parser, so the work per delta is
proportional to the delta, however many tokens one delta holds.

Two layers:

- ``DeltaAdapter`` (pure, no vLLM): ``delta(text)`` returns a DeltaMessage-shaped dict
  (``{"reasoning": ..., "content": ..., "tool_calls": [{"index", "id", "type",
  "function": {"name", "arguments"}}]}``, only the members that are set) or None when
  there is nothing to send yet; ``finish()`` flushes the end of the stream;
  ``extract(text)`` is the one-shot form.
  It keeps the two lists vLLM's serving layer reads at the end of a stream,
  ``prev_tool_call_arr`` (``{"name", "arguments"}`` with the arguments text as streamed)
  and ``streamed_args_for_tool``, consistent, so vLLM sends nothing twice.
- ``register()`` (needs vLLM, imported lazily): subclasses vLLM's ``ToolParser`` once per
  format and registers them with ``ToolParserManager`` as ``streamcall_<format>``, plus
  ``streamcall``, which, when the parser is built, reads the tokenizer's response template
  (``response_template_of``: the ``response_template`` of its ``tokenizer_config.json``,
  as transformers and vLLM's ``hf`` read it) and parses with the ``hf`` format built from
  it; without one, it routes the format from the tokenizer's name (the checkpoint the
  server loaded, not the served alias). vLLM 0.33 builds every
  parser once at startup to check it against the tokenizer, so a checkpoint that routes
  nowhere (a local directory named after no known model) stops the server at startup
  with a message naming ``streamcall_<format>``; it never fails or degrades a request.
  ``streamcall_hf`` and ``streamcall_beam`` (vLLM's ``hf`` and ``beam``, which read the
  checkpoint's response template: ``formats/hf.py``) parse with that template and stop the
  server at startup when the tokenizer has none.

The markers are read as text, so ``adjust_request`` asks vLLM to keep special tokens in
the text whenever calls are to be parsed (vLLM's hermes does the same).

End of stream: the parsers declare ``engine_based_streaming``, which in vLLM 0.33 means
the serving layer passes only the delta (it stops re-joining ``current_text``) and calls
``finish_streaming()`` after the last delta; that flushes text held back as a possible
marker and closes a call cut off by ``max_tokens``. Older vLLM never calls it, so there
that tail is not flushed (vLLM's own parsers behaved the same).

``tool_choice: "none"``: nothing is parsed; the text passes through as content, as vLLM's
own non-engine parsers do (vLLM's engine parsers drop call markup instead).

Reasoning: vLLM runs its own ``--reasoning-parser`` first. That parser reads the
request's thinking switches (``chat_template_kwargs``, in the API server and again in the
engine core, where structured output waits for the end of reasoning by token id) and the
rendered prompt, and hands the tool parser the text after reasoning, or all of it when the
prompt left reasoning closed (thinking off). So the tool phase always starts outside
reasoning, whatever the request said; there is no start state left for the request to
decide here. What is left is reasoning markup the model writes after that point (Gemma 4's
``<|channel>thought ...<channel|>`` with thinking off, GLM's interleaved ``<think>``
between calls): vLLM's engine tool parsers of ``TOOL_PHASE_REASONING``'s formats read it as
reasoning while streaming, GLM's only while the request's thinking switch is not off, and
so does this adapter (``tool_phase_reasoning``), with streamcall's reasoning parser of that
format in front of the tool parser, started closed and opening again at each start marker.
The switch is read from the request (``thinking_requested``); a server's
``--default-chat-template-kwargs`` does not reach a plugin tool parser in vLLM 0.33 (only
vLLM's engine adapters are built with them). vLLM sets ``skip_reasoning_parsing`` when no
reasoning parser is configured; the markup is then content, as in vLLM. The non-streaming
path needs none of this: vLLM's reasoning parser strips reasoning from the whole output
first.

State per request: one streamcall parser and the two lists above.
"""

from __future__ import annotations

import importlib
import inspect
import secrets
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from streamcall.detect import hf_tool_parser
from streamcall.formats.hf import TEMPLATE_FORMATS
from streamcall.formats.registry import formats
from streamcall.integrations.delta import (
    PREFIX,
    DeltaAdapter,
    response_template_of,
    route_tokenizer,
    tools_as_dicts,
)
from streamcall.reasoning import ReasoningParser, reasoning_spec
from streamcall.reasoning._engine import MarkerReasoningParser
from streamcall.reasoning.switches import SWITCHES, thinking_requested

__all__ = [
    "PREFIX",
    "TOOL_PHASE_REASONING",
    "DeltaAdapter",
    "register",
    "response_template_of",
    "route_tokenizer",
    "tool_phase_reasoning",
    "tools_as_dicts",
]

#: tool formats whose vLLM 0.33 parser (a ``vllm/parser`` engine) opens reasoning on the
#: format's start marker in content: (the streamcall reasoning format that reads it,
#: whether vLLM does so only while the request's thinking switch is not off)
TOOL_PHASE_REASONING: dict[str, tuple[str, bool]] = {
    "gemma4": ("gemma4", False),
    "glm45": ("glm45", True),
    "glm47": ("glm47", True),
}


def tool_phase_reasoning(fmt: str, request: Any = None) -> ReasoningParser | None:
    """The reasoning parser to run in front of ``fmt``'s tool parser in vLLM's tool phase,
    or None. ``request`` is vLLM's request object (or a dict) with the thinking switches."""
    entry = TOOL_PHASE_REASONING.get(fmt)
    if entry is None:
        return None
    name, switchable = entry
    spec = reasoning_spec(name)
    assert spec is not None
    if switchable:
        switches = {
            "chat_template_kwargs": _member(request, "chat_template_kwargs") or {},
            "reasoning_effort": _member(request, "reasoning_effort"),
        }
        if thinking_requested(switches, SWITCHES.get(name)) is False:
            return None
    return MarkerReasoningParser(replace(spec, reopen=True), prompt_opened=False)


def _member(request: Any, name: str) -> Any:
    if isinstance(request, dict):
        return request.get(name)
    return getattr(request, name, None)


# --- vLLM wiring (lazy) ------------------------------------------------------------------

_PARSER_MODULES = (
    "vllm.tool_parsers.abstract_tool_parser",  # 0.12 and later
    "vllm.entrypoints.openai.tool_parsers.abstract_tool_parser",
)
_PROTOCOL_MODULES = (
    "vllm.entrypoints.generate.base.protocol",  # 0.33
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
    # vLLM 0.33 builds parsers as cls(tokenizer, tools); earlier ones as cls(tokenizer)
    base_takes_tools = "tools" in inspect.signature(tool_parser_cls.__init__).parameters
    # vLLM 0.33 (engine-based streaming) also says whether a reasoning parser runs
    reads_skip_flag = hasattr(tool_parser_cls, "engine_based_streaming")
    reasoning_field = (
        "reasoning" if "reasoning" in getattr(delta_message, "model_fields", {}) else None
    ) or "reasoning_content"

    def to_delta_message(shaped: dict[str, Any] | None) -> Any:
        """Only the members that are set: vLLM serialises with ``exclude_unset``."""
        if shaped is None:
            return None
        fields: dict[str, Any] = {}
        if "reasoning" in shaped:
            fields[reasoning_field] = shaped["reasoning"]
        if "content" in shaped:
            fields["content"] = shaped["content"]
        if "tool_calls" in shaped:
            fields["tool_calls"] = [
                delta_tool_call(
                    **{k: v for k, v in c.items() if k != "function"},
                    function=delta_function_call(**c["function"]),
                )
                for c in shaped["tool_calls"]
            ]
        return delta_message(**fields)

    class StreamcallToolParser(tool_parser_cls):  # type: ignore[misc, valid-type]
        """A vLLM tool parser backed by streamcall; ``format_name`` None routes by model."""

        format_name: str | None = None
        engine_based_streaming = True
        #: set by vLLM 0.33 when no ``--reasoning-parser`` is configured
        skip_reasoning_parsing = False

        def __init__(self, tokenizer: Any, tools: Any = None, *args: Any, **kwargs: Any) -> None:
            if base_takes_tools:
                super().__init__(tokenizer, tools)
            else:
                super().__init__(tokenizer)
            #: the tokenizer's response template, read by the routing parser ``streamcall``
            #: and by ``streamcall_hf`` and ``streamcall_beam``, which need one
            reads_template = self.format_name is None or self.format_name in TEMPLATE_FORMATS
            self.streamcall_template = response_template_of(tokenizer) if reads_template else None
            if self.format_name in TEMPLATE_FORMATS:
                if self.streamcall_template is None:
                    raise ValueError(
                        f"{PREFIX}{self.format_name} reads the checkpoint's response template, "
                        f"and the tokenizer of {getattr(tokenizer, 'name_or_path', '?')!r} has "
                        "none (no response_template in its tokenizer_config.json)"
                    )
                self.streamcall_format = "hf"
                hf_tool_parser(self.streamcall_template)  # fails at startup if hf cannot run
            elif self.format_name is not None:
                self.streamcall_format = self.format_name
            elif self.streamcall_template is not None:
                self.streamcall_format = "hf"
                hf_tool_parser(self.streamcall_template)  # fails at startup if hf cannot run
            else:
                self.streamcall_format = route_tokenizer(tokenizer)
            self._tools = tools_as_dicts(tools)
            self._adapter: DeltaAdapter | None = None

        def _new_adapter(self, request: Any, *, streaming: bool) -> DeltaAdapter:
            tools = tools_as_dicts(getattr(request, "tools", None)) or self._tools
            prefix = f"call_{secrets.token_hex(6)}_"  # unique across requests, as vLLM's ids
            reasoning = None
            if streaming and reads_skip_flag and not self.skip_reasoning_parsing:
                reasoning = tool_phase_reasoning(self.streamcall_format, request)
            return DeltaAdapter(
                self.streamcall_format,
                tools=tools,
                id_prefix=prefix,
                reasoning=reasoning,
                template=self.streamcall_template,
            )

        def _sync(self, adapter: DeltaAdapter) -> None:
            # vLLM's serving layer reads these after the last delta
            self.prev_tool_call_arr = adapter.prev_tool_call_arr
            self.streamed_args_for_tool = adapter.streamed_args_for_tool
            self.current_tool_id = adapter.current_tool_id

        def adjust_request(self, request: Any) -> Any:
            request = super().adjust_request(request)
            if getattr(request, "tools", None) and getattr(request, "tool_choice", None) != "none":
                # markers are special tokens for several models; vLLM would strip them
                request.skip_special_tokens = False
            return request

        def extract_tool_calls(self, model_output: str, request: Any) -> Any:
            if getattr(request, "tool_choice", None) == "none":
                return extracted(tools_called=False, tool_calls=[], content=model_output)
            result = self._new_adapter(request, streaming=False).extract(model_output)
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
            if getattr(request, "tool_choice", None) == "none":
                return delta_message(content=delta_text) if delta_text else None
            if self._adapter is None:
                self._adapter = self._new_adapter(request, streaming=True)
            adapter = self._adapter
            shaped = adapter.delta(delta_text)
            self._sync(adapter)
            return to_delta_message(shaped)

        def finish_streaming(self) -> Any:
            """vLLM 0.33 calls this once after the last delta (``engine_based_streaming``)."""
            adapter = self._adapter
            if adapter is None:
                return None
            shaped = adapter.finish()
            self._sync(adapter)
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
    wanted = list(names) if names is not None else [*formats(), *TEMPLATE_FORMATS]
    manager.register_module(name="streamcall", module=base)
    _registered.append("streamcall")
    for fmt in wanted:
        cls = type(f"Streamcall_{fmt}_ToolParser", (base,), {"format_name": fmt})
        manager.register_module(name=f"{PREFIX}{fmt}", module=cls)
        _registered.append(f"{PREFIX}{fmt}")
    return list(_registered)
