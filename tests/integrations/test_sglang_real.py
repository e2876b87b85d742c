"""The SGLang plugin inside real SGLang 0.5.23, compared with streamcall alone and with
SGLang's own detectors.

What runs: SGLang's plugin loader (streamcall's ``sglang.srt.plugins`` entry point), its
parser registries and its argument parser, its detectors, and its ``OpenAIServingChat``
(``sglang_harness``: the chat template, ``skip_special_tokens``, the streaming generator
with its reasoning and tool-call steps, ``_check_for_unstreamed_tool_args``, the finish
reason, and the non-streaming path) around a scripted engine, at 1, 2, 5 and all tokens a
step. Call ids are SGLang's (random), so they are checked for presence, not compared.

Run with ``scripts/test-sglang 0.5.23`` (it makes or reuses a venv with that SGLang).
Outside that venv the module skips.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support import function_tool

try:
    _SGLANG: str | None = importlib.metadata.version("sglang")
except importlib.metadata.PackageNotFoundError:
    _SGLANG = None
if _SGLANG is None or not _SGLANG.startswith("0.5."):
    pytest.skip(
        f"needs SGLang 0.5 (found {_SGLANG or 'none'}): run scripts/test-sglang 0.5.23, which "
        "makes a venv with that SGLang and runs these tests",
        allow_module_level=True,
    )

from sglang.srt.entrypoints.openai.protocol import Tool
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang.srt.parser.reasoning_parser import ReasoningParser
from sglang.srt.plugins import load_plugins
from sglang.srt.server_args import ServerArgs
from sglang_harness import chat, make_serving, make_tokenizer

from sglang_fixtures import assert_each_name_listed_once
from streamcall.aliases import SGLANG_REASONING, SGLANG_TOOL
from streamcall.formats.registry import formats, parse_tool_calls, parser_class
from streamcall.reasoning import reasoning_formats, reasoning_parser, reasoning_spec

logging.getLogger("sglang").setLevel(logging.CRITICAL)
load_plugins()

OWN_TOOL = {k: v for k, v in FunctionCallParser.ToolCallParserEnum.items() if "streamcall" not in k}
OWN_REASONING = {k: v for k, v in ReasoningParser.DetectorMap.items() if "streamcall" not in k}
TOOLS = [function_tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}})]
CALLS = [
    ("get_weather", {"city": "Paris", "days": 3}),
    ("get_weather", {"city": "Oslo", "days": 1}),
]
STEPS = (1, 2, 5, 1 << 30)
TEMPLATE_FORMATS = ("hf", "beam")  # read the checkpoint's response template: not registered


# --- the plugin in SGLang's registries and its command line ------------------------------


def test_the_entry_point_is_declared_and_registers_through_load_plugins() -> None:
    eps = importlib.metadata.entry_points(group="sglang.srt.plugins")
    ours = [ep for ep in eps if ep.name == "streamcall"]
    assert [ep.value for ep in ours] == ["streamcall.integrations.streamcall_sglang_plugin:load"]
    assert "streamcall_hermes" in FunctionCallParser.ToolCallParserEnum
    assert "streamcall_qwen3" in ReasoningParser.DetectorMap


def test_every_format_is_a_choice_of_the_live_registries_and_the_cli() -> None:
    tool_names = ["streamcall", *(f"streamcall_{f}" for f in formats())]
    reasoning_names = [f"streamcall_{f}" for f in reasoning_formats() if f not in TEMPLATE_FORMATS]
    assert set(tool_names) <= set(FunctionCallParser.ToolCallParserEnum)
    assert set(reasoning_names) <= set(ReasoningParser.DetectorMap)
    # SGLang's spellings too: streamcall_<SGLang's name>
    for name, fmt in SGLANG_TOOL.items():
        if fmt not in TEMPLATE_FORMATS:
            assert f"streamcall_{name}" in FunctionCallParser.ToolCallParserEnum
    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)  # reads the choices from the live registries
    for tool, reasoning in zip(tool_names, [*reasoning_names] * 2, strict=False):
        args = parser.parse_args(
            ["--model-path", "m", "--tool-call-parser", tool, "--reasoning-parser", reasoning]
        )
        assert (args.tool_call_parser, args.reasoning_parser) == (tool, reasoning)


def test_every_sglang_name_is_an_alias_or_listed_with_its_reason() -> None:
    assert (len(OWN_TOOL), len(OWN_REASONING)) == (44, 36)  # SGLang 0.5.23's
    for kind, names, table in (
        ("tool", OWN_TOOL, SGLANG_TOOL),
        ("reasoning", OWN_REASONING, SGLANG_REASONING),
    ):
        assert_each_name_listed_once(kind, names, table)


# --- aliases: SGLang's detector of that name reads what streamcall's format reads --------

#: texts SGLang's detector reads where streamcall's render writes a variant it does not:
#: the forms from SGLang's detector docstrings and tests
SAME_WIRE_TEXT = {
    "gpt-oss": "<|start|>assistant<|channel|>commentary to=functions.get_weather "
    '<|constrain|>json<|message|>{"city": "Paris", "days": 3}<|call|>',
    "interns1": '<|action_start|> <|plugin|>\n{"name": "get_weather", "parameters": '
    '{"city": "Paris", "days": 3}}<|action_end|>',
    "spark25": "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>"
    "<arg_key>days</arg_key><arg_value>3</arg_value></tool_call>",
    # SGLang reads Step-3.5 with its Qwen3-Coder detector; streamcall's step3p5 reads both
    "step3p5": parser_class("qwen3_coder").render(CALLS[:1]),
}
#: SGLang keeps the newlines around XML values that streamcall (as vLLM) takes off
STRIPS_VALUE_NEWLINES = {"mimo"}


@pytest.mark.parametrize("name", [n for n, f in SGLANG_TOOL.items() if f not in TEMPLATE_FORMATS])
def test_tool_alias_reads_the_same_wire_as_sglangs_detector(name: str) -> None:
    fmt = SGLANG_TOOL[name]
    text = SAME_WIRE_TEXT.get(name) or parser_class(fmt).render(CALLS[:1])
    ours = [(c.name, c.args) for c in parse_tool_calls(text, name, tools=TOOLS).tool_calls]
    _, items = FunctionCallParser([Tool(**t) for t in TOOLS], name).parse_non_stream(text)
    theirs = [(c.name, json.loads(c.parameters)) for c in items]
    if name in STRIPS_VALUE_NEWLINES:
        theirs = [
            (n, {k: v.strip() if isinstance(v, str) else v for k, v in a.items()})
            for n, a in theirs
        ]
    assert ours == theirs == [CALLS[0]], text


#: realistic texts where the bare markers are not what the model writes
REASONING_TEXT = {
    "gemma4": "<|channel>thought\nI think<channel|>The answer.",
    "cohere_command4": "<|START_THINKING|>I think<|END_THINKING|><|START_TEXT|>The answer.<|END_TEXT|>",
}


@pytest.mark.parametrize(
    "name",
    [n for n, (f, _) in SGLANG_REASONING.items() if reasoning_spec(f) is not None],
)
def test_reasoning_alias_reads_the_same_wire_as_sglangs_detector(name: str) -> None:
    fmt, alias_opened = SGLANG_REASONING[name]
    spec = reasoning_spec(fmt)
    assert spec is not None
    # the start state the format's template usually leaves the model in
    opened = spec.opened if alias_opened is None else alias_opened
    text = REASONING_TEXT.get(name) or (
        ("" if opened else spec.start[0]) + "I think" + spec.end[0] + "The answer."
    )
    theirs = ReasoningParser(name, force_reasoning=opened).parse_non_stream(text)
    parser = reasoning_parser(name, prompt_opened=opened)
    events = parser.feed(text) + parser.finish()
    ours = (
        "".join(e.text for e in events if type(e).__name__ == "Reasoning"),
        "".join(e.text for e in events if type(e).__name__ == "Text"),
    )
    assert ours == ("I think", "The answer.")
    assert (theirs[0] or "", (theirs[1] or "").strip()) == ours


# --- through SGLang's serving code ------------------------------------------------------


def fold(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """A stream as a client reads it: reasoning and content joined, each call's name and
    arguments (its id checked), the finish reason."""
    reasoning: list[str] = []
    content: list[str] = []
    calls: dict[int, dict[str, str]] = {}
    finish = None
    for chunk in chunks:
        for choice in chunk["choices"]:
            delta = choice["delta"]
            reasoning.append(delta.get("reasoning_content") or "")
            content.append(delta.get("content") or "")
            for call in delta.get("tool_calls") or ():
                entry = calls.setdefault(call["index"], {"name": "", "arguments": ""})
                if call.get("id"):
                    assert not entry["name"], "a second id for one call"
                    entry["name"] = call["function"]["name"]
                entry["arguments"] += call["function"].get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    return {
        "reasoning": "".join(reasoning),
        "content": "".join(content),
        "calls": [(c["name"], json.loads(c["arguments"])) for _, c in sorted(calls.items())],
        "finish": finish,
    }


def message(body: dict[str, Any]) -> dict[str, Any]:
    choice = body["choices"][0]
    msg = choice["message"]
    calls = msg.get("tool_calls") or []
    assert all(c["id"] for c in calls)
    return {
        "reasoning": msg.get("reasoning_content") or "",
        "content": msg.get("content") or "",
        "calls": [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls],
        "finish": choice["finish_reason"],
    }


def _renderable() -> list[str]:
    out = []
    for fmt in formats():
        try:
            parser_class(fmt).render(CALLS)
        except NotImplementedError:
            continue
        out.append(fmt)
    return out


def fixture_text(fmt: str) -> str:
    rendered = parser_class(fmt).render(CALLS)
    if getattr(parser_class(fmt), "WHOLE_OUTPUT", False):
        return rendered
    return "Let me check. " + rendered


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("sglang")


def request_body(directory: Path, stream: bool, **extra: Any) -> dict[str, Any]:
    return {
        "model": str(directory),
        "messages": [{"role": "user", "content": "Weather in Paris and Oslo?"}],
        "tools": TOOLS,
        "stream": stream,
        **extra,
    }


@pytest.mark.parametrize("fmt", _renderable())
def test_every_format_through_sglang_serving_as_through_streamcall_alone(
    fmt: str, workdir: Path
) -> None:
    text = fixture_text(fmt)
    alone = parse_tool_calls(text, fmt, tools=TOOLS)
    want = {
        "reasoning": "",
        "content": alone.content,
        "calls": [(c.name, c.args) for c in alone.tool_calls],
        "finish": "tool_calls" if alone.tool_calls else "stop",
    }
    assert want["calls"], "the fixture has calls"
    directory = make_tokenizer(workdir / f"model-{fmt}", [], [text] * 4)
    serving, manager = make_serving(directory, tool_call_parser=f"streamcall_{fmt}")
    manager.text = text
    for n in STEPS:
        manager.tokens_per_step = n
        assert fold(chat(serving, request_body(directory, True))) == want, n
    assert message(chat(serving, request_body(directory, False))) == want


# --- SGLang's own hermes against the format's fixtures -----------------------------------

HERMES_SPECIALS = ["<tool_call>", "</tool_call>", "<think>", "</think>"]


def hermes_call(name: str, args: dict[str, Any]) -> str:
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': args})}\n</tool_call>"


#: Hermes fixtures (vLLM's tests/tool_parsers hermes cases, Apache-2.0): (text, content,
#: calls) as the format says they read
HERMES_FIXTURES = {
    "one call": (hermes_call(*CALLS[0]), "", CALLS[:1]),
    "text then a call": ("Let me check. " + hermes_call(*CALLS[0]), "Let me check. ", CALLS[:1]),
    "two calls": (hermes_call(*CALLS[0]) + "\n" + hermes_call(*CALLS[1]), "", CALLS),
}


@pytest.fixture(scope="module")
def hermes_servings(workdir: Path) -> Iterator[dict[str, Any]]:
    texts = [t for t, _, _ in HERMES_FIXTURES.values()]
    directory = make_tokenizer(workdir / "Qwen3-8B", HERMES_SPECIALS, texts * 4)
    yield {
        parser: make_serving(
            directory, tool_call_parser=parser, reasoning_parser="streamcall_qwen3"
        )
        for parser in ("hermes", "streamcall_hermes")
    } | {"directory": directory}


@pytest.mark.parametrize("case", HERMES_FIXTURES)
def test_streamcall_hermes_reads_the_fixtures_at_every_step_size(
    case: str, hermes_servings: dict[str, Any]
) -> None:
    text, content, calls = HERMES_FIXTURES[case]
    serving, manager = hermes_servings["streamcall_hermes"]
    manager.text = "<think>Checking.</think>" + text
    body = request_body(hermes_servings["directory"], True)
    for n in STEPS:
        manager.tokens_per_step = n
        got = fold(chat(serving, body))
        assert got == {
            "reasoning": "Checking.",
            "content": content,
            "calls": calls,
            "finish": "tool_calls",
        }, n


def test_sglangs_own_hermes_drops_calls_when_a_step_holds_several_tokens(
    hermes_servings: dict[str, Any],
) -> None:
    """SGLang's ``hermes`` (its ``Qwen25``-style base detector) at one step for the whole
    output (``--stream-interval`` above 1, or its non-incremental output mode): a call
    after text is lost and the finish reason is ``stop``; where streamcall's reads it."""
    serving, manager = hermes_servings["hermes"]
    text, _, calls = HERMES_FIXTURES["text then a call"]
    manager.text = "<think>Checking.</think>" + text
    manager.tokens_per_step = 1 << 30
    got = fold(chat(serving, request_body(hermes_servings["directory"], True)))
    assert got["calls"] != calls and got["finish"] == "stop"
    manager.tokens_per_step = 1  # token by token it reads the call
    assert fold(chat(serving, request_body(hermes_servings["directory"], True)))["calls"] == calls


