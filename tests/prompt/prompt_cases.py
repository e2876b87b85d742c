"""Conversations and real chat templates for the prompt-layer tests.

``TEMPLATES``: the chat templates of ten model families, byte for byte as their
checkpoints publish them (tests/fixtures/chat_templates/: llama.cpp's copies,
``models/templates/*.jinja``, MIT; their README and manifest name each source), with the
named special tokens their ``tokenizer_config.json`` gives the template.

``CONVERSATIONS``: what an agent loop sends: a first request with tools, the second
request with the earlier call and its result (without reasoning, and with the reasoning
the model wrote before the call), a plain chat; ``THINKING``: each with thinking on, off
and unsaid (the ``enable_thinking``/``thinking`` switches the templates read).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "chat_templates" / "llama.cpp"

#: family -> (template file, the checkpoint it belongs to, its named special tokens)
TEMPLATES: dict[str, tuple[str, str, dict[str, str]]] = {
    "qwen3": (
        "Qwen-Qwen3-0.6B.jinja",
        "Qwen/Qwen3-0.6B",
        {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
    ),
    "qwen3_coder": (
        "Qwen3-Coder.jinja",
        "Qwen/Qwen3-Coder-30B-A3B-Instruct",
        {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
    ),
    "llama3.1": (
        "meta-llama-Llama-3.1-8B-Instruct.jinja",
        "meta-llama/Llama-3.1-8B-Instruct",
        {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    ),
    "mistral": (
        "Mistral-Small-3.2-24B-Instruct-2506.jinja",
        "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
        {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"},
    ),
    "granite4": (
        "ibm-granite-granite-4.0.jinja",
        "ibm-granite/granite-4.0-h-small",
        {"bos_token": "<|end_of_text|>", "eos_token": "<|end_of_text|>", "pad_token": "<|pad|>"},
    ),
    "gemma4": (
        "google-gemma-4-31B-it.jinja",
        "google/gemma-4-31B-it",
        {"bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>", "unk_token": "<unk>"},
    ),
    "deepseek_v31": (
        "deepseek-ai-DeepSeek-V3.1.jinja",
        "deepseek-ai/DeepSeek-V3.1",
        {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<｜end▁of▁sentence｜>"},
    ),
    # GLM-4.6 is the GLM-4.5 family's newest checkpoint (vLLM's glm45 parser for both);
    # llama.cpp's tree has no GLM-4.5 file of its own
    "glm45": (
        "GLM-4.6.jinja",
        "zai-org/GLM-4.6",
        {"eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>"},
    ),
    "kimi_k2": (
        "moonshotai-Kimi-K2.jinja",
        "moonshotai/Kimi-K2-Instruct",
        {"bos_token": "[BOS]", "eos_token": "[EOS]", "unk_token": "[UNK]"},
    ),
    "gpt-oss": (
        "openai-gpt-oss-120b.jinja",
        "openai/gpt-oss-120b",
        {"bos_token": "<|startoftext|>", "eos_token": "<|return|>", "pad_token": "<|endoftext|>"},
    ),
}

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "The city, e.g. Paris"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the web.",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["query"],
            },
        },
    },
]

CALL_ID = "a1b2c3d4e"  # nine alphanumerics: Mistral's templates refuse any other id

FIRST = [
    {"role": "system", "content": "You are a concise assistant."},
    {"role": "user", "content": "What is the weather in Paris?"},
]
SECOND = [
    *FIRST,
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": CALL_ID,
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "arguments": {"city": "Paris", "unit": "celsius"},
                },
            }
        ],
    },
    {"role": "tool", "tool_call_id": CALL_ID, "name": "get_weather", "content": '{"temp": 21}'},
]
#: an agent loop mid-turn: the model reasoned, called, and the result came back; the
#: templates that keep reasoning after the last user message show it, the rest hide it
REASONED = [
    *FIRST,
    {
        "role": "assistant",
        "content": "",
        "reasoning_content": "The user wants the weather in Paris: call get_weather.",
        "tool_calls": SECOND[2]["tool_calls"],
    },
    SECOND[3],
]
PLAIN = [
    {"role": "user", "content": "Hello!"},
    {"role": "assistant", "content": "Hi. How can I help?"},
    {"role": "user", "content": "Tell me a joke."},
]

#: name -> (messages, tools)
CONVERSATIONS: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]] | None]] = {
    "first-with-tools": (FIRST, TOOLS),
    "call-and-result": (SECOND, TOOLS),
    "plain": (PLAIN, None),
    "reasoned-call-and-result": (REASONED, TOOLS),
}
#: name -> template kwargs
THINKING: dict[str, dict[str, Any]] = {
    "default": {},
    "thinking-off": {"enable_thinking": False, "thinking": False},
    "thinking-on": {"enable_thinking": True, "thinking": True},
}


def template_source(family: str) -> str:
    return (FIXTURES / TEMPLATES[family][0]).read_text(encoding="utf-8")


def cases() -> list[tuple[str, str, str]]:
    """(family, conversation, thinking) for every combination."""
    return [(f, c, t) for f in TEMPLATES for c in CONVERSATIONS for t in THINKING]
