"""Format registry, model-id routing, and the one-shot API.

Every module in ``streamcall.formats`` whose name does not start with ``_`` and which
defines ``FORMATS`` (a tuple of ``ToolParser`` subclasses) is registered under each
class's ``names``. ``parse_tool_calls`` is the streaming parser run to the end; there is
no second implementation that could disagree with it.

Routing (``format_for_model``) follows vLLM's Rust frontend: the first pattern that is a
case-insensitive substring of the model id wins, so order matters (``qwen3-coder`` before
``qwen``, ``deepseek-v3.2`` before ``deepseek-v3``; ``streamcall.routing`` reads the table). Unlike that table, a model's own name
wins over the base family it was fine-tuned from (``Qwen-xLAM-1.5B-fc`` is ``xlam``, not
``qwen3_xml``; see ``ROUTES``). Patterns are chosen so that older Granite ids
(``granite-3.1-8b-instruct``) never reach ``granite4``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from streamcall.aliases import tool_alias
from streamcall.events import Event, Reasoning, Text, ToolCallArgs, ToolCallEnd, ToolCallStart
from streamcall.formats.classes import format_classes, lookup
from streamcall.formats.engines.base import ToolParser, Tools
from streamcall.routing import route

__all__ = [
    "ROUTES",
    "Parsed",
    "ToolCall",
    "ToolParser",
    "format_for_model",
    "formats",
    "parse_tool_calls",
    "parser_class",
    "tool_parser",
]

# (substring, format), in priority order: two tiers.
#
# First the names of model families that are not base families for others: a fine-tune
# written with its base model's name (``Hermes-2-Pro-Mistral-7B``, ``Llama-xLAM-2-8b``,
# ``ToolACE-2-Llama-3.1-8B``, ``DeepSeek-R1-Distill-Qwen-7B``) writes the fine-tune's
# format, so its name must win over the base's. Then the base families that other models
# are fine-tuned from and keep the name of (Mistral, Qwen, Llama, DeepSeek V3/V4, GLM,
# Gemma 4, Granite, Phi-4-mini), specific before general within a family (``qwen3-coder``
# before ``qwen``). Within each tier the order is that of the model-id table of vLLM's Rust
# frontend (https://github.com/vllm-project/vllm/tree/main/rust), then the families it does
# not list. ``tests/formats/test_routing.py`` checks that no pattern is shadowed by an
# earlier one; docs/formats.md lists the patterns of every format.
ROUTES: tuple[tuple[str, str], ...] = (
    # -- names that win over a base family's ---------------------------------------------
    ("hermes", "hermes"),
    ("hy3", "hy_v3"),
    ("hy_v3", "hy_v3"),
    ("internlm2", "internlm"),
    ("deepseek-r1", "deepseek_v3"),  # the R1 distills of Qwen and Llama use R1's template
    ("k2-horizon", "k2_horizon"),  # (before kimi-k2, though neither catches the other)
    ("k2-v3", "k2_horizon"),
    ("kimi-k2", "kimi_k2"),
    ("kimi-k3", "kimi_k3"),
    ("minimax-m1", "minimax"),  # (not in the Rust table) M1 writes JSON lines
    ("minimax-m3", "minimax_m3"),
    ("mm-m3", "minimax_m3"),
    ("minimax", "minimax_m2"),
    ("mm-m2", "minimax_m2"),
    ("seed-oss", "seed_oss"),
    ("seedoss", "seed_oss"),
    # Beyond vLLM's Rust table: families whose format is unambiguous, so that routing by
    # model id works for them too.
    ("gpt-oss", "openai"),
    ("muse-spark", "muse"),  # never bare "muse" (MuseTalk, MusePose, muse-tts ...)
    ("musespark", "muse"),
    ("muse-glimmer", "muse_glimmer"),
    ("functiongemma", "functiongemma"),
    ("lfm2", "lfm2"),
    ("olmo-3", "olmo3"),
    ("granite-20b-functioncalling", "granite-20b-fc"),
    ("jamba", "jamba"),
    ("apriel-1.5", "jamba"),  # Apriel 1.5 writes Jamba's <tool_calls>[...] block
    ("xlam", "xlam"),
    ("ernie-4.5", "ernie45"),
    ("longcat", "longcat"),
    ("hunyuan-a13b", "hunyuan_a13b"),
    ("apertus", "apertus"),
    ("gigachat3.5", "gigachat35"),  # GCML; GigaChat 3 / 3.1 keep their JSON calls
    ("gigachat3", "gigachat3"),
    ("step-3.5", "step3p5"),
    ("step3p5", "step3p5"),
    ("step-3", "step3"),
    ("step3", "step3"),
    ("step-5", "step5"),
    ("step5", "step5"),
    ("dots.llm", "dots"),  # [unverified which generation writes the wrapper]; not dots.ocr
    ("mimo", "mimo"),
    ("minicpm5", "minicpm5"),
    ("toolace", "pythonic"),
    ("poolside", "poolside_v1"),  # as the reasoning routing has it
    # NVIDIA's Llama-Nemotron and Nemotron Nano v2 write <TOOLCALL>[...]; they must win
    # over the Llama 3.x patterns (Nemotron 3, Qwen3's XML calls, is not among them).
    ("llama-3.3-nemotron", "nemotron_toolcall"),
    ("llama-3_3-nemotron", "nemotron_toolcall"),
    ("llama-3.1-nemotron", "nemotron_toolcall"),
    ("llama-3_1-nemotron", "nemotron_toolcall"),
    ("nemotron-nano-9b-v2", "nemotron_toolcall"),
    ("nemotron-nano-12b-v2", "nemotron_toolcall"),
    ("functionary-medium-v3.1", "functionary_v3_1"),
    ("functionary-small-v3.1", "functionary_v3_1"),
    ("functionary-medium-v3.2", "functionary_v3_2"),
    ("functionary-small-v3.2", "functionary_v3_2"),
    ("plamo-3", "plamo3"),
    ("solar-open-", "solar_open"),  # not solar-open2 (another syntax)
    ("inkling", "inkling"),
    ("ling-3", "ling3"),
    ("ring-3", "ling3"),
    ("iquest-q1", "iquest_q1"),  # not iquest-coder: IQuest-Coder V1/V2 write other tags
    ("iquest_q1", "iquest_q1"),
    ("telechat4", "telechat4"),
    ("xingchen4", "xingchen4"),
    ("xing4", "xingchen4"),
    ("zaya1", "zaya"),  # Zyphra ZAYA1 (not Zyphra's Zamba, which has no tool format)
    ("ricursive", "ripple"),  # never bare "ripple" [model ids unverified: the vendor's name]
    # issue 46's new names
    ("solar-open2", "solar_open2"),  # Solar Open 2 (solar-open- is Solar Open 1)
    ("berrylm", "berrylm"),
    ("kolibri-1", "kolibri1"),
    ("kolibri1", "kolibri1"),
    ("command-r-plus", "command_r_plus"),  # not command-r7b (Command R7B's START_ACTION)
    # -- base families ----------------------------------------------------------------------
    ("mistral-", "mistral"),
    ("mixtral-", "mistral"),
    # Mistral's own names for Mistral 3 and its reasoning and coding models write the same
    # [TOOL_CALLS] (pre-v11 or v11+, both read by `mistral`): Magistral Small/Medium,
    # Ministral (8B 2410, Ministral 3 3B/8B/14B), Devstral (Small 2505/2507, Devstral 2)
    ("magistral", "mistral"),
    ("ministral", "mistral"),
    ("devstral", "mistral"),
    ("qwen3-coder", "qwen3_coder"),
    ("qwen2.5-coder", "qwen3_coder"),
    ("qwen3.5", "qwen3_coder"),
    ("qwen", "qwen3_xml"),
    # Llama 4's own prompt format (and vLLM's and SGLang's template) has the model write
    # pythonic calls; its JSON template a bare JSON call: `llama4_pythonic` reads both,
    # by the output's first non-blank character (formats/pythonic.py)
    ("llama-4", "llama4_pythonic"),
    ("llama-3.2", "llama3_json"),
    ("llama-3.1", "llama3_json"),
    ("deepseek-v4.1", "deepseek_v41"),
    ("deepseek_v4.1", "deepseek_v41"),
    ("deepseek-v4", "deepseek_v4"),
    ("deepseek_v4", "deepseek_v4"),
    ("deepseek-v3.2", "deepseek_v32"),
    ("deepseek-v3.1", "deepseek_v31"),
    ("deepseek-v3", "deepseek_v3"),
    ("glm-5", "glm47"),
    ("glm-4.7", "glm47"),
    ("glm-4.6", "glm45"),
    ("glm-4.5", "glm45"),
    ("gemma4", "gemma4"),
    ("gemma-4", "gemma4"),
    ("granite-4.2", "granite_toolcall_parser"),  # Qwen3's XML calls, vLLM 0.34's name
    ("granite-4", "granite4"),
    ("llama-3.3", "llama3_json"),
    ("granite-3", "granite"),
    ("phi-4-mini", "phi4_mini_json"),
)


def _load() -> dict[str, type[ToolParser]]:
    return format_classes()


def formats() -> list[str]:
    """The registered format names, sorted."""
    return sorted(_load())


def parser_class(name: str) -> type[ToolParser]:
    if name == "auto":  # not a format: it picks one from the text (formats/auto.py)
        from streamcall.formats.auto import AutoParser

        return AutoParser
    return lookup(name)


def format_for_model(model_id: str) -> str | None:
    """Route a model id to a format name (ordered, case-insensitive substring table)."""
    return route(ROUTES, model_id)


def tool_parser(
    name: str | None = None,
    *,
    model: str | None = None,
    tools: Tools | None = None,
    id_prefix: str = "call_",
    template: Any = None,
    generation_prompt: str | None = None,
) -> ToolParser:
    """A fresh streaming parser for a format, given by name or routed from a model id.

    ``template`` is the response template of the ``hf`` format and of ``beam``, which reads
    one the same way (``formats/hf.py``); they need one, and no other format takes it.
    ``generation_prompt`` is the text the prompt ends with, where the output starts
    (``ToolParser.start_after``: Harmony's ``<|start|>assistant`` leaves it inside a
    header); None, or a prompt that ends before any markup, starts it before one."""
    parser = _tool_parser(name, model, tools, id_prefix, template)
    if generation_prompt:
        parser.start_after(generation_prompt)
    return parser


def _tool_parser(
    name: str | None, model: str | None, tools: Tools | None, id_prefix: str, template: Any
) -> ToolParser:
    if name is not None:
        name = tool_alias(name)
    if name in ("hf", "beam"):
        from streamcall.formats.hf import HfToolParser

        return HfToolParser(tools, id_prefix=id_prefix, template=template, name=name)
    if template is not None:
        raise ValueError(f"template= is for the hf and beam formats only, not {name or model!r}")
    if name is None:
        if model is None:
            raise ValueError("tool_parser needs a format name or a model id")
        name = format_for_model(model)
        if name is None:
            raise ValueError(f"no tool-call format is known for model {model!r}")
    return parser_class(name)(tools, id_prefix=id_prefix)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One finished call."""

    index: int
    id: str
    name: str
    arguments: str
    incomplete: bool = False

    @property
    def args(self) -> dict[str, Any]:
        value = json.loads(self.arguments)
        if not isinstance(value, dict):  # pragma: no cover - parsers guarantee objects
            raise ValueError(f"arguments of call {self.index} are not a JSON object")
        return value


