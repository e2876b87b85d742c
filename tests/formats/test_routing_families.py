"""From a model id alone, every member of a family gets the formats its explicit names give,
the reasoning start included (issue 46); with the neighbours that must not match."""

from __future__ import annotations

import pytest

from streamcall import format_for_model, output_parser, parse_output, parse_tool_calls, tool_parser
from streamcall.reasoning import reasoning_format_for_model
from streamcall.testing import check_chunkings

MISTRAL_THINKING = [
    "mistralai/Magistral-Small-2506",
    "mistralai/Magistral-Small-2507",
    "mistralai/Magistral-Small-2509",
    "mistralai/Magistral-Medium-2506",
    "mistralai/Magistral-Medium-2509",
    *(f"mistralai/Ministral-3-{size}-Reasoning-2512" for size in ("3B", "8B", "14B")),
]
MISTRAL_NOT_THINKING = [
    *(f"mistralai/Ministral-3-{size}-Instruct-2512" for size in ("3B", "8B", "14B")),
    *(f"mistralai/Ministral-3-{size}-Base-2512" for size in ("3B", "8B", "14B")),
    "mistralai/Ministral-8B-Instruct-2410",
    "mistralai/Devstral-Small-2505",
    "mistralai/Devstral-Small-2507",
    "mistralai/Devstral-Medium-2507",
    "mistralai/Devstral-2-123B-Instruct-2512",
    "mistralai/Devstral-Small-2-24B-Instruct-2512",
    "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
    "unsloth/Devstral-Small-2507-GGUF",
]


@pytest.mark.parametrize("model", MISTRAL_THINKING + MISTRAL_NOT_THINKING)
def test_mistral_family_routes_to_mistral(model: str) -> None:
    assert format_for_model(model) == "mistral"
    expected = "mistral" if model in MISTRAL_THINKING else None
    assert reasoning_format_for_model(model) == expected


@pytest.mark.parametrize(
    ("model", "output"),
    [
        ("mistralai/Magistral-Small-2509", "[THINK]hmm[/THINK]"),
        ("mistralai/Magistral-Small-2506", "<think>\nhmm\n</think>\n\n"),
        ("mistralai/Ministral-3-8B-Reasoning-2512", "[THINK]hmm[/THINK]"),
        ("mistralai/Ministral-3-8B-Instruct-2512", ""),
        ("mistralai/Devstral-Small-2507", ""),
    ],
)
def test_mistral_family_reads_its_reasoning_and_calls(model: str, output: str) -> None:
    text = output + 'Sure.[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}'
    got = parse_output(text, model)
    assert [c.name for c in got.tool_calls] == ["get_weather"]
    assert got.tool_calls[0].args == {"city": "Paris"}
    assert got.reasoning.strip() == ("hmm" if output else "")
    assert got.content.strip() == "Sure."


LLAMA4 = [
    "meta-llama/Llama-4-Scout-17B-16E",
    "meta-llama/Llama-4-Scout-17B-16E-Instruct",
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8",
    "RedHatAI/Llama-4-Scout-17B-16E-Instruct-quantized.w4a16",
]
PYTHONIC = '[get_weather(city="Paris"), get_time(tz="CET")]'
JSON_CALL = '{"name": "get_weather", "parameters": {"city": "Paris"}}'


@pytest.mark.parametrize("model", LLAMA4)
@pytest.mark.parametrize(
    ("output", "explicit"),
    [
        (PYTHONIC, "llama4_pythonic"),
        ("<|python_start|>" + PYTHONIC + "<|python_end|>", "llama4_pythonic"),
        (JSON_CALL, "llama4_json"),
        ("\n " + JSON_CALL, "llama4_json"),
        ("The weather is fine.", "llama4_json"),
    ],
)
def test_llama4_ids_read_both_templates(model: str, output: str, explicit: str) -> None:
    """Pythonic calls (Meta's prompt format) and a JSON call (vLLM's JSON template) alike:
    the model id gives what the explicit name of the template's format gives."""
    assert reasoning_format_for_model(model) is None
    got = parse_tool_calls(output, model=model)
    assert got == parse_tool_calls(output, explicit)
    check_chunkings(lambda: tool_parser(model=model), output)


@pytest.mark.parametrize(
    "model",
    [
        "meta-llama/Llama-Guard-4-12B",  # no tool calls
        "meta-llama/Llama-Prompt-Guard-2-86M",
        "meta-llama/Llama-3.3-70B-Instruct",  # llama3_json
    ],
)
def test_llama4_neighbours(model: str) -> None:
    assert format_for_model(model) in (None, "llama3_json")


