"""Model-id routing: the ordered, case-insensitive substring table (``registry.ROUTES``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from streamcall import format_for_model, formats, tool_parser
from streamcall.formats.registry import ROUTES
from streamcall.reasoning import REASONING_ROUTES, reasoning_format_for_model

# One real model id per pattern (the ids people pass as `model`).
EXAMPLES = [
    ("mistralai/Mistral-7B-Instruct-v0.3", "mistral"),
    ("mistralai/Mixtral-8x22B-Instruct-v0.1", "mistral"),
    ("mistralai/Magistral-Small-2509", "mistral"),
    ("mistralai/Ministral-3-8B-Instruct-2512", "mistral"),
    ("mistralai/Devstral-Small-2507", "mistral"),
    ("Qwen/Qwen3-Coder-480B-A35B-Instruct", "qwen3_coder"),
    ("Qwen/Qwen2.5-Coder-32B-Instruct", "qwen3_coder"),
    ("Qwen/Qwen3.5-397B-A17B", "qwen3_coder"),
    ("Qwen/Qwen2.5-7B-Instruct", "qwen3_xml"),
    ("Qwen/QwQ-32B", "qwen3_xml"),
    ("NousResearch/Hermes-3-Llama-3.1-8B", "hermes"),
    ("tencent/Hy3-Instruct", "hy_v3"),
    ("tencent/hy_v3-chat", "hy_v3"),
    ("internlm/internlm2_5-7b-chat", "internlm"),
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama4_pythonic"),
    ("meta-llama/Llama-3.2-3B-Instruct", "llama3_json"),
    ("meta-llama/Llama-3.1-8B-Instruct", "llama3_json"),
    ("deepseek-ai/DeepSeek-R1-0528", "deepseek_v3"),
    ("deepseek-ai/DeepSeek-V4", "deepseek_v4"),
    ("deepseek-ai/DeepSeek-V4.1", "deepseek_v41"),
    ("some-org/deepseek_v4.1-lite", "deepseek_v41"),
    ("some-org/deepseek_v4-lite", "deepseek_v4"),
    ("deepseek-ai/DeepSeek-V3.2-Exp", "deepseek_v32"),
    ("deepseek-ai/DeepSeek-V3.1-Terminus", "deepseek_v31"),
    ("deepseek-ai/DeepSeek-V3-0324", "deepseek_v3"),
    ("zai-org/GLM-5", "glm47"),
    ("zai-org/GLM-4.7-Flash", "glm47"),
    ("zai-org/GLM-4.6", "glm45"),
    ("zai-org/GLM-4.5-Air", "glm45"),
    ("google/gemma4-27b-it", "gemma4"),
    ("google/gemma-4-31b-it", "gemma4"),
    ("ibm-granite/granite-4.0-h-small", "granite4"),
    ("moonshotai/Kimi-K2-Instruct-0905", "kimi_k2"),
    ("moonshotai/Kimi-K3", "kimi_k3"),
    ("MiniMaxAI/MiniMax-M3", "minimax_m3"),
    ("org/mm-m3-preview", "minimax_m3"),
    ("MiniMaxAI/MiniMax-M2", "minimax_m2"),
    ("org/mm-m2-small", "minimax_m2"),
    ("ByteDance-Seed/Seed-OSS-36B-Instruct", "seed_oss"),
    ("org/seedoss-mini", "seed_oss"),
    ("MiniMaxAI/MiniMax-M1-80k", "minimax"),
    # beyond vLLM's Rust table
    ("openai/gpt-oss-20b", "openai"),
    ("google/functiongemma-270m-it", "functiongemma"),
    ("LiquidAI/LFM2-1.2B", "lfm2"),
    ("allenai/Olmo-3-7B-Instruct", "olmo3"),
    ("meta-llama/Llama-3.3-70B-Instruct", "llama3_json"),
    ("ibm-granite/granite-20b-functioncalling", "granite-20b-fc"),
    ("ibm-granite/granite-3.1-8b-instruct", "granite"),
    ("ai21labs/AI21-Jamba-1.5-Mini", "jamba"),
    ("Salesforce/Llama-xLAM-2-8b-fc-r", "xlam"),
    ("microsoft/Phi-4-mini-instruct", "phi4_mini_json"),
    ("baidu/ERNIE-4.5-21B-A3B-PT", "ernie45"),
    ("meituan-longcat/LongCat-Flash-Chat", "longcat"),
    ("tencent/Hunyuan-A13B-Instruct", "hunyuan_a13b"),
    ("swiss-ai/Apertus-8B-Instruct-2509", "apertus"),
    ("ai-sage/GigaChat3-10B-A1.8B", "gigachat3"),
    ("ai-sage/GigaChat3.5-432B-A28B", "gigachat35"),
    ("stepfun-ai/Step-3.5-Flash", "step3p5"),
    ("org/step3p5-mini", "step3p5"),
    ("stepfun-ai/step-3", "step3"),
    ("org/step3-small", "step3"),
    ("stepfun-ai/Step-5", "step5"),
    ("org/step5-mini", "step5"),
    ("rednote-hilab/dots.llm1.inst", "dots"),
    ("XiaomiMiMo/MiMo-7B-RL", "mimo"),
    ("openbmb/MiniCPM5-8B", "minicpm5"),
    ("Team-ACE/ToolACE-8B", "pythonic"),
    ("poolside/Laguna-XS.2", "poolside_v1"),
    ("ServiceNow-AI/Apriel-1.5-15b-Thinker", "jamba"),
    ("ibm-granite/granite-4.2-8b", "granite_toolcall_parser"),  # [model id unverified]
    ("nvidia/Llama-3.3-Nemotron-Super-49B-v1.5", "nemotron_toolcall"),
    ("nvidia/Llama-3_3-Nemotron-Super-49B-v1", "nemotron_toolcall"),
    ("nvidia/Llama-3.1-Nemotron-Nano-8B-v1", "nemotron_toolcall"),
    ("nvidia/Llama-3_1-Nemotron-Ultra-253B-v1", "nemotron_toolcall"),
    ("nvidia/NVIDIA-Nemotron-Nano-9B-v2", "nemotron_toolcall"),
    ("nvidia/NVIDIA-Nemotron-Nano-12B-v2", "nemotron_toolcall"),
    ("meetkai/functionary-medium-v3.1", "functionary_v3_1"),
    ("meetkai/functionary-small-v3.1", "functionary_v3_1"),
    ("meetkai/functionary-medium-v3.2", "functionary_v3_2"),
    ("meetkai/functionary-small-v3.2", "functionary_v3_2"),
    ("pfnet/plamo-3-nict-2b-base", "plamo3"),
    ("upstage/Solar-Open-100B", "solar_open"),
    ("thinkingmachines/Inkling", "inkling"),
    ("meta/muse-spark-1.2", "muse"),
    ("meta/MuseSpark-1.3-contributor", "muse"),
    ("meta/muse-glimmer-30b", "muse_glimmer"),
    # issue 16 (ids marked [unverified] in docs/research/formats16.md follow the pattern)
    ("org/k2-horizon-mova-36b-a4b", "k2_horizon"),
    ("org/K2-V3-Instruct", "k2_horizon"),
    ("inclusionAI/Ling-3-flash", "ling3"),
    ("inclusionAI/Ring-3-mini", "ling3"),
    ("IQuestLab/IQuest-Q1-Instruct", "iquest_q1"),
    ("org/iquest_q1-small", "iquest_q1"),
    ("Tele-AI/TeleChat4-32B", "telechat4"),
    ("org/XingChen4-Instruct", "xingchen4"),
    ("org/Xing4.0-chat", "xingchen4"),
    # issue 38 (vLLM 0.34's names; [unverified] Ripple ids follow the vendor's name)
    ("Zyphra/ZAYA1-8B", "zaya"),
    ("ricursive/Ripple-instruct", "ripple"),
    # issue 46's new names
    ("upstage/Solar-Open2-250B", "solar_open2"),
    ("RWB/BerryLM-OS", "berrylm"),
    ("Aleph-Alpha/Kolibri-1", "kolibri1"),
    ("org/kolibri1-gguf", "kolibri1"),
    ("CohereForAI/c4ai-command-r-plus-08-2024", "command_r_plus"),
]


@pytest.mark.parametrize(("model", "expected"), EXAMPLES)
def test_every_pattern_routes(model: str, expected: str) -> None:
    assert format_for_model(model) == expected
    assert format_for_model(model.upper()) == expected  # case-insensitive


def test_every_pattern_has_an_example() -> None:
    covered = {pattern for pattern, _ in ROUTES if any(pattern in m.lower() for m, _ in EXAMPLES)}
    assert covered == {pattern for pattern, _ in ROUTES}


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        # order matters: the specific pattern must win over the general one
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3_coder"),  # not qwen3_xml
        ("deepseek-ai/DeepSeek-V3.2", "deepseek_v32"),  # not deepseek_v3
        ("deepseek-ai/DeepSeek-V3.1", "deepseek_v31"),  # not deepseek_v3
        ("MiniMaxAI/MiniMax-M3-Preview", "minimax_m3"),  # not minimax_m2
        ("Qwen/Qwen3.5-35B", "qwen3_coder"),  # not qwen3_xml
        ("MiniMaxAI/MiniMax-M1-40k", "minimax"),  # not minimax_m2
        ("ibm-granite/granite-4.0-h-small", "granite4"),  # not granite
        ("stepfun-ai/Step-3.5", "step3p5"),  # not step3
        ("ibm-granite/granite-4.2-8b", "granite_toolcall_parser"),  # not granite4
        ("ibm-granite/granite-4.1-8b", "granite4"),  # not qwen3_coder
        # Llama-Nemotron writes <TOOLCALL>, not Llama 3.x JSON
        ("nvidia/Llama-3.3-Nemotron-Super-49B-v1", "nemotron_toolcall"),  # not llama3_json
        ("nvidia/Llama-3.1-Nemotron-Nano-4B-v1.1", "nemotron_toolcall"),  # not llama3_json
        # K2 Horizon is not Kimi K2, nor the other way round
        ("moonshotai/Kimi-K2-Instruct-0905", "kimi_k2"),
        ("moonshotai/Kimi-K2.5", "kimi_k2"),
        ("org/K2-Horizon-Qwen3-distill", "k2_horizon"),
        ("ai-sage/GigaChat3.5-432B-A28B", "gigachat35"),  # not gigachat3
    ],
)
def test_order_sensitive_cases(model: str, expected: str) -> None:
    assert format_for_model(model) == expected


@pytest.mark.parametrize(
    "model",
    [
        # Older Granite ids must never reach granite4.
        "ibm-granite/granite-3.0-8b-instruct",
        "ibm-granite/granite-3.1-8b-instruct",
        "ibm-granite/granite-3.3-8b-instruct",
        "ibm-granite/granite-20b-functioncalling",
        "ibm-granite/granite-guardian-3.2-5b",
        # Neighbours of the issue-16 patterns that write no format of theirs.
        "inclusionAI/Ling-lite-1.5",
        "inclusionAI/Ling-plus",
        "inclusionAI/Ling-2.0-flash",
        "inclusionAI/Ring-2.5-1T",
        "inclusionAI/bailing-pro",
        "IQuestLab/IQuest-Coder-V1-40B-Instruct",
        "IQuestLab/IQuest-Coder-V2-Instruct",
        "Tele-AI/TeleChat2-7B",
        "Tele-AI/TeleChat3-36B",
        "LLM360/K2-Think",
        # Ids that name no known family.
        "gpt2",
        "tiiuae/falcon-7b",
        "",
    ],
)
def test_negative_cases(model: str) -> None:
    assert format_for_model(model) != "granite4"
    if "granite" not in model:
        assert format_for_model(model) is None


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        # Nemotron 3 writes Qwen3's XML calls (vLLM nemotron_v3 = qwen3_config), not
        # <TOOLCALL>; the hybrid base models have no tool format
        ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", None),
        ("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B", None),
        ("nvidia/Nemotron-H-8B-Base-8K", None),
        # Solar Open 2 writes another syntax (its own format); Solar Pro and Solar 10.7B
        # none known
        ("upstage/Solar-Open2-120B", "solar_open2"),
        ("upstage/solar-pro-preview-instruct", None),
        ("upstage/SOLAR-10.7B-Instruct-v1.0", None),
        # other PLaMo generations
        ("pfnet/plamo-2-8b", None),
        ("pfnet/plamo-embedding-1b", None),
        # other Functionary generations write yet another format
        ("meetkai/functionary-small-v2.5", None),
        ("meetkai/functionary-medium-v2.4", None),
        # Llama 3.x itself stays llama3_json (its built-in tools are part of it)
        ("meta-llama/Llama-3.1-70B-Instruct", "llama3_json"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama3_json"),
    ],
)
def test_new_formats_negative_cases(model: str, expected: str | None) -> None:
    assert format_for_model(model) == expected


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("nvidia/NVIDIA-Nemotron-Nano-9B-v2", "deepseek_r1"),  # not nemotron_v3
        ("nvidia/NVIDIA-Nemotron-Nano-12B-v2-Base", "deepseek_r1"),
        ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "nemotron_v3"),
        ("pfnet/plamo-3-nict-2b-base", "plamo3"),
        ("pfnet/plamo-2-8b", None),
        ("upstage/Solar-Open-100B", "solar_open"),
        ("upstage/Solar-Open2-120B", "solar_open2"),
        ("thinkingmachines/Inkling", "inkling"),
    ],
)
def test_new_reasoning_routes(model: str, expected: str | None) -> None:
    assert reasoning_format_for_model(model) == expected


@pytest.mark.parametrize(
    "model", ["tencent/Hy4-preview", "tencent/HY-v4-Instruct", "tencent/hy_v4-chat", "hy4"]
)
def test_hy4_ids_do_not_route_to_hy_v3(model: str) -> None:
    # vLLM's Rust table routes only hy3/hy_v3; HY v4 (no tool_sep) is chosen by name.
    assert format_for_model(model) is None


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        # the neighbours of the issue-16 patterns keep their own formats
        ("moonshotai/Kimi-K2.5", "kimi_k2"),  # not kimi_k3
        ("moonshotai/Kimi-K2.6", "kimi_k2"),
        ("moonshotai/Kimi-VL-A3B-Thinking-2506", None),
        ("moonshotai/Kimi-Dev-72B", None),
        ("ai-sage/GigaChat3-702B-A36B-preview", "gigachat3"),  # not gigachat35
        ("ai-sage/GigaChat3.1-10B-A1.8B", "gigachat3"),
        ("stepfun-ai/step3", "step3"),  # not step5
        ("stepfun-ai/Step-3.5-Flash", "step3p5"),
        ("org/step3p5-large", "step3p5"),
        ("rednote-hilab/dots.ocr", None),  # not dots
        ("rednote-hilab/dots.vlm1.inst", None),
    ],
)
def test_issue16_neighbours(model: str, expected: str | None) -> None:
    assert format_for_model(model) == expected


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("moonshotai/Kimi-K3", "kimi_k3"),
        ("moonshotai/Kimi-K2-Thinking", "kimi_k2"),  # not kimi_k3
        ("ai-sage/GigaChat3.5-432B-A28B", "gigachat35"),
        ("ai-sage/GigaChat3-10B-A1.8B", None),  # GigaChat 3 has no reasoning format
        ("stepfun-ai/Step-5", "step5"),
        ("org/step5-mini", "step5"),
        ("stepfun-ai/Step-3.5-Flash", "step3p5"),  # not step5
    ],
)
def test_issue16_reasoning_routes(model: str, expected: str | None) -> None:
    assert reasoning_format_for_model(model) == expected


@pytest.mark.parametrize(
    ("model", "tool", "reasoning"),
    [
        ("Zyphra/ZAYA1-8B", "zaya", "zaya"),
        ("Zyphra/ZAYA1-base", "zaya", "zaya"),
        ("ricursive/Ripple-instruct", "ripple", "ripple"),
        ("ibm-granite/granite-4.2-8b", "granite_toolcall_parser", "granite_thinking_parser"),
        ("meta/MuseSpark-1.3-contributor", "muse", "muse"),
        # negative cases: other Zyphra models, other models named ripple, other Granites
        ("Zyphra/Zamba2-7B-instruct", None, None),
        ("acme/ripple-7b", None, None),
        ("ripple", None, None),
        ("ibm-granite/granite-4.0-h-small", "granite4", None),
        ("ibm-granite/granite-3.3-8b-instruct", "granite", "granite"),
    ],
)
def test_issue38_routes(model: str, tool: str | None, reasoning: str | None) -> None:
    assert format_for_model(model) == tool
    assert reasoning_format_for_model(model) == reasoning


@pytest.mark.parametrize(
    ("model", "tool", "reasoning"),
    [
        ("upstage/Solar-Open2-250B", "solar_open2", "solar_open2"),
        ("upstage/solar-open2-250b-fp8", "solar_open2", "solar_open2"),
        ("RWB/BerryLM-OS", "berrylm", "berrylm"),
        ("Aleph-Alpha/Kolibri-1", "kolibri1", "kolibri1"),
        ("Aleph-Alpha/Kolibri-1-BF16", "kolibri1", "kolibri1"),
        ("CohereForAI/c4ai-command-r-plus", "command_r_plus", None),
        ("CohereForAI/c4ai-command-r-plus-08-2024", "command_r_plus", None),
        ("CohereLabs/c4ai-command-r-plus-4bit", "command_r_plus", None),
        # negative cases: Solar Open 1, the other Command models, other Solars and Kolibris
        ("upstage/Solar-Open-100B", "solar_open", "solar_open"),
        ("upstage/SOLAR-10.7B-Instruct-v1.0", None, None),
        ("CohereForAI/c4ai-command-r7b-12-2024", None, None),
        ("CohereLabs/command-a-reasoning-08-2025", None, "cohere_command3"),
        ("learningequality/kolibri-studio", None, None),
        ("org/berry-7b", None, None),
    ],
)
def test_issue46_routes(model: str, tool: str | None, reasoning: str | None) -> None:
    assert format_for_model(model) == tool
    assert reasoning_format_for_model(model) == reasoning


def test_every_routed_format_is_registered() -> None:
    missing = sorted({name for _, name in ROUTES} - set(formats()))
    assert missing == []


def test_tool_parser_by_model_and_errors() -> None:
    assert type(tool_parser(model="ibm-granite/granite-4.0-h-tiny")).__name__ == "GraniteFourParser"
    with pytest.raises(ValueError, match="no tool-call format is known"):
        tool_parser(model="gpt2")
    with pytest.raises(ValueError, match="unknown tool-call format 'nope'"):
        tool_parser("nope")
    with pytest.raises(ValueError, match="needs a format name or a model id"):
        tool_parser()


# --- the specific name wins ----------------------------------------------------------------
#
# Both routing tables hold two tiers: the names of models, then the base families that
# other models are fine-tuned from and keep the name of. A fine-tune written with its base
# model's name writes the fine-tune's format, so every name of the first tier must win over
# every base family, and within the table no pattern may be shadowed by an earlier one
# that is a substring of it. The base families, and why each one is one:
TOOL_BASE_FAMILIES = {
    "mistral-": "Mistral 7B/Small: Hermes-2-Pro-Mistral-7B, OpenHermes-2.5-Mistral-7B",
    "mixtral-": "Mixtral: Nous-Hermes-2-Mixtral-8x7B",
    "qwen3-coder": "Qwen3-Coder: fine-tuned coding agents keep the name",
    "qwen2.5-coder": "Qwen2.5-Coder, likewise",
    "qwen3.5": "Qwen3.5, likewise",
    "qwen": "Qwen: xLAM-2 (Qwen-xLAM), DeepSeek-R1-Distill-Qwen, Holo2",
    "llama-4": "Llama 4 fine-tunes",
    "llama-3.2": "Llama 3.2 fine-tunes",
    "llama-3.1": "Llama 3.1: Hermes-3-Llama-3.1, ToolACE-2-Llama-3.1",
    "llama-3.3": "Llama 3.3 fine-tunes",
    "deepseek-v4": "DeepSeek-V4 fine-tunes",
    "deepseek_v4": "DeepSeek-V4, the other spelling",
    "deepseek-v3.2": "DeepSeek-V3.2 fine-tunes",
    "deepseek-v3.1": "DeepSeek-V3.1 fine-tunes",
    "deepseek-v3": "DeepSeek-V3 fine-tunes",
    "glm-5": "GLM-5 fine-tunes",
    "glm-4.7": "GLM-4.7 fine-tunes",
    "glm-4.6": "GLM-4.6 fine-tunes",
    "glm-4.5": "GLM-4.5 fine-tunes",
    "magistral": "Magistral fine-tunes keep the name",
    "ministral": "Ministral, likewise",
    "devstral": "Devstral, likewise",
    "deepseek-v4.1": "DeepSeek-V4.1 fine-tunes",
    "deepseek_v4.1": "DeepSeek-V4.1, the other spelling",
    "gemma4": "Gemma 4: FunctionGemma-style fine-tunes",
    "gemma-4": "Gemma 4, the other spelling",
    "granite-4.2": "Granite 4.2 fine-tunes",
    "granite-4": "Granite 4 fine-tunes",
    "granite-3": "Granite 3 fine-tunes (granite-20b-functioncalling is not one)",
    "phi-4-mini": "Phi-4-mini fine-tunes",
}
REASONING_BASE_FAMILIES = {
    "deepseek-v4.1": "DeepSeek-V4.1 fine-tunes",
    "deepseek_v4.1": "DeepSeek-V4.1, the other spelling",
    "deepseek-v4": "DeepSeek-V4 fine-tunes",
    "deepseek_v4": "DeepSeek-V4, the other spelling",
    "deepseek-v3": "DeepSeek-V3 fine-tunes",
    "qwen3-coder": "Qwen3-Coder fine-tunes",
    "qwen3*instruct": "Qwen3 instruct fine-tunes (Qwen3-4B-Instruct-2507-abliterated)",
    "qwen3": "Qwen3: Holo2, Qwen3-Nemotron, DeepSeek-R1-0528-Qwen3",
    "qwen2.5": "Qwen2.5: DeepSeek-R1-Distill-Qwen, OpenReasoning-Nemotron",
    "granite-4.2": "Granite 4.2 fine-tunes",
    "granite-3.2": "Granite 3.2 fine-tunes",
    "granite-3.3": "Granite 3.3 fine-tunes",
    "gemma-4": "Gemma 4 fine-tunes",
    "gemma4": "Gemma 4, the other spelling",
    "glm-4.5": "GLM-4.5 fine-tunes",
    "glm-4.6": "GLM-4.6 fine-tunes",
    "glm-4.7": "GLM-4.7 fine-tunes",
    "glm-5": "GLM-5 fine-tunes",
}
# Pairs of base families are not ordered against each other (an id naming two bases is a
# merge; either format may be right), so they are not checked.
TABLES = [
    pytest.param(ROUTES, TOOL_BASE_FAMILIES, format_for_model, id="tools"),
    pytest.param(
        REASONING_ROUTES, REASONING_BASE_FAMILIES, reasoning_format_for_model, id="reasoning"
    ),
]
Table = tuple[tuple[str, str], ...]


@pytest.mark.parametrize(("routes", "bases", "route"), TABLES)
def test_no_pattern_is_shadowed_by_an_earlier_one(
    routes: Table, bases: dict[str, str], route: Callable[[str], str | None]
) -> None:
    """A model id made from each pattern routes to that pattern's format: no earlier
    pattern that is a substring of it maps elsewhere."""
    wrong = [
        (pattern, fmt, route(model))
        for pattern, fmt in routes
        for model in (pattern, f"acme/{pattern}-7b-it", f"ACME/{pattern.upper()}")
        if route(model) != fmt
    ]
    assert wrong == []


@pytest.mark.parametrize(("routes", "bases", "route"), TABLES)
def test_a_model_name_wins_over_its_base_family(
    routes: Table, bases: dict[str, str], route: Callable[[str], str | None]
) -> None:
    """Every pattern that is not a base family wins over every base family, whichever
    comes first in the id: a later name can never lose to a base family it was fine-tuned
    from. Fails for a new pattern added after the base families."""
    patterns = [p for p, _ in routes]
    assert set(bases) <= set(patterns), "a listed base family is not in the table"
    wrong = []
    for name, fmt in routes:
        if name in bases:
            continue
        for base, base_fmt in routes:
            if base not in bases or base_fmt == fmt:
                continue
            for model in (f"acme/{base}-{name}-7b", f"acme/{name}-{base}-7b"):
                if route(model) != fmt:
                    wrong.append((model, fmt, route(model)))
    assert wrong == []


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("acme/Qwen-xLAM-1.5B-fc", "xlam"),
        ("Salesforce/Llama-xLAM-2-70b-fc-r", "xlam"),
        ("NousResearch/Hermes-2-Pro-Mistral-7B", "hermes"),
        ("NousResearch/Nous-Hermes-2-Mixtral-8x7B-DPO", "hermes"),
        ("NousResearch/Hermes-3-Llama-3.1-8B", "hermes"),
        ("Team-ACE/ToolACE-2-Llama-3.1-8B", "pythonic"),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "deepseek_v3"),
        ("deepseek-ai/DeepSeek-R1-0528-Qwen3-8B", "deepseek_v3"),
        ("acme/functiongemma-4-2b", "functiongemma"),
        ("ibm-granite/granite-3.1-8b-instruct", "granite"),
    ],
)
def test_fine_tunes_named_with_their_base(model: str, expected: str) -> None:
    assert format_for_model(model) == expected


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("Hcompany/Holo2-8B-Qwen3", "holo2"),
        ("nvidia/Qwen3-Nemotron-32B-RLBFF", "nemotron_v3"),
        ("deepseek-ai/DeepSeek-R1-0528-Qwen3-8B", "deepseek_r1"),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "deepseek_r1"),
        ("Qwen/Qwen3-8B", "qwen3"),
    ],
)
def test_reasoning_fine_tunes_named_with_their_base(model: str, expected: str) -> None:
    assert reasoning_format_for_model(model) == expected


# --- reasoning markers of issue 16 (docs/research/formats16.md, "Routing overview") ------


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("MiniMaxAI/MiniMax-M3", "minimax_m3"),
        ("MiniMaxAI/MiniMax-M3-Preview", "minimax_m3"),  # not minimax_m2
        ("acme/mm-m3-chat", "minimax_m3"),
        ("moonshotai/Kimi-VL-A3B-Thinking", "kimi_vl"),
        ("moonshotai/Kimi-VL-A3B-Thinking-2506", "kimi_vl"),
        ("moonshotai/Kimi-Dev-72B", "kimi_vl"),
        ("moonshotai/Kimi-K2-Thinking", "kimi_k2"),  # Kimi-K2 keeps <think>
        ("moonshotai/Kimi-K2.5", "kimi_k2"),
        ("swiss-ai/Apertus-8B-Instruct-2509", "apertus"),
        ("swiss-ai/Apertus-70B-2509", "apertus"),
        ("ServiceNow-AI/Apriel-1.5-15b-Thinker", "apriel"),
        ("ibm-granite/granite-3.3-8b-instruct", "granite"),  # <think> and the phrases
        ("ibm-granite/granite-3.2-8b-instruct", "granite"),
        ("ibm-granite/granite-4.2-8b", "granite_thinking_parser"),  # [model id unverified]
        ("CohereLabs/command-a-plus-05-2026", "cohere_command4"),  # [model id unverified]
        ("CohereLabs/command-a-reasoning-08-2025", "cohere_command3"),
        ("openbmb/MiniCPM-V-4_5", "minicpmv"),
        ("openbmb/MiniCPM-o-2_6", "minicpmv"),
    ],
)
def test_reasoning_markers_route(model: str, expected: str) -> None:
    assert reasoning_format_for_model(model) == expected
    assert reasoning_format_for_model(model.upper()) == expected


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("meta/muse-spark-1.3-contributor", "muse"),
        ("facebook/MuseSpark1x", "muse"),
        ("meta/Muse-Glimmer-30B", "muse_glimmer"),
    ],
)
def test_muse_ids_route_both_parsers(model: str, expected: str) -> None:
    assert format_for_model(model) == expected
    assert reasoning_format_for_model(model) == expected


@pytest.mark.parametrize(
    "model",
    [
        "moonshotai/Kimi-VL-A3B-Instruct",  # does not think
        "ibm-granite/granite-4.0-h-small",  # Granite 4.0/4.1 have no reasoning parser
        "ibm-granite/granite-4.1-8b",
        "openbmb/MiniCPM5-8B",  # not MiniCPM-V
        "openbmb/MiniCPM4-8B",
        "ServiceNow-AI/Apriel-1.6-15b-Thinker",  # untagged phrases: not the <thinking> format
        "CohereLabs/c4ai-command-r-plus-08-2024",
    ],
)
def test_reasoning_markers_negative(model: str) -> None:
    assert reasoning_format_for_model(model) is None


@pytest.mark.parametrize(
    "model",
    # Other models named Muse write no ATEM: a bare "muse" never routes.
    ["TMElyralab/MuseTalk", "TMElyralab/MusePose", "acme/muse-tts-1b", "muse", "amused/amused-256"],
)
def test_other_muse_models_do_not_route_to_muse(model: str) -> None:
    assert format_for_model(model) is None
    assert reasoning_format_for_model(model) is None