def test_a_call_cut_by_max_tokens_finishes_length_with_nothing_sent_twice(
    hermes_servings: dict[str, Any],
) -> None:
    serving, manager = hermes_servings["streamcall_hermes"]
    text, _, _ = HERMES_FIXTURES["one call"]
    manager.text = text
    full = manager.tokenizer.encode(text, add_special_tokens=False)
    manager.max_tokens = len(full) - 3  # inside the arguments
    try:
        for n in STEPS:
            manager.tokens_per_step = n
            chunks = chat(serving, request_body(hermes_servings["directory"], True))
            args = "".join(
                c["function"].get("arguments") or ""
                for ch in chunks
                for choice in ch["choices"]
                for c in choice["delta"].get("tool_calls") or ()
            )
            assert json.loads(args)["city"] == "Paris"  # closed once, never repeated
            assert fold(chunks)["finish"] == "length"
    finally:
        manager.max_tokens = None


def test_thinking_off_reaches_the_reasoning_parser(hermes_servings: dict[str, Any]) -> None:
    """``enable_thinking: false``: the template closes reasoning in the prompt; SGLang's
    reading of the switch reaches streamcall's qwen3 as its start state."""
    serving, manager = hermes_servings["streamcall_hermes"]
    manager.text = "No thinking here. " + hermes_call(*CALLS[0])
    manager.tokens_per_step = 2
    body = request_body(
        hermes_servings["directory"], True, chat_template_kwargs={"enable_thinking": False}
    )
    got = fold(chat(serving, body))
    assert (got["reasoning"], got["content"], got["calls"]) == (
        "",
        "No thinking here. ",
        CALLS[:1],
    )


