"""streamcall's parsers as SGLang detectors (``--tool-call-parser streamcall_<format>``,
``--reasoning-parser streamcall_<format>``).

SGLang builds one detector per request and choice, through two registries that are plain
dicts: ``FunctionCallParser.ToolCallParserEnum`` (``sglang/srt/function_call``) and
``ReasoningParser.DetectorMap`` (``sglang/srt/parser/reasoning_parser.py``). Its server
reads its ``--tool-call-parser`` and ``--reasoning-parser`` choices from those dicts once
their modules are imported, and loads the entry points of the group
``sglang.srt.plugins`` (``load_plugins()``, run by ``sglang serve``, ``launch_server``,
``Engine`` and its subprocesses) before it parses its arguments. The package declares
``streamcall = streamcall.integrations.streamcall_sglang_plugin:register``, so installing
streamcall beside SGLang is all a user does.

The interfaces, as SGLang 0.5.23 calls them::

    tool:      cls(tokenizer=...)                       # tokenizer if the signature has it
               parse_streaming_increment(new_text, tools) -> StreamingParseResult
               finish(tools) -> StreamingParseResult    # once, on the terminal delta
               has_tool_call(text) -> bool               # gates the one-shot path
               detect_and_parse(text, tools) -> StreamingParseResult
    reasoning: cls(stream_reasoning=, force_reasoning=, continue_final_message=,
                   previous_content=, force_nonempty_content=)
               parse_streaming_increment(new_text) / detect_and_parse(text) / finish()
               -> StreamingParseResult(normal_text, reasoning_text)

Two layers, as in ``integrations/vllm.py``:

- Pure (no SGLang): ``ToolStream`` keeps one ``DeltaAdapter`` (``integrations/delta.py``,
  shared with the vLLM plugin) per request and turns its deltas into SGLang's
  ``(normal_text, [(tool_index, name, parameters)])``; the adapter's
  ``prev_tool_call_arr``, ``streamed_args_for_tool``, ``current_tool_id`` and
  ``incomplete_tool_call_indices`` are what SGLang's serving code reads after the last
  delta (``_check_for_unstreamed_tool_args`` sends the difference between the first two;
  the last keeps the finish reason ``stop`` for a call that was cut off), and they are
  kept equal to what was streamed. ``ReasoningStream`` does the same for a reasoning
  parser. Each delta costs work proportional to its length, however many tokens it holds.
- ``register()`` (imports SGLang): one ``BaseFormatDetector`` subclass per tool format and
  one ``BaseReasoningFormatDetector`` subclass per reasoning format, registered as
  ``streamcall_<name>``, plus ``streamcall_<SGLang's name>`` for each of SGLang's spellings
  (``streamcall.aliases``: ``streamcall_deepseekv3``, ``streamcall_qwen25``, ...), and the
  tool parser ``streamcall``, which parses with the tokenizer's response template when it
  has one, else with the format routed from the tokenizer's model id, else sniffs the
  format from the output (``auto``); it never fails a request.

Request switches: SGLang decides the tool parser's inputs itself. ``tool_choice: "none"``
or no tools: it never builds the detector (``parses_without_tools`` is False, as for its
own). ``tool_choice`` required or a named function: SGLang constrains the output; a
structural tag is given by SGLang's own detector of the same wire where there is one
(``structure_info``, ``get_structural_tag_name``), and where there is none
``supports_structural_tag`` is False, so SGLang falls back to its JSON-schema constraint
and its own JSON-array parser. The thinking switches reach the reasoning detector as
``force_reasoning``, which SGLang computes from the request and the chat template (or,
without a template rule, from ``reasoning_default``: set from streamcall's own switch
table, ``reasoning/switches.py``); it is the parser's ``prompt_opened``. Formats with a
parser of their own rather than markers (Harmony, identity, Muse) take their start state
from streamcall, not from ``force_reasoning``.

Special tokens: SGLang keeps them in the text for its own reasoning parsers whose markers
are special tokens; ``register`` adds a hook (``HookRegistry``, applied by
``load_plugins()``) that keeps them whenever the reasoning parser is streamcall's. With
tools in the request SGLang keeps them anyway.

Tool call ids are SGLang's (it assigns them; its Kimi ids only for its own ``kimi_k2``
and ``kimi_k3`` names).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from streamcall.aliases import SGLANG_REASONING, SGLANG_TOOL, reasoning_alias, tool_alias
from streamcall.events import Event, Reasoning, Text
from streamcall.formats.registry import formats
from streamcall.integrations.delta import (
    PREFIX,
    DeltaAdapter,
    response_template_of,
    tools_as_dicts,
)
from streamcall.reasoning import reasoning_formats, reasoning_parser, reasoning_spec
from streamcall.reasoning.switches import SWITCHES

__all__ = [
    "ReasoningStream",
    "ToolStream",
    "reasoning_default",
    "register",
    "routed_format",
    "same_wire_sglang_name",
]

logger = logging.getLogger(__name__)

#: (tool_index, name or None, parameters text): one of SGLang's ``ToolCallItem``
CallItem = tuple[int, str | None, str]


def routed_format(tokenizer: Any) -> tuple[str, dict[str, Any] | None]:
    """The format and template the routing parser ``streamcall`` uses: the tokenizer's
    response template (``hf``), else the format its model id routes to, else ``auto``."""
    try:
        template = response_template_of(tokenizer)
    except ValueError as exc:
        logger.warning("streamcall: %s; parsing without it", exc)
        template = None
    if template is not None:
        return "hf", template
    from streamcall.integrations.delta import route_tokenizer

    try:
        return route_tokenizer(tokenizer), None
    except ValueError:
        return "auto", None


class ToolStream:
    """One request's tool parsing in SGLang's terms; no SGLang needed.

    The parser is made at the first call, with the tools SGLang passes then (the
    request's). ``increment`` and ``finish`` give ``(normal_text, calls)``; ``extract``
    parses a whole output at once."""

    def __init__(self, format: str, *, template: dict[str, Any] | None = None) -> None:
        self.format = format
        self.template = template
        self.adapter: DeltaAdapter | None = None

    def _adapter(self, tools: Any) -> DeltaAdapter:
        if self.adapter is None:
            self.adapter = DeltaAdapter(
                self.format, tools=tools_as_dicts(tools), template=self.template
            )
        return self.adapter

    def increment(self, text: str, tools: Any) -> tuple[str, list[CallItem]]:
        return _items(self._adapter(tools).delta(text))

    def finish(self, tools: Any) -> tuple[str, list[CallItem]]:
        return _items(self._adapter(tools).finish())

    def extract(self, text: str, tools: Any) -> tuple[str, list[CallItem]]:
        """A whole output: its content, and each call whole (``tool_index`` its ordinal)."""
        adapter = DeltaAdapter(self.format, tools=tools_as_dicts(tools), template=self.template)
        result = adapter.extract(text)
        calls: list[CallItem] = [
            (i, c["function"]["name"], c["function"]["arguments"])
            for i, c in enumerate(result["tool_calls"])
        ]
        return result["content"] or "", calls

    def has_call(self, text: str) -> bool:
        """Whether a whole output holds a call (SGLang asks before ``extract``)."""
        adapter = DeltaAdapter(self.format, template=self.template)
        return bool(adapter.extract(text)["tool_calls"])


def _items(shaped: dict[str, Any] | None) -> tuple[str, list[CallItem]]:
    if shaped is None:
        return "", []
    calls: list[CallItem] = []
    for call in shaped.get("tool_calls", ()):
        function = call["function"]
        name = function.get("name") if "id" in call else None
        calls.append((call["index"], name, function.get("arguments", "")))
    return shaped.get("content", ""), calls


class ReasoningStream:
    """One request's reasoning parsing in SGLang's terms: ``(reasoning, normal_text)``.

    ``stream_reasoning=False`` (SGLang's request switch) holds reasoning back until the
    answer starts or the stream ends, then sends it whole."""

    def __init__(
        self, format: str, *, prompt_opened: bool | None = None, stream_reasoning: bool = True
    ) -> None:
        self.parser = reasoning_parser(format, prompt_opened=prompt_opened)
        self.stream_reasoning = stream_reasoning
        self._held: list[str] = []

    def increment(self, text: str) -> tuple[str, str]:
        return self._split(self.parser.feed(text), end=False)

    def finish(self) -> tuple[str, str]:
        return self._split(self.parser.finish(), end=True)

    def extract(self, text: str) -> tuple[str, str]:
        events = self.parser.feed(text)
        events.extend(self.parser.finish())
        return self._split(events, end=True)

    def _split(self, events: list[Event], *, end: bool) -> tuple[str, str]:
        reasoning: list[str] = []
        text: list[str] = []
        for ev in events:
            if isinstance(ev, Reasoning):
                reasoning.append(ev.text)
            elif isinstance(ev, Text):
                text.append(ev.text)
        if self.stream_reasoning:
            return "".join(reasoning), "".join(text)
        self._held.extend(reasoning)
        if not (text or end):
            return "", ""
        held, self._held = "".join(self._held), []
        return held, "".join(text)


def reasoning_default(fmt: str) -> str | None:
    """SGLang's ``reasoning_default`` mode that gives, for a request, the start state
    streamcall's switch table (``reasoning/switches.py``) gives: SGLang turns it into
    ``force_reasoning`` when the chat template says nothing it recognises."""
    spec = reasoning_spec(fmt)
    if spec is None:
        return None
    switch = SWITCHES.get(fmt)
    if switch is None or not switch.on_opens:
        return "always" if spec.opened else None
    if switch.keys and switch.keys[0] in ("enable_thinking", "thinking"):
        key = switch.keys[0]
        return key if spec.opened else f"explicit_{key}"
    return "always" if spec.opened else None


def same_wire_sglang_name(fmt: str) -> str | None:
    """An SGLang tool parser name whose detector reads the same wire as ``fmt`` (its
    structural tags then constrain output that ``fmt`` parses), or None: the one of the
    same name first (SGLang's ``hermes``, not its ``qwen``, for ``hermes``)."""
    if SGLANG_TOOL.get(fmt) == fmt:
        return fmt
    for name, target in SGLANG_TOOL.items():
        if target == fmt and target not in ("hf", "beam"):
            return name
    return None


# --- SGLang wiring (lazy) -----------------------------------------------------------------

_registered: list[str] = []


def _tool_base() -> type:
    from sglang.srt.function_call.base_format_detector import BaseFormatDetector
    from sglang.srt.function_call.core_types import StreamingParseResult, ToolCallItem
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    own = dict(FunctionCallParser.ToolCallParserEnum)  # SGLang's detectors, before ours

    def result(normal_text: str, calls: list[CallItem]) -> Any:
        return StreamingParseResult(
            normal_text=normal_text,
            calls=[ToolCallItem(tool_index=i, name=n, parameters=p) for i, n, p in calls],
        )

    class StreamcallDetector(BaseFormatDetector):  # type: ignore[misc]
        """An SGLang detector backed by streamcall; ``format_name`` None routes."""

        format_name: str | None = None

        def __init__(self, tokenizer: Any = None) -> None:
            super().__init__()
            if self.format_name is None:
                fmt, template = routed_format(tokenizer)
            else:
                fmt, template = self.format_name, None
            self.streamcall_format = fmt
            self._stream = ToolStream(fmt, template=template)
            self._twin: Any = None

        def _sync(self) -> None:
            adapter = self._stream.adapter
            if adapter is not None:
                self.prev_tool_call_arr = adapter.prev_tool_call_arr
                self.streamed_args_for_tool = adapter.streamed_args_for_tool
                self.current_tool_id = adapter.current_tool_id
                self.incomplete_tool_call_indices = adapter.incomplete_tool_call_indices

        def detect_and_parse(self, text: str, tools: Any) -> Any:
            return result(*self._stream.extract(text, tools))

        def parse_streaming_increment(self, new_text: str, tools: Any) -> Any:
            out = result(*self._stream.increment(new_text, tools))
            self._sync()
            return out

        def finish(self, tools: Any) -> Any:
            out = result(*self._stream.finish(tools))
            self._sync()
            return out

        def has_tool_call(self, text: str) -> bool:
            return self._stream.has_call(text)

        # structural tags: from SGLang's detector of the same wire, or refused
        def _same_wire(self) -> Any:
            if self._twin is None:
                name = same_wire_sglang_name(self.streamcall_format)
                cls = own.get(name) if name is not None else None
                try:
                    self._twin = cls() if cls is not None else False
                except Exception:  # a detector that needs what we cannot give it
                    self._twin = False
            return self._twin or None

        def supports_structural_tag(self) -> bool:
            twin = self._same_wire()
            return bool(twin is not None and twin.supports_structural_tag())

        def structure_info(self) -> Any:
            twin = self._same_wire()
            if twin is None or not twin.supports_structural_tag():
                raise NotImplementedError(
                    f"{PREFIX}{self.streamcall_format} gives no structural tag (SGLang has "
                    "no detector of the same wire); constrained tool_choice uses SGLang's "
                    "JSON-schema constraint instead"
                )
            return twin.structure_info()

        def get_structural_tag_name(self) -> str | None:
            twin = self._same_wire()
            return twin.get_structural_tag_name() if twin is not None else None

    return StreamcallDetector


def _reasoning_base() -> type:
    from sglang.srt.parser.reasoning_parser import (
        BaseReasoningFormatDetector,
        StreamingParseResult,
    )

    class StreamcallReasoningDetector(BaseReasoningFormatDetector):  # type: ignore[misc]
        """An SGLang reasoning detector backed by streamcall's ``format_name``."""

        format_name: str = ""
        #: the start state an SGLang spelling fixes (``qwen3-thinking``), else None
        alias_opened: bool | None = None

        def __init__(
            self,
            stream_reasoning: bool = True,
            force_reasoning: bool | None = None,
            continue_final_message: bool = False,
            previous_content: str = "",
            force_nonempty_content: bool = False,
            **_: Any,
        ) -> None:
            fmt = self.format_name
            spec = reasoning_spec(fmt)
            start = spec.start[0] if spec is not None else "<think>"
            end = spec.end[0] if spec is not None else "</think>"
            super().__init__(
                start,
                end,
                force_reasoning=bool(force_reasoning),
                stream_reasoning=stream_reasoning,
                reasoning_default=reasoning_default(fmt),
            )
            opened = self.alias_opened
            if opened is None and spec is not None:
                opened = force_reasoning  # SGLang's reading of the request's switches
            continued = previous_content if continue_final_message else ""
            if spec is not None and any(m in continued for m in spec.start):
                opened = not any(m in continued for m in spec.end)
            self._stream = ReasoningStream(
                fmt, prompt_opened=opened, stream_reasoning=stream_reasoning
            )

        def detect_and_parse(self, text: str) -> Any:
            reasoning, normal = self._stream.extract(text)
            return StreamingParseResult(normal_text=normal, reasoning_text=reasoning)

        def parse_streaming_increment(self, new_text: str) -> Any:
            reasoning, normal = self._stream.increment(new_text)
            return StreamingParseResult(normal_text=normal, reasoning_text=reasoning)

        def finish(self) -> Any:
            reasoning, normal = self._stream.finish()
            return StreamingParseResult(normal_text=normal, reasoning_text=reasoning)

    return StreamcallReasoningDetector


def register(
    tool_names: Sequence[str] | None = None, reasoning_names: Sequence[str] | None = None
) -> list[str]:
    """Register streamcall's detectors in SGLang's two registries (the module header).

    Returns the registered names (tool names first). Raises ``ImportError`` when SGLang is
    not installed. Calling it again registers nothing new."""
    if _registered:
        return list(_registered)
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    tool_base = _tool_base()
    reasoning_base = _reasoning_base()
    tools = FunctionCallParser.ToolCallParserEnum
    reasonings = ReasoningParser.DetectorMap

    tool_wanted = list(tool_names) if tool_names is not None else formats()
    tool_wanted += [n for n in SGLANG_TOOL if tool_names is None and n not in tool_wanted]
    added: list[str] = []
    tools["streamcall"] = tool_base
    added.append("streamcall")
    for name in tool_wanted:
        fmt = tool_alias(name)
        if fmt in ("hf", "beam") or f"{PREFIX}{name}" in tools:
            continue  # template formats: ``streamcall`` reads the tokenizer's template
        cls = type(f"Streamcall_{fmt}_Detector", (tool_base,), {"format_name": fmt})
        tools[f"{PREFIX}{name}"] = cls
        added.append(f"{PREFIX}{name}")

    own_parser = ("hf", "beam")
    wanted = list(reasoning_names) if reasoning_names is not None else reasoning_formats()
    wanted += [n for n in SGLANG_REASONING if reasoning_names is None and n not in wanted]
    for name in wanted:
        fmt, opened = reasoning_alias(name)
        key = f"{PREFIX}{name}".lower()
        if fmt in own_parser or key in reasonings:
            continue
        cls = type(
            f"Streamcall_{fmt}_ReasoningDetector",
            (reasoning_base,),
            {"format_name": fmt, "alias_opened": opened},
        )
        reasonings[key] = cls
        added.append(key)
    _keep_marker_tokens()
    _registered.extend(added)
    return list(_registered)


def _keep_special_tokens(result: Any, serving: Any, request: Any, *_: Any, **__: Any) -> None:
    """After SGLang's ``_patch_reasoning_skip_special_tokens``: with a streamcall reasoning
    parser, the request keeps special tokens in the text, as SGLang does for its own
    parsers whose markers are special tokens (a marker stripped by the detokenizer cannot
    be parsed)."""
    if str(getattr(serving, "reasoning_parser", None) or "").startswith(PREFIX):
        request.skip_special_tokens = False


def _keep_marker_tokens() -> None:
    try:
        from sglang.srt.plugins.hook_registry import HookRegistry, HookType
    except ImportError:  # an SGLang without hooks: its own rules apply
        return
    HookRegistry.register(
        "sglang.srt.entrypoints.openai.serving_chat.OpenAIServingChat"
        "._patch_reasoning_skip_special_tokens",
        _keep_special_tokens,
        HookType.AFTER,
    )
