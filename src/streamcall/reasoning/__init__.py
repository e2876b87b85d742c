"""Reasoning parsers: model text to ``Reasoning`` and ``Text`` events, for every format.

``reasoning_parser(name, prompt_opened=None)`` makes a fresh parser; ``prompt_opened``
says whether the prompt already opened reasoning (None: the format's usual template).
``reasoning_format_for_model`` routes a model id, the same way ``format_for_model`` does
for tool calls (``streamcall.routing``): the first pattern that is a case-insensitive
substring wins, so order matters (``deepseek-r1`` before ``deepseek``, ``granite-3`` thinking before Granite 4,
which has no reasoning parser), and a model's own name wins over its base family's.
"""

from __future__ import annotations

from typing import Any

from streamcall.aliases import reasoning_alias
from streamcall.reasoning._engine import (
    MarkerReasoningParser,
    ReasoningParser,
    ReasoningSpec,
)
from streamcall.reasoning.cohere import COHERE_FORMATS, CohereReasoningParser
from streamcall.reasoning.harmony import HarmonyReasoningParser
from streamcall.reasoning.inkling import InklingReasoningParser
from streamcall.reasoning.muse import MuseReasoningParser
from streamcall.reasoning.passthrough import AppendThinkParser, IdentityParser
from streamcall.reasoning.specs import SPECS
from streamcall.reasoning.switches import prompt_opened_by
from streamcall.routing import route

__all__ = [
    "REASONING_ROUTES",
    "ReasoningParser",
    "ReasoningSpec",
    "reasoning_format_for_model",
    "reasoning_formats",
    "reasoning_parser",
    "reasoning_spec",
]

_SPECS: dict[str, ReasoningSpec] = {spec.name: spec for spec in SPECS}
#: the formats with a parser of their own rather than a row of the marker table (``SPECS``)
_MUSE_FORMATS = ("muse", "musespark", "musespark1x", "muse_glimmer")
_OWN_PARSER_FORMATS = ("identity", "minimax_m2_append_think", "openai_gptoss", *_MUSE_FORMATS)

# (substring, reasoning format), in priority order: as ``ROUTES`` of the tool formats, the
# names of models that are not base families first (``Holo2-...-Qwen3`` is holo2, the
# DeepSeek-R1 distills of Qwen are deepseek_r1), then the base families (Qwen, DeepSeek
# V3/V4, Granite, Gemma 4, GLM), specific before general within a family.
#
# A model that does not think routes to ``identity`` where its family's pattern would give
# it a format whose output starts inside reasoning (the whole answer would be reasoning):
# Qwen3's instruct variants (``*-Instruct-2507``, Qwen3-VL/Next/Omni ``-Instruct``), whose
# templates open no ``<think>``, unlike the ``-Thinking`` variants' and the hybrids'
# (Qwen3-8B: thinking on unless the request turns it off); Kimi-K2-Instruct and its base
# model, unlike Kimi-K2-Thinking.
REASONING_ROUTES: tuple[tuple[str, str], ...] = (
    # -- names that win over a base family's ---------------------------------------------
    ("gpt-oss", "openai_gptoss"),
    ("gpt_oss", "openai_gptoss"),
    ("muse-spark", "muse"),  # never bare "muse" (MuseTalk, MusePose, ...)
    ("musespark", "muse"),
    ("muse-glimmer", "muse_glimmer"),
    ("deepseek-r1", "deepseek_r1"),
    ("qwq", "deepseek_r1"),
    ("mimo", "mimo"),
    ("magistral", "mistral"),  # [THINK] from 2507 on, plain-text <think> in 2506
    ("ministral*reasoning", "mistral"),  # Ministral 3 3B/8B/14B Reasoning (not Instruct)
    ("seed-oss", "seed_oss"),
    ("seedoss", "seed_oss"),
    ("command-a-reasoning", "cohere_command3"),
    ("command-a-plus", "cohere_command4"),
    ("ernie-4.5", "ernie45"),
    ("hunyuan-a13b", "hunyuan_a13b"),
    ("hy3", "hy_v3"),
    ("hy_v3", "hy_v3"),
    ("k2-horizon", "k2_horizon"),  # (before kimi-k2, though neither catches the other)
    ("k2-v3", "k2_horizon"),
    ("kimi-k2-instruct", "identity"),  # Kimi-K2-Instruct(-0905) does not think
    ("kimi-k2-base", "identity"),
    ("kimi-k2", "kimi_k2"),
    ("kimi-vl-a3b-thinking", "kimi_vl"),  # the Instruct model does not think
    ("kimi-dev", "kimi_vl"),
    ("minimax-m3", "minimax_m3"),
    ("mm-m3", "minimax_m3"),
    ("kimi-k3", "kimi_k3"),
    ("gigachat3.5", "gigachat35"),
    ("minimax-m2", "minimax_m2"),
    ("holo2", "holo2"),
    ("olmo-3", "olmo3"),
    ("step-3.5", "step3p5"),
    ("step3p5", "step3p5"),
    ("step-3", "step3"),
    ("step3", "step3"),
    # Nemotron Nano v2: <think> opened by the template when thinking is on (its default)
    ("nemotron-nano-9b-v2", "deepseek_r1"),
    ("nemotron-nano-12b-v2", "deepseek_r1"),
    ("step-5", "step5"),
    ("step5", "step5"),
    ("iquest-q1", "iquest_q1"),  # not iquest-coder
    ("iquest_q1", "iquest_q1"),
    ("nemotron", "nemotron_v3"),
    ("plamo-3", "plamo3"),
    ("solar-open-", "solar_open"),
    ("inkling", "inkling"),
    ("poolside", "poolside_v1"),
    ("zaya1", "zaya"),
    ("ricursive", "ripple"),  # never bare "ripple"
    ("apertus", "apertus"),
    ("apriel-1.5", "apriel"),
    ("minicpm-v", "minicpmv"),
    ("minicpm-o", "minicpmv"),
    ("ling-3", "ling3"),
    ("ring-3", "ling3"),
    ("telechat4", "telechat4"),
    ("xingchen4", "xingchen4"),
    ("xing4", "xingchen4"),
    # issue 46's new names
    ("solar-open2", "solar_open2"),
    ("berrylm", "berrylm"),
    ("kolibri-1", "kolibri1"),
    ("kolibri1", "kolibri1"),
    # -- base families ----------------------------------------------------------------------
    ("deepseek-v4.1", "deepseek_v41"),
    ("deepseek_v4.1", "deepseek_v41"),
    ("deepseek-v4", "deepseek_v4"),
    ("deepseek_v4", "deepseek_v4"),
    ("deepseek-v3", "deepseek_v3"),
    ("qwen3-coder", "identity"),  # the coder models do not think
    ("qwen3*instruct", "identity"),  # nor do Qwen3's instruct variants
    ("qwen3", "qwen3"),
    ("qwen2.5", "identity"),
    ("granite-4.2", "granite_thinking_parser"),
    ("granite-3.2", "granite"),
    ("granite-3.3", "granite"),
    ("gemma-4", "gemma4"),
    ("gemma4", "gemma4"),
    ("glm-4.5", "glm45"),
    ("glm-4.6", "glm45"),
    ("glm-4.7", "glm45"),
    ("glm-5", "glm45"),
)