def test_special_tokens_stay_in_the_text_for_a_streamcall_reasoning_parser(
    hermes_servings: dict[str, Any],
) -> None:
    """No tools (so SGLang's own rule keeps nothing): the plugin's hook keeps the markers,
    which are special tokens here, so the reasoning parser sees them."""
    serving, manager = hermes_servings["streamcall_hermes"]
    manager.text = "<think>Checking.</think>Paris is sunny."
    manager.tokens_per_step = 3
    body = {**request_body(hermes_servings["directory"], True), "tools": None}
    got = fold(chat(serving, body))
    assert manager.last_request.sampling_params["skip_special_tokens"] is False
    assert (got["reasoning"], got["content"]) == ("Checking.", "Paris is sunny.")


def test_the_routing_parser_reads_the_checkpoints_model_id(workdir: Path) -> None:
    text = "Sure. " + hermes_call(*CALLS[0])
    directory = make_tokenizer(workdir / "Hermes-3-Llama-3.1-8B", HERMES_SPECIALS, [text] * 4)
    serving, manager = make_serving(directory, tool_call_parser="streamcall")
    manager.text = text
    for n in STEPS:
        manager.tokens_per_step = n
        got = fold(chat(serving, request_body(directory, True)))
        assert (got["content"], got["calls"], got["finish"]) == ("Sure. ", CALLS[:1], "tool_calls")


def test_required_tool_choice_constrains_as_sglangs_detector_of_the_same_wire() -> None:
    tools = [Tool(**t) for t in TOOLS]
    ours = FunctionCallParser(tools, "streamcall_hermes").get_structure_constraint("required")
    theirs = FunctionCallParser(tools, "hermes").get_structure_constraint("required")
    assert ours is not None and theirs is not None
    assert ours[0] == theirs[0] == "structural_tag"
    assert ours[1].model_dump() == theirs[1].model_dump()
    # no SGLang detector reads Granite 4's wire: SGLang's JSON-schema constraint (and its
    # JSON-array parser) instead of a structural tag
    refused = FunctionCallParser(tools, "streamcall_granite4")
    assert not refused.owns_tool_format()
    constraint = refused.get_structure_constraint("required")
    assert constraint is not None and constraint[0] == "json_schema"
