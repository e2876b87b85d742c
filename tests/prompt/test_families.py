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
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from prompt_cases import CONVERSATIONS, SECOND, THINKING, TOOLS

from streamcall import parse_tool_calls, render_prompt
from streamcall.prompt import FAMILIES, ChatTemplate, openai_messages
from streamcall.prompt.families import Family, family_for, family_for_model, family_named
from streamcall.testing import check_chunkings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "chat_templates"

#: family -> (the template it follows, its special tokens, the conversations it equals it on)
SAME_AS: dict[str, tuple[str, dict[str, str], tuple[str, ...]]] = {
    "chatml_hermes": ("llama.cpp/Qwen-Qwen3-0.6B.jinja", {}, tuple(CONVERSATIONS)),
    "qwen25": ("llama.cpp/Qwen-Qwen2.5-7B-Instruct.jinja", {}, tuple(CONVERSATIONS)),
    "qwen35": ("llama.cpp/Qwen3.5-4B.jinja", {}, tuple(CONVERSATIONS)),
    # Qwen3.6's template is Qwen3.5's with a preserve_thinking switch (unsaid here)
    "qwen36": ("llama.cpp/Qwen3.5-4B.jinja", {}, tuple(CONVERSATIONS)),
    "qwen3_coder": ("llama.cpp/Qwen3-Coder.jinja", {}, tuple(CONVERSATIONS)),
    "llama3_json": (
        "llama.cpp/meta-llama-Llama-3.1-8B-Instruct.jinja",
        {"bos_token": "<|begin_of_text|>"},
        tuple(CONVERSATIONS),
    ),
    # today's date, from strftime_now, on both sides
    "llama32_json": (
        "llama.cpp/meta-llama-Llama-3.2-3B-Instruct.jinja",
        {"bos_token": "<|begin_of_text|>"},
        tuple(CONVERSATIONS),
    ),
    # DeepSeek-V3.1's own template (as published, before llama.cpp edited its copy) lists
    # no tools (its model card shows the tool prompt, which vLLM's example template adds):
    # the same text without the tool list (below), and the tool section held to vLLM's
    "deepseek_v31": (
        "llama.cpp-0374c5b/deepseek-ai-DeepSeek-V3.1.jinja",
        {"bos_token": "<｜begin▁of▁sentence｜>"},
        ("plain",),
    ),
    "granite4": ("llama.cpp/ibm-granite-granite-4.0.jinja", {}, tuple(CONVERSATIONS)),
    "glm45": ("llama.cpp/GLM-4.6.jinja", {}, tuple(CONVERSATIONS)),
    "kimi_k2": ("llama.cpp/Kimi-K2-Instruct.jinja", {}, tuple(CONVERSATIONS)),
}


def _family(name: str) -> Family:
    found = family_named(name)
    assert found is not None, name
    return found


def _reference(path: str, tokens: dict[str, str], messages: Any, tools: Any, kwargs: Any) -> str:
    source = (FIXTURES / path).read_text(encoding="utf-8")
    if "+ tool['function']['arguments'] +" in source:
        # DeepSeek-V3.1's template concatenates the arguments: it takes them as JSON text,
        # as OpenAI clients send them
        messages = _as_openai(messages)
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
    ours = _family(family).render(copy.deepcopy(messages), tools, True, {**tokens, **kwargs})
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
    _reads_back(prompt, fmt)


@pytest.mark.parametrize("family", [f.name for f in FAMILIES if not f.formats])
def test_a_model_s_variant_writes_calls_its_format_reads_back(family: str) -> None:
    fam = _family(family)
    _reads_back(fam.render(copy.deepcopy(SECOND), None, True, {}), fam.call_format)


def _reads_back(prompt: str, fmt: str) -> None:
    parsed = parse_tool_calls(prompt, fmt, tools=TOOLS)
    assert [(c.name, c.args) for c in parsed.tool_calls] == [
        ("get_weather", {"city": "Paris", "unit": "celsius"})
    ]
    check_chunkings(lambda: __import__("streamcall").tool_parser(fmt, tools=TOOLS), prompt)


