"""gpt-oss output read after its generation prompt (issue 46): the family's template ends
the prompt with ``<|start|>assistant``, so the model's output starts inside that role
header (`` to=functions.f<|channel|>commentary ...``, ``<|channel|>analysis<|message|>...``).
Given ``generation_prompt``, the tool parser (``openai``), the reasoning parser
(``openai_gptoss``) and the two combined read it as the rest of that header, in every
chunking; without it nothing changes."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import tool_parser
from streamcall.framing.harmony import FRAMES, MAX_HEADER, Header, prompt_framing
from streamcall.output import output_parser, parse_output
from streamcall.reasoning import reasoning_parser
from support import random_chunkings

GP = "<|start|>system<|message|>You are ChatGPT.<|end|><|start|>user<|message|>Hi<|end|><|start|>assistant"
CALL = ' to=functions.f<|channel|>commentary <|constrain|>json<|message|>{"a": 1}<|call|>'
THINK_THEN_ANSWER = "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Hi!<|return|>"
THINK_THEN_CALL = (
    "<|channel|>analysis<|message|>Need f.<|end|><|start|>assistant"
    '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1}<|call|>'
)
Simple = list[tuple[str, Any]]
LONG = " " + "x" * 600 + "<|message|>past the header's bound"  # counted from the prompt's opener
CUT = " to=functions.f<|channel|>comm"  # the stream ends inside the header

# (output, what the combined parser and the tool parser read, what the reasoning parser reads)
CASES: list[tuple[str, Simple, Simple]] = [
    (CALL, [("f", {"a": 1})], [("text", CALL)]),
    (
        ' to=functions.f<|channel|>commentary json<|message|>{"a": 1}',  # cut off
        [("f", {"a": 1})],
        [("text", ' to=functions.f<|channel|>commentary json<|message|>{"a": 1}')],
    ),
    (THINK_THEN_ANSWER, [("reasoning", "Think."), ("text", "Hi!")], None),  # type: ignore[list-item]
    (
        THINK_THEN_CALL,
        [("reasoning", "Need f."), ("f", {"a": 1})],
        [
            ("reasoning", "Need f."),
            ("text", THINK_THEN_CALL[THINK_THEN_CALL.index("<|start|>") :]),
        ],
    ),
    ("<|channel|>final<|message|>Hello.", [("text", "Hello.")], None),  # type: ignore[list-item]
    (
        "<|channel|>commentary<|message|>Checking.<|end|><|start|>assistant" + CALL,
        [("text", "Checking."), ("f", {"a": 1})],
        [("text", "<|channel|>commentary<|message|>Checking.<|end|><|start|>assistant" + CALL)],
    ),
    # a built-in tool's message is reasoning for the tool parser, handed on by the other
    (
        ' to=browser.search<|channel|>analysis<|message|>{"q": "x"}<|call|>',
        [("reasoning", '{"q": "x"}')],
        [("text", ' to=browser.search<|channel|>analysis<|message|>{"q": "x"}<|call|>')],
    ),
    # no header after all: the output is text from its start
    (LONG, [("text", LONG)], None),  # type: ignore[list-item]
    (CUT, [("text", CUT)], None),  # type: ignore[list-item]
    ("Plain text, no header.", [("text", "Plain text, no header.")], None),  # type: ignore[list-item]
    (
        "Hello<|start|>assistant<|channel|>final<|message|>Hi<|end|>",
        [("text", "HelloHi")],
        None,  # type: ignore[list-item]
    ),
]


def simple(items: list[testing.Item]) -> Simple:
    out: Simple = []
    for kind, value in items:
        if isinstance(value, testing.Call):
            out.append((value.name, json.loads(value.arguments)))
        else:
            out.append((kind, value))
    return out


def combined() -> Any:
    return output_parser(
        tool_format="openai", reasoning_format="openai_gptoss", generation_prompt=GP
    )


def tools_alone() -> Any:
    return tool_parser("openai", generation_prompt=GP)


def reasoning_alone() -> Any:
    return reasoning_parser("openai_gptoss", generation_prompt=GP)


MAKERS: dict[str, Callable[[], Any]] = {
    "combined": combined,
    "tools": tools_alone,
    "reasoning": reasoning_alone,
}


def expected(kind: str, both: Simple, reasoning: Simple | None) -> Simple:
    return reasoning if kind == "reasoning" and reasoning is not None else both


@pytest.mark.parametrize("kind", MAKERS)
@pytest.mark.parametrize(("text", "both", "reasoning"), CASES)
def test_output_after_the_start_of_a_header(
    kind: str, text: str, both: Simple, reasoning: Simple | None
) -> None:
    items = testing.check_contract(MAKERS[kind], text, markup=FRAMES)
    assert simple(items) == expected(kind, both, reasoning)


@pytest.mark.parametrize(("text", "both", "reasoning"), CASES)
def test_parse_output_and_model_routing_take_it(
    text: str, both: Simple, reasoning: Simple | None
) -> None:
    for parsed in (
        parse_output(text, "openai/gpt-oss-20b", generation_prompt=GP),
        parse_output(
            text, tool_format="openai", reasoning_format="openai_gptoss", generation_prompt=GP
        ),
    ):
        assert parsed.content == "".join(v for k, v in both if k == "text")
        assert parsed.reasoning == "".join(v for k, v in both if k == "reasoning")
        calls = [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls]
        assert calls == [(k, v) for k, v in both if k not in ("text", "reasoning")]


@given(data=st.data(), case=st.sampled_from(CASES), kind=st.sampled_from(sorted(MAKERS)))
def test_any_chunking(data: st.DataObject, case: tuple[str, Simple, Simple], kind: str) -> None:
    text, both, reasoning = case
    for pieces in random_chunkings(data, text):
        got = testing.coalesce(testing.run(MAKERS[kind](), pieces))
        assert simple(got) == expected(kind, both, reasoning), pieces


def test_without_a_generation_prompt_nothing_changes() -> None:
    # the output read as if it started before a message, as before
    for maker in (
        lambda: tool_parser("openai"),
        lambda: tool_parser("openai", generation_prompt="<|start|>user<|message|>x<|end|>"),
        lambda: output_parser(tool_format="openai", reasoning_format="openai_gptoss"),
    ):
        items = simple(testing.check_chunkings(maker, CALL))
        assert not [k for k, _ in items if k not in ("text", "reasoning")]


def test_a_prompt_ending_in_a_body_starts_the_output_there() -> None:
    gp = "<|start|>assistant<|channel|>analysis<|message|>"
    text = "Think.<|end|><|start|>assistant<|channel|>final<|message|>Hi!"
    want = [("reasoning", "Think."), ("text", "Hi!")]
    for maker in (
        lambda: tool_parser("openai", generation_prompt=gp),
        lambda: reasoning_parser("openai_gptoss", generation_prompt=gp),
        lambda: output_parser(
            reasoning_format="openai_gptoss", tool_format="openai", generation_prompt=gp
        ),
    ):
        assert simple(testing.check_chunkings(maker, text)) == want
    gp = "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>"
    got = testing.check_chunkings(
        lambda: tool_parser("openai", generation_prompt=gp), '{"a": 1}<|call|>'
    )
    assert simple(got) == [("f", {"a": 1})]


def test_an_explicit_prompt_opened_wins() -> None:
    parser = reasoning_parser("openai_gptoss", prompt_opened=True, generation_prompt=GP)
    got = testing.coalesce(testing.run(parser, ["Think.<|end|>"]))
    assert simple(got) == [("reasoning", "Think.")]


@pytest.mark.parametrize(
    ("prompt", "framing"),
    [
        (None, ("", None)),
        ("", ("", None)),
        ("no tokens", ("", None)),
        ("<|start|>user<|message|>Hi<|end|>", ("", None)),
        (GP, ("<|start|>assistant", None)),
        ("<|end|><|start|>assistant<|channel|>", ("<|start|>assistant<|channel|>", None)),
        (
            "<|end|><|start|>assistant<|channel|>analysis<|message|>",
            ("", Header("analysis", "")),
        ),
        ("x<|end|><|channel|>final<|message|>", ("", Header("final", ""))),
    ],
)
def test_prompt_framing(prompt: str | None, framing: tuple[str, Header | None]) -> None:
    assert prompt_framing(prompt) == framing


@pytest.mark.parametrize("extra", [0, 1])
def test_the_bound_counts_the_prompts_part_of_the_header(extra: int) -> None:
    prompt = "<|start|>assistant"
    head = " to=functions.f<|channel|>commentary "
    rest = head + " " * (MAX_HEADER - len(prompt) - len(head) - len("<|message|>") + extra)
    text = rest + '<|message|>{"a": 1}<|call|>'
    got = simple(
        testing.check_chunkings(lambda: tool_parser("openai", generation_prompt=prompt), text)
    )
    # past the bound: text up to the '<|channel|>' that opens a commentary message
    assert got == ([("f", {"a": 1})] if not extra else [("text", ' to=functions.f{"a": 1}')])
