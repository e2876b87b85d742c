"""The SGLang plugin's pure layer and the SGLang name aliases, without SGLang.

``ToolStream`` and ``ReasoningStream`` are what the detectors registered in SGLang call;
``streamcall.aliases`` maps SGLang 0.5.23's parser names (recorded below from its
``function_call/parser_names.py`` and ``parser/reasoning_parser_names.py``; the live
registries are checked in ``test_sglang_real.py``, inside SGLang).
"""

from __future__ import annotations

import importlib.util
import itertools
import json
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

import streamcall
from sglang_fixtures import assert_each_name_listed_once
from streamcall.aliases import (
    ALIASES,
    REASONING_ALIASES,
    SGLANG_DIFFERENT,
    SGLANG_REASONING,
    SGLANG_TOOL,
)
from streamcall.formats.registry import formats, parse_tool_calls
from streamcall.integrations.sglang import (
    ReasoningStream,
    ToolStream,
    reasoning_default,
    register,
    routed_format,
    same_wire_sglang_name,
)
from streamcall.reasoning import reasoning_formats, reasoning_parser

SGLANG_0_5_23_TOOL = [
    "apertus2509",
    "beam",
    "cohere_command4",
    "deepseekv3",
    "deepseekv31",
    "deepseekv32",
    "deepseekv4",
    "deepseekv41",
    "dots",
    "glm",
    "glm45",
    "glm47",
    "gpt-oss",
    "k2_horizon",
    "kimi_k2",
    "kimi_k3",
    "lfm2",
    "ling3",
    "llama3",
    "mimo",
    "minicpm5",
    "mistral",
    "muse",
    "poolside_v1",
    "pythonic",
    "qwen",
    "qwen25",
    "qwen3_coder",
    "spark25",
    "step3",
    "step3p5",
    "minimax-m2",
    "minimax-m3",
    "nanbeige",
    "trinity",
    "interns1",
    "hermes",
    "hunyuan",
    "gigachat3",
    "gigachat35",
    "gemma4",
    "inkling",
    "iquest_q1",
    "response_template",
]
SGLANG_0_5_23_REASONING = [
    "apertus2509",
    "beam",
    "deepseek-r1",
    "deepseek-v3",
    "deepseek-v4",
    "deepseek-v41",
    "dots",
    "glm45",
    "ling3",
    "hunyuan",
    "gpt-oss",
    "k2_horizon",
    "kimi",
    "kimi_k2",
    "kimi_k3",
    "mimo",
    "muse",
    "poolside_v1",
    "qwen3",
    "qwen3-thinking",
    "minimax",
    "minimax-append-think",
    "minimax-m3",
    "nanbeige",
    "step3",
    "step3p5",
    "mistral",
    "nemotron_3",
    "granite_thinking_parser",
    "interns1",
    "gemma4",
    "inkling",
    "iquest_q1",
    "cohere_command4",
    "gigachat35",
    "response_template",
]
TEMPLATE_FORMATS = ("hf", "beam")
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]
HERMES = (
    'Sure. <tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    '\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'
)


def test_every_sglang_name_is_in_exactly_one_table() -> None:
    assert (len(SGLANG_0_5_23_TOOL), len(SGLANG_0_5_23_REASONING)) == (44, 36)
    for kind, names, table in (
        ("tool", SGLANG_0_5_23_TOOL, SGLANG_TOOL),
        ("reasoning", SGLANG_0_5_23_REASONING, SGLANG_REASONING),
    ):
        assert_each_name_listed_once(kind, names, table)
        assert set(table) <= set(names)  # nothing recorded that SGLang does not have


def test_every_alias_names_a_format_and_parses_with_it() -> None:
    tool_formats = {*formats(), *TEMPLATE_FORMATS}
    for name, fmt in SGLANG_TOOL.items():
        assert fmt in tool_formats, name
    for name, (fmt, _) in SGLANG_REASONING.items():
        assert fmt in {*reasoning_formats(), *TEMPLATE_FORMATS}, name
    # the aliases do not shadow a streamcall name with another meaning
    assert not set(ALIASES) & set(formats())
    assert not {n for n, (f, _) in REASONING_ALIASES.items() if n != f} & set(reasoning_formats())
    for kind, name in SGLANG_DIFFERENT:
        assert name in (formats() if kind == "tool" else reasoning_formats())


@pytest.mark.parametrize(
    ("alias", "fmt"), [("qwen25", "hermes"), ("qwen", "hermes"), ("trinity", "hermes")]
)
def test_an_alias_parses_as_its_format(alias: str, fmt: str) -> None:
    assert parse_tool_calls(HERMES, alias) == parse_tool_calls(HERMES, fmt)
    assert type(streamcall.tool_parser(alias)) is type(streamcall.tool_parser(fmt))


def test_sglang_spellings_work_everywhere_a_format_name_does() -> None:
    assert type(streamcall.tool_parser("deepseekv3")).__name__ == "DeepSeekV3Parser"
    assert type(streamcall.tool_parser("llama3")) is type(streamcall.tool_parser("llama3_json"))
    assert type(streamcall.tool_parser("gpt-oss")) is type(streamcall.tool_parser("openai"))