@pytest.mark.parametrize(
    ("model", "tool", "reasoning"),
    [
        ("deepseek-ai/DeepSeek-V4.1", "deepseek_v41", "deepseek_v41"),
        ("deepseek-ai/DeepSeek-V4.1-Base", "deepseek_v41", "deepseek_v41"),
        ("deepseek-ai/DeepSeek-V4.1-Flash", "deepseek_v41", "deepseek_v41"),
        ("org/deepseek_v4.1-mini", "deepseek_v41", "deepseek_v41"),
        # negative: V4 and its sizes keep deepseek_v4; V3.x their own
        ("deepseek-ai/DeepSeek-V4", "deepseek_v4", "deepseek_v4"),
        ("deepseek-ai/DeepSeek-V4-Flash", "deepseek_v4", "deepseek_v4"),
        ("deepseek-ai/DeepSeek-V4-Pro", "deepseek_v4", "deepseek_v4"),
        ("deepseek-ai/DeepSeek-V3.1", "deepseek_v31", "deepseek_v3"),
    ],
)
def test_deepseek_v4_ids(model: str, tool: str, reasoning: str) -> None:
    assert format_for_model(model) == tool
    assert reasoning_format_for_model(model) == reasoning


def _starts_in_reasoning(model: str) -> bool:
    return parse_output("Hello", model).reasoning == "Hello"


@pytest.mark.parametrize(
    ("model", "reasoning", "opened"),
    [
        # instruct-only: no reasoning stage that starts open
        ("moonshotai/Kimi-K2-Instruct", "identity", False),
        ("moonshotai/Kimi-K2-Instruct-0905", "identity", False),
        ("moonshotai/Kimi-K2-Base", "identity", False),
        ("Qwen/Qwen3-4B-Instruct-2507", "identity", False),
        ("Qwen/Qwen3-30B-A3B-Instruct-2507", "identity", False),
        ("Qwen/Qwen3-235B-A22B-Instruct-2507", "identity", False),
        ("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "identity", False),
        ("Qwen/Qwen3-Next-80B-A3B-Instruct", "identity", False),
        ("Qwen/Qwen3-VL-8B-Instruct", "identity", False),
        ("Qwen/Qwen3-VL-235B-A22B-Instruct", "identity", False),
        ("Qwen/Qwen3-Omni-30B-A3B-Instruct", "identity", False),
        ("unsloth/Qwen3-4B-Instruct-2507-GGUF", "identity", False),
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "identity", False),
        # thinking variants: the template opens <think>
        ("moonshotai/Kimi-K2-Thinking", "kimi_k2", True),
        ("Qwen/Qwen3-4B-Thinking-2507", "qwen3", True),
        ("Qwen/Qwen3-30B-A3B-Thinking-2507", "qwen3", True),
        ("Qwen/Qwen3-235B-A22B-Thinking-2507", "qwen3", True),
        ("Qwen/Qwen3-Next-80B-A3B-Thinking", "qwen3", True),
        ("Qwen/Qwen3-VL-8B-Thinking", "qwen3", True),
        # hybrids: thinking on unless the request turns it off
        *((f"Qwen/Qwen3-{size}", "qwen3", True) for size in ("0.6B", "4B", "8B", "32B")),
        ("Qwen/Qwen3-30B-A3B", "qwen3", True),
        ("Qwen/Qwen3-235B-A22B", "qwen3", True),
    ],
)
def test_instruct_and_thinking_variants_start_where_their_templates_leave_off(
    model: str, reasoning: str, opened: bool
) -> None:
    assert reasoning_format_for_model(model) == reasoning
    assert _starts_in_reasoning(model) is opened


def test_hybrid_thinking_off_starts_outside_reasoning() -> None:
    request = {"chat_template_kwargs": {"enable_thinking": False}}
    got = parse_output("Hello", "Qwen/Qwen3-8B", request=request)
    assert (got.content, got.reasoning) == ("Hello", "")


@pytest.mark.parametrize(
    ("model", "output"),
    [
        (
            "moonshotai/Kimi-K2-Instruct-0905",
            "Sure. <|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
            '<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|><|tool_calls_section_end|>',
        ),
        (
            "Qwen/Qwen3-4B-Instruct-2507",
            'Sure. <tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>',
        ),
    ],
)
def test_instruct_models_answer_as_content(model: str, output: str) -> None:
    got = parse_output(output, model)
    assert (got.content, got.reasoning) == ("Sure. ", "")
    assert [(c.name, c.args) for c in got.tool_calls] == [("f", {"a": 1})]
    # a stream of it, whatever the chunking
    parser = output_parser(model)
    events = [ev for piece in output for ev in parser.feed(piece)] + parser.finish()
    assert [type(ev).__name__ for ev in events].count("Reasoning") == 0


@pytest.mark.parametrize(
    "model",
    [
        # the '*' pattern needs both parts, in order
        "Qwen/Qwen2.5-7B-Instruct",  # identity, by its own pattern
        "acme/instruct-qwen3-8b",  # 'instruct' before 'qwen3': a hybrid's fine-tune
    ],
)
def test_qwen3_instruct_pattern_negatives(model: str) -> None:
    expected = "identity" if "qwen2.5" in model.lower() else "qwen3"
    assert reasoning_format_for_model(model) == expected
