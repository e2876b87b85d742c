"""The chat templates streamcall ships, held against the public templates they follow.

For each family: the same prompt as the checkpoint's own template (rendered by
``ChatTemplate``, which equals transformers: test_against_transformers.py) for the
conversations an agent loop sends, where the family is meant to be the same text; and for
every family, the calls in the prompt read back by the format's own parser, in any
chunking, as the calls the conversation made.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from prompt_cases import CONVERSATIONS, SECOND, THINKING, TOOLS

from streamcall import parse_tool_calls, render_prompt
from streamcall.prompt import FAMILIES, ChatTemplate, openai_messages
from streamcall.prompt.families import family_for, family_for_model
from streamcall.testing import check_chunkings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "chat_templates"

#: family -> (the template it follows, its special tokens, the conversations it equals it on)
SAME_AS: dict[str, tuple[str, dict[str, str], tuple[str, ...]]] = {
    "chatml_hermes": ("llama.cpp/Qwen-Qwen3-0.6B.jinja", {}, tuple(CONVERSATIONS)),
    "qwen3_coder": ("llama.cpp/Qwen3-Coder.jinja", {}, tuple(CONVERSATIONS)),
    "llama3_json": (
        "llama.cpp/meta-llama-Llama-3.1-8B-Instruct.jinja",
        {"bos_token": "<|begin_of_text|>"},
        tuple(CONVERSATIONS),
    ),
    # DeepSeek-V3.1's own template lists no tools (its model card shows the tool prompt,
    # which vLLM's example template adds): the same text without tools, and the tool
    # section held to vLLM's below
    "deepseek_v31": (
        "llama.cpp/deepseek-ai-DeepSeek-V3.1.jinja",
        {"bos_token": "<｜begin▁of▁sentence｜>"},
        ("plain",),
    ),
    "granite4": ("llama.cpp/ibm-granite-granite-4.0.jinja", {}, tuple(CONVERSATIONS)),
    "glm45": ("llama.cpp/GLM-4.6.jinja", {}, tuple(CONVERSATIONS)),
    "kimi_k2": ("llama.cpp/Kimi-K2-Instruct.jinja", {}, tuple(CONVERSATIONS)),
}


def _reference(path: str, tokens: dict[str, str], messages: Any, tools: Any, kwargs: Any) -> str:
    source = (FIXTURES / path).read_text(encoding="utf-8")
    if "tool_response_queue.ids.append" in source:
        # Kimi-K2-Instruct's template appends to a list, which transformers' immutable
        # sandbox refuses (test_kimi_k2_instruct_template_fails_as_in_transformers); its
        # text is held with Jinja's ordinary sandbox
        from jinja2.sandbox import SandboxedEnvironment

        env = SandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
        env.filters["tojson"] = lambda v, **kw: json.dumps(v, ensure_ascii=False, **kw)
        return env.from_string(source).render(
            messages=messages, tools=tools, add_generation_prompt=True, **tokens, **kwargs
        )
    template = ChatTemplate.from_string(source, special_tokens=tokens)
    return template.render(messages, tools=tools, **kwargs)


def _cases() -> list[tuple[str, str, str]]:
    return [(f, c, t) for f, (_, _, convs) in SAME_AS.items() for c in convs for t in THINKING]


@pytest.mark.parametrize(("family", "conversation", "thinking"), _cases())
def test_the_same_prompt_as_the_template_it_follows(
    family: str, conversation: str, thinking: str
) -> None:
    path, tokens, _ = SAME_AS[family]
    messages, tools = CONVERSATIONS[conversation]
    kwargs = THINKING[thinking]
    ours = next(f for f in FAMILIES if f.name == family).render(
        copy.deepcopy(messages), tools, True, {**tokens, **kwargs}
    )
    assert ours == _reference(path, tokens, copy.deepcopy(messages), tools, kwargs)


def _as_openai(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation as an OpenAI client sends it: arguments as JSON text."""
    out = copy.deepcopy(messages)
    for m in out:
        for call in m.get("tool_calls") or []:
            call["function"]["arguments"] = json.dumps(call["function"]["arguments"])
    return out