@pytest.mark.parametrize(
    ("alias", "text", "want"),
    [
        # forced on, as SGLang forces these names: the output starts inside reasoning
        ("qwen3-thinking", "I think</think>The answer.", ("I think", "The answer.")),
        ("minimax", "I think</think>The answer.", ("I think", "The answer.")),
        ("kimi", "◁think▷I think◁/think▷The answer.", ("I think", "The answer.")),
        ("nemotron_3", "I think</think>The answer.", ("I think", "The answer.")),
        ("iquest_q1", "I think</think>The answer.", ("I think", "The answer.")),
        ("deepseek-r1", "I think</think>The answer.", ("I think", "The answer.")),
    ],
)
def test_reasoning_aliases(alias: str, text: str, want: tuple[str, str]) -> None:
    stream = ReasoningStream(alias)
    assert stream.extract(text) == want


def test_iquest_q1_thinking_off_starts_outside_reasoning() -> None:
    parser = reasoning_parser("iquest_q1", prompt_opened=False)
    events = parser.feed("The answer.") + parser.finish()
    assert "".join(e.text for e in events) == "The answer."
    assert streamcall.reasoning_format_for_model("IQuest/IQuest-Q1-40B") == "iquest_q1"


# --- ToolStream: what the SGLang detector hands SGLang -----------------------------------


def fold(pieces: list[tuple[str, list[tuple[int, str | None, str]]]]) -> tuple[str, list]:
    content = "".join(p[0] for p in pieces)
    calls: dict[int, list[str]] = {}
    for _, items in pieces:
        for index, name, params in items:
            if name is not None:
                assert index not in calls, "a name sent twice"
                calls[index] = [name, ""]
            calls[index][1] += params
    return content, [(n, json.loads(a)) for _, (n, a) in sorted(calls.items())]


@given(cuts=st.lists(st.integers(min_value=1, max_value=len(HERMES)), max_size=12))
def test_streaming_in_any_chunking_equals_the_one_shot_result(cuts: list[int]) -> None:
    bounds = [0, *sorted(set(cuts)), len(HERMES)]
    stream = ToolStream("hermes")
    pieces = [stream.increment(HERMES[a:b], TOOLS) for a, b in itertools.pairwise(bounds)]
    pieces.append(stream.finish(TOOLS))
    content, calls = stream.extract(HERMES, TOOLS)
    assert fold(pieces) == (content, [(n, json.loads(p)) for _, n, p in calls])
    adapter = stream.adapter
    assert adapter is not None
    # what SGLang's _check_for_unstreamed_tool_args compares: nothing left to send
    assert [c["arguments"] for c in adapter.prev_tool_call_arr] == adapter.streamed_args_for_tool
    assert adapter.current_tool_id == 1 and not adapter.incomplete_tool_call_indices


def test_a_call_cut_off_is_closed_and_marked_incomplete() -> None:
    stream = ToolStream("hermes")
    cut = HERMES[: HERMES.index("Paris") + 2]
    pieces = [stream.increment(cut, TOOLS), stream.finish(TOOLS)]
    content, calls = fold(pieces)
    assert content == "Sure. " and calls == [("get_weather", {"city": "Pa"})]
    adapter = stream.adapter
    assert adapter is not None and adapter.incomplete_tool_call_indices == {0}
    assert adapter.prev_tool_call_arr[0]["arguments"] == adapter.streamed_args_for_tool[0]


def test_has_call_and_malformed_output_as_text() -> None:
    stream = ToolStream("hermes")
    assert stream.has_call(HERMES)
    broken = "<tool_call>\n{not json at all\n</tool_call> bye"
    assert not stream.has_call(broken)
    assert stream.extract(broken, TOOLS) == (broken, [])


def test_stream_reasoning_off_sends_reasoning_whole_when_the_answer_starts() -> None:
    stream = ReasoningStream("qwen3", prompt_opened=True, stream_reasoning=False)
    assert stream.increment("I th") == ("", "")
    assert stream.increment("ink</thi") == ("", "")
    assert stream.increment("nk>The answer.") == ("I think", "The answer.")
    cut = ReasoningStream("qwen3", prompt_opened=True, stream_reasoning=False)
    assert cut.increment("I think") == ("", "")
    assert cut.finish() == ("I think", "")


@pytest.mark.parametrize(
    ("fmt", "mode"),
    [
        ("qwen3", "enable_thinking"),  # on unless the request turns it off
        ("deepseek_v3", "explicit_enable_thinking"),  # off unless turned on
        ("deepseek_r1", "always"),  # the template always opens it
        ("glm45", None),  # the model writes <think> itself
        ("openai_gptoss", None),  # Harmony: its own parser decides
    ],
)
def test_reasoning_default_follows_streamcalls_switches(fmt: str, mode: str | None) -> None:
    assert reasoning_default(fmt) == mode


def test_structural_tags_come_from_sglangs_detector_of_the_same_wire() -> None:
    assert same_wire_sglang_name("hermes") == "hermes"
    assert same_wire_sglang_name("llama3_json") == "llama3"
    assert same_wire_sglang_name("deepseek_v3") == "deepseekv3"
    assert same_wire_sglang_name("granite4") is None  # SGLang has none: refused


def test_the_routing_parser_reads_template_then_model_id_then_sniffs() -> None:
    assert routed_format(SimpleNamespace(name_or_path="Qwen/Qwen3-Coder-30B-A3B")) == (
        "qwen3_coder",
        None,
    )
    assert routed_format(SimpleNamespace(name_or_path="/models/my-finetune")) == ("auto", None)


@pytest.mark.skipif(
    importlib.util.find_spec("sglang") is not None, reason="SGLang is installed here"
)
def test_register_without_sglang_raises_import_error() -> None:
    with pytest.raises(ImportError):
        register()