def test_families_name_their_source_and_stop_strings() -> None:
    for family in FAMILIES:
        assert family.source and family.stop and family.call_format
        assert family_named(family.name) is family
        for fmt in family.formats:
            assert family_for(fmt) is family


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("Qwen/Qwen3-8B", "chatml_hermes"),
        ("Qwen/QwQ-32B", "chatml_hermes"),
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3_coder"),
        ("Qwen/Qwen3.5-27B", "qwen35"),
        ("Qwen/Qwen3.5-35B-A3B", "qwen35"),
        ("Qwen/Qwen3.6-35B-A3B", "qwen36"),
        ("Qwen/Qwen3.6-27B", "qwen36"),
        ("Qwen/Qwen2.5-7B-Instruct", "qwen25"),
        ("Qwen/Qwen2.5-Coder-32B-Instruct", "qwen25"),
        ("Qwen/Qwen3-4B-Instruct-2507", "chatml_hermes"),
        ("Qwen/Qwen3-Next-80B-A3B-Instruct", "chatml_hermes"),
        ("meta-llama/Llama-3.2-3B-Instruct", "llama32_json"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama3_json"),
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
    assert ours.translate(squeeze) == theirs.translate(squeeze)
    assert "## Tools\nYou have access to the following tools:\n\n### get_weather" in ours


@pytest.mark.parametrize("conversation", list(CONVERSATIONS))
@pytest.mark.parametrize("thinking", list(THINKING))
def test_deepseek_v31_but_for_the_tool_list_is_the_checkpoint_s_text(
    conversation: str, thinking: str
) -> None:
    """The checkpoint's own template writes no tool list: without it, the family's text is
    the template's, calls and results included (``</think>`` opening an answer without
    thinking)."""
    messages, tools = CONVERSATIONS[conversation]
    path, tokens, _ = SAME_AS["deepseek_v31"]
    kwargs = THINKING[thinking]
    ours = _family("deepseek_v31").render(copy.deepcopy(messages), None, True, {**tokens, **kwargs})
    assert ours == _reference(path, tokens, copy.deepcopy(messages), tools, kwargs)


def test_deepseek_v31_opens_an_answer_without_thinking_with_the_end_tag() -> None:
    question = [{"role": "user", "content": "hi"}]
    assert render_prompt(question, format="deepseek_v31", bos_token="").endswith(
        "<｜User｜>hi<｜Assistant｜></think>"
    )
    assert render_prompt(question, format="deepseek_v31", bos_token="", thinking=True).endswith(
        "<｜Assistant｜><think>"
    )


def test_qwen36_keeps_earlier_reasoning_with_preserve_thinking() -> None:
    """Qwen3.6's template keeps every turn's reasoning when ``preserve_thinking`` is true;
    Qwen3.5's keeps it only after the last user query, whatever is said."""
    messages = [
        {"role": "user", "content": "Hello!"},
        {"role": "assistant", "content": "Hi.", "reasoning_content": "A greeting."},
        {"role": "user", "content": "Bye."},
    ]
    kept = "<|im_start|>assistant\n<think>\nA greeting.\n</think>\n\nHi.<|im_end|>"
    hidden = "<|im_start|>assistant\nHi.<|im_end|>"
    for model, preserve, shown in [
        ("Qwen/Qwen3.6-35B-A3B", True, kept),
        ("Qwen/Qwen3.6-35B-A3B", False, hidden),
        ("Qwen/Qwen3.5-27B", True, hidden),
    ]:
        prompt = render_prompt(messages, model=model, preserve_thinking=preserve)
        assert shown in prompt, (model, preserve)
        assert prompt.endswith("<|im_start|>assistant\n<think>\n")


def test_llama32_writes_today_s_date_as_its_template_does() -> None:
    question = [{"role": "user", "content": "hi"}]
    before = datetime.now().strftime("%d %b %Y")
    prompt = render_prompt(question, model="meta-llama/Llama-3.2-3B-Instruct")
    after = datetime.now().strftime("%d %b %Y")
    assert f"Today Date: {before}\n" in prompt or f"Today Date: {after}\n" in prompt
    given = render_prompt(question, model="meta-llama/Llama-3.2-1B", date_string="01 Jan 2026")
    assert "Today Date: 01 Jan 2026\n" in given
    fixed = render_prompt(question, model="meta-llama/Llama-3.1-8B-Instruct")
    assert "Today Date: 26 Jul 2024\n" in fixed


_ALL = tuple(CONVERSATIONS)
_DS = {"bos_token": "<｜begin▁of▁sentence｜>"}
_LLAMA = {"bos_token": "<|begin_of_text|>"}

#: model id -> (its checkpoint's template, special tokens, the conversations the family
#: the id routes to equals it on); docs/prompts.md gives the reason for every other one
MODEL_TEMPLATES: dict[str, tuple[str, dict[str, str], tuple[str, ...]]] = {
    "Qwen/Qwen2.5-7B-Instruct": ("llama.cpp/Qwen-Qwen2.5-7B-Instruct.jinja", {}, _ALL),
    "Qwen/Qwen3-0.6B": ("llama.cpp/Qwen-Qwen3-0.6B.jinja", {}, _ALL),
    "Qwen/Qwen3-Coder-30B-A3B-Instruct": ("llama.cpp/Qwen3-Coder.jinja", {}, _ALL),
    "Qwen/Qwen3.5-4B": ("llama.cpp/Qwen3.5-4B.jinja", {}, _ALL),
    "meta-llama/Llama-3.1-8B-Instruct": (
        "llama.cpp/meta-llama-Llama-3.1-8B-Instruct.jinja",
        _LLAMA,
        _ALL,
    ),
    "meta-llama/Llama-3.2-3B-Instruct": (
        "llama.cpp/meta-llama-Llama-3.2-3B-Instruct.jinja",
        _LLAMA,
        _ALL,
    ),
    "meta-llama/Llama-3.3-70B-Instruct": (
        "llama.cpp/meta-llama-Llama-3.3-70B-Instruct.jinja",
        _LLAMA,
        _ALL,
    ),
    "deepseek-ai/DeepSeek-V3.1": (
        "llama.cpp-0374c5b/deepseek-ai-DeepSeek-V3.1.jinja",
        _DS,
        ("plain",),
    ),
    "ibm-granite/granite-4.0-h-small": ("llama.cpp/ibm-granite-granite-4.0.jinja", {}, _ALL),
    # Granite 4.1 writes no default system prompt
    "ibm-granite/granite-4.1-8b": (
        "llama.cpp/ibm-granite-granite-4.1.jinja",
        {},
        tuple(c for c in _ALL if c != "plain"),
    ),
    "zai-org/GLM-4.6": ("llama.cpp/GLM-4.6.jinja", {}, _ALL),
    "moonshotai/Kimi-K2-Instruct": ("llama.cpp/Kimi-K2-Instruct.jinja", {}, _ALL),
    # the 0905 template heads a result with its role ("tool") and the call's id, and its
    # default system prompt is "You are a helpful assistant" (Kimi-K2-Instruct's names Kimi)
    "moonshotai/Kimi-K2-Instruct-0905": (
        "llama.cpp/moonshotai-Kimi-K2.jinja",
        {},
        ("first-with-tools",),
    ),
}


def _model_cases() -> list[tuple[str, str, str]]:
    return [(m, c, t) for m in MODEL_TEMPLATES for c in CONVERSATIONS for t in THINKING]


@pytest.mark.parametrize(("model", "conversation", "thinking"), _model_cases())
def test_each_model_id_s_family_against_its_own_template(
    model: str, conversation: str, thinking: str
) -> None:
    """The family a model id routes to writes its checkpoint's text on the conversations
    listed, and (so that the list and docs/prompts.md stay true) not on the others."""
    path, tokens, same = MODEL_TEMPLATES[model]
    family = family_for_model(model)
    assert family is not None
    messages, tools = CONVERSATIONS[conversation]
    kwargs = THINKING[thinking]
    ours = family.render(copy.deepcopy(messages), tools, True, {**tokens, **kwargs})
    theirs = _reference(path, tokens, copy.deepcopy(messages), tools, kwargs)
    assert (ours == theirs) is (conversation in same)