@dataclass(frozen=True, slots=True)
class Parsed:
    """The whole result: visible text and the calls, in order."""

    content: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    reasoning: str = ""


def collect(events: list[Event]) -> Parsed:
    """Fold a complete event list into a ``Parsed``."""
    text: list[str] = []
    reasoning: list[str] = []
    starts: dict[int, ToolCallStart] = {}
    calls: list[ToolCall] = []
    for ev in events:
        if isinstance(ev, Text):
            text.append(ev.text)
        elif isinstance(ev, ToolCallStart):
            starts[ev.index] = ev
        elif isinstance(ev, ToolCallEnd):
            start = starts[ev.index]
            calls.append(ToolCall(ev.index, start.id, start.name, ev.arguments, ev.incomplete))
        elif isinstance(ev, ToolCallArgs):
            pass
        elif isinstance(ev, Reasoning):
            reasoning.append(ev.text)
    return Parsed("".join(text), calls, "".join(reasoning))


def parse_tool_calls(
    text: str,
    format: str | None = None,
    *,
    model: str | None = None,
    tools: Tools | None = None,
    unknown_calls: str = "keep",
) -> Parsed:
    """One-shot parse: the streaming parser fed the whole text, then finished.

    ``unknown_calls="text"``: a call to a function ``tools`` does not declare is content,
    in the format's own syntax (``streamcall.toolchoice``; no tools: every call is kept).
    """
    from streamcall.toolchoice import restrict

    parser = restrict(tool_parser(format, model=model, tools=tools), tools, None, unknown_calls)
    events = parser.feed(text)
    events.extend(parser.finish())
    return collect(events)
