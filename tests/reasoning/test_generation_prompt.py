"""``generation_prompt`` for the marker formats (issue 46): the prompt's own tail says
whether it opened reasoning (``switches.prompt_opened_by``), where ``prompt_opened`` is
not given; and ``StreamParser`` hands it on to ``output_parser``."""

from __future__ import annotations

import json

import pytest

from streamcall import testing
from streamcall.output import output_parser, parse_output
from streamcall.reasoning import reasoning_parser
from streamcall.reasoning.switches import prompt_opened_by
from streamcall.stream import StreamParser

QWEN_OPEN = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n"
QWEN_CLOSED = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
QWEN_BARE = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"


@pytest.mark.parametrize(
    ("fmt", "prompt", "opened"),
    [
        ("qwen3", QWEN_OPEN, True),
        ("qwen3", QWEN_CLOSED, False),
        ("qwen3", QWEN_BARE, None),  # says nothing: the switches or the default decide
        ("qwen3", None, None),
        ("qwen3", "", None),
        ("deepseek_r1", "<｜Assistant｜><think>\n", True),
        ("deepseek_r1", "<｜Assistant｜></think>", False),
        ("glm45", "<|assistant|><think></think>", False),
        ("identity", QWEN_OPEN, None),
        (None, QWEN_OPEN, None),
        ("openai_gptoss", "<|start|>assistant", None),
        ("openai_gptoss", "<|start|>assistant<|channel|>analysis<|message|>", True),
        ("openai_gptoss", "<|start|>assistant<|channel|>final<|message|>", None),
    ],
)
def test_prompt_opened_by(fmt: str | None, prompt: str | None, opened: bool | None) -> None:
    assert prompt_opened_by(fmt, prompt) is opened


@pytest.mark.parametrize(
    ("prompt", "text", "content", "reasoning"),
    [
        (QWEN_OPEN, "Let me see.\n</think>\n\nHello.", "Hello.", "Let me see.\n"),
        (QWEN_CLOSED, "Hello.", "Hello.", ""),
        (QWEN_CLOSED, "Hello <think>x</think> there", None, "x"),  # its own marker opens it
    ],
)
def test_the_prompt_decides_where_the_output_starts(
    prompt: str, text: str, content: str | None, reasoning: str
) -> None:
    items = testing.check_contract(
        lambda: output_parser(reasoning_format="qwen3", generation_prompt=prompt),
        text,
        markup=("<think>", "</think>"),
    )
    got = "".join(v for k, v in items if k == "reasoning" and isinstance(v, str))
    assert got == reasoning
    parsed = parse_output(text, reasoning_format="qwen3", generation_prompt=prompt)
    assert parsed.reasoning == reasoning
    if content is not None:
        assert parsed.content == content
    direct = reasoning_parser("qwen3", generation_prompt=prompt)
    alone = testing.coalesce(testing.run(direct, [text]))
    assert [v for k, v in alone if k == "reasoning"] == [v for k, v in items if k == "reasoning"]


def test_the_prompt_wins_over_the_switches_and_prompt_opened_over_it() -> None:
    off = {"chat_template_kwargs": {"enable_thinking": False}}
    parsed = parse_output(
        "Why.</think>Hi", reasoning_format="qwen3", request=off, generation_prompt=QWEN_OPEN
    )
    assert (parsed.reasoning, parsed.content) == ("Why.", "Hi")
    parsed = parse_output(
        "Hi", reasoning_format="qwen3", thinking=True, generation_prompt=QWEN_CLOSED
    )
    assert (parsed.reasoning, parsed.content) == ("", "Hi")
    parsed = parse_output(
        "Hi", reasoning_format="qwen3", prompt_opened=True, generation_prompt=QWEN_CLOSED
    )
    assert parsed.reasoning == "Hi"
    # a prompt that says nothing leaves the switches in charge
    parsed = parse_output("Hi", reasoning_format="qwen3", request=off, generation_prompt=QWEN_BARE)
    assert (parsed.reasoning, parsed.content) == ("", "Hi")


def _sse(pieces: list[str]) -> bytes:
    out = []
    for piece in pieces:
        chunk = {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
        out.append(f"data: {json.dumps(chunk)}\n\n")
    return ("".join(out) + "data: [DONE]\n\n").encode()


@pytest.mark.parametrize("size", [1, 5, 1000])
def test_stream_parser_hands_it_on(size: int) -> None:
    text = ' to=functions.f<|channel|>commentary <|constrain|>json<|message|>{"a": 1}<|call|>'
    data = _sse([text[i : i + size] for i in range(0, len(text), size)])
    parser = StreamParser(model="openai/gpt-oss-20b", generation_prompt="<|start|>assistant")
    parser.feed(data)
    parser.finish()
    msg = parser.message
    assert msg.content == ""
    assert [(c.name, json.loads(c.arguments)) for c in msg.tool_calls] == [("f", {"a": 1})]
    plain = StreamParser(model="openai/gpt-oss-20b")
    plain.feed(data)
    plain.finish()
    assert not plain.message.tool_calls  # without it, as before