def reasoning_formats() -> list[str]:
    """The registered reasoning format names, sorted."""
    return sorted([*_SPECS, *_OWN_PARSER_FORMATS])


def reasoning_spec(name: str) -> ReasoningSpec | None:
    """The marker table row of a format (None for those with a parser of their own)."""
    return _SPECS.get(name)


def reasoning_format_for_model(model_id: str) -> str | None:
    """Route a model id to a reasoning format (ordered, case-insensitive substrings)."""
    return route(REASONING_ROUTES, model_id)


def reasoning_parser(
    name: str,
    *,
    prompt_opened: bool | None = None,
    template: Any = None,
    generation_prompt: str | None = None,
) -> ReasoningParser:
    """A fresh streaming reasoning parser.

    ``prompt_opened`` states whether the prompt already opened reasoning (the template
    pre-filled ``<think>``); None takes the format's default. ``template`` is the response
    template of the ``hf`` and ``beam`` formats (``formats/hf.py``), which need one.
    ``generation_prompt`` is the text the prompt ends with (the rendered prompt's tail),
    where the output starts: when ``prompt_opened`` is None it is decided from it where it
    says (``switches.prompt_opened_by``: ending with the start marker, ``<think>\n``, opens
    reasoning; ending with the end marker, ``</think>\n\n``, does not), and Harmony
    (``openai_gptoss``) takes its start state from it (after ``<|start|>assistant``: inside
    a header).
    """
    name, alias_opened = reasoning_alias(name)  # SGLang's spellings (streamcall.aliases)
    if prompt_opened is None and generation_prompt:
        prompt_opened = prompt_opened_by(name, generation_prompt)
    if prompt_opened is None:
        prompt_opened = alias_opened
    if name in ("hf", "beam"):
        from streamcall.reasoning.hf import HfReasoningParser

        return HfReasoningParser(template, name=name)
    if template is not None:
        raise ValueError(f"template= is for the hf and beam formats only, not {name!r}")
    spec = _SPECS.get(name)
    if spec is not None:
        if name in COHERE_FORMATS:  # the engine, and citation tags removed
            return CohereReasoningParser(spec, prompt_opened=prompt_opened)
        if name == "inkling":  # the engine, and the framing removed when it runs alone
            return InklingReasoningParser(spec, prompt_opened=prompt_opened)
        return MarkerReasoningParser(spec, prompt_opened=prompt_opened)
    if name == "identity":
        return IdentityParser(name)
    if name == "minimax_m2_append_think":
        return AppendThinkParser(name, prompt_opened=prompt_opened)
    if name == "openai_gptoss":
        return HarmonyReasoningParser(
            name, prompt_opened=prompt_opened, generation_prompt=generation_prompt
        )
    if name in _MUSE_FORMATS:
        return MuseReasoningParser(name, prompt_opened=prompt_opened)
    known = ", ".join(reasoning_formats())
    raise ValueError(f"unknown reasoning format {name!r}; known formats: {known}")