@pytest.mark.parametrize("family", [f.name for f in FAMILIES])
def test_openai_style_arguments_render_as_objects_do(family: str) -> None:
    fam = next(f for f in FAMILIES if f.name == family)
    as_objects = fam.render(copy.deepcopy(SECOND), TOOLS, True, {})
    assert fam.render(_as_openai(SECOND), TOOLS, True, {}) == as_objects
    assert openai_messages(_as_openai(SECOND)) == SECOND


@pytest.mark.parametrize("fmt", sorted({f for fam in FAMILIES for f in fam.formats}))
def test_the_calls_in_the_prompt_read_back_with_the_format_s_parser(fmt: str) -> None:
    """Without the tool list (whose example calls are not calls), the only call in the
    prompt is the conversation's, and the format's parser reads it back as it was."""
    prompt = render_prompt(copy.deepcopy(SECOND), format=fmt)
    parsed = parse_tool_calls(prompt, fmt, tools=TOOLS)
    assert [(c.name, c.args) for c in parsed.tool_calls] == [
        ("get_weather", {"city": "Paris", "unit": "celsius"})
    ]
    check_chunkings(lambda: __import__("streamcall").tool_parser(fmt, tools=TOOLS), prompt)


def test_families_name_their_source_and_stop_strings() -> None:
    for family in FAMILIES:
        assert family.source and family.stop and family.formats
        for fmt in family.formats:
            assert family_for(fmt) is family


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("Qwen/Qwen3-8B", "chatml_hermes"),
        ("Qwen/QwQ-32B", "chatml_hermes"),
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3_coder"),
        ("Qwen/Qwen3.5-27B", "qwen3_coder"),
        ("NousResearch/Hermes-3-Llama-3.1-8B", "chatml_hermes"),
        ("meta-llama/Llama-3.1-8B-Instruct", "llama3_json"),
        ("mistralai/Mistral-Small-3.2-24B-Instruct-2506", "mistral"),
        ("deepseek-ai/DeepSeek-V3.1", "deepseek_v31"),
        ("ibm-granite/granite-4.0-h-small", "granite4"),
        ("zai-org/GLM-4.6", "glm45"),
        ("moonshotai/Kimi-K2-Instruct", "kimi_k2"),
    ],
)
def test_model_ids_pick_the_family_they_were_trained_on(model: str, family: str) -> None:
    found = family_for_model(model)
    assert found is not None and found.name == family


@pytest.mark.parametrize("model", ["ibm-granite/granite-3.3-8b-instruct", "some/unknown"])
def test_model_ids_without_a_family(model: str) -> None:
    assert family_for_model(model) is None


def test_a_format_without_a_family_says_what_there_is() -> None:
    with pytest.raises(ValueError, match="ships no chat template for the format 'gemma4'"):
        render_prompt([{"role": "user", "content": "hi"}], format="gemma4")


@pytest.mark.parametrize("conversation", ["first-with-tools", "call-and-result"])
def test_deepseek_v31_tools_as_vllm_s_template_writes_them(conversation: str) -> None:
    """vLLM's example template writes stray blanks from its unstripped Jinja tags; but for
    blanks, it is the same text (the tool section, the calls, the results)."""
    messages, tools = CONVERSATIONS[conversation]
    tokens = {"bos_token": "<｜begin▁of▁sentence｜>"}
    ours = render_prompt(copy.deepcopy(messages), tools=tools, format="deepseek_v31", **tokens)
    theirs = _reference("vllm/tool_chat_template_deepseekv31.jinja", tokens, messages, tools, {})
    squeeze = str.maketrans("", "", " \n")
    # vLLM's example opens the assistant turn with "</think>" where the checkpoint's own
    # template (and this family) writes "<think></think>"
    assert ours.translate(squeeze) == theirs.translate(squeeze).replace(
        "<｜Assistant｜></think>", "<｜Assistant｜><think></think>"
    )
    assert "## Tools\nYou have access to the following tools:\n\n### get_weather" in ours
