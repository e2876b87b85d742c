"""The reasoning engine: hold-back at every split, fuzzed invariance, bounded tails,
routing, prompt_opened, and gpt-oss Harmony."""

from __future__ import annotations

import pytest
from _reasoning_check import check_reasoning, split
from hypothesis import given
from hypothesis import strategies as st

from streamcall import (
    Reasoning,
    Text,
    reasoning_format_for_model,
    reasoning_formats,
    reasoning_parser,
    testing,
)
from streamcall.reasoning import reasoning_spec
from streamcall.reasoning._engine import MarkerReasoningParser
from support import random_chunkings

ALL = reasoning_formats()


def _markers(name: str) -> list[str]:
    spec = reasoning_spec(name)
    if spec is None:
        if name == "openai_gptoss":
            return [
                "<|start|>assistant",
                "<|channel|>analysis",
                "<|channel|>final",
                "<|channel|>commentary to=functions.f ",
                "<|constrain|>json",
                "<|message|>",
                "<|end|>",
                "<|call|>",
                "<|return|>",
            ]
        if name in ("muse", "musespark", "musespark1x", "muse_glimmer"):
            return [
                "<|start|>assistant",
                " to=self",
                " to=user",
                " to=f",
                "<|message|>",
                "<atem:function_calls>",
                "<|eom|>",
                "<|eot|>",
            ]
        return ["<think>", "</think>"]
    return [
        *spec.start,
        spec.start_prefix,
        *spec.end,
        *spec.implicit_end,
        *spec.text_drop,
        *spec.drop,
        *(m for span in spec.pass_through for m in span),
        "\n<function=f>",
        "{",
    ]


def test_formats_listed() -> None:
    for name in (
        "deepseek_r1", "deepseek_v3", "qwen3", "granite", "gemma4", "mistral", "seed_oss",
        "cohere_command3", "cohere_command4", "ernie45", "hunyuan_a13b", "kimi_k2",
        "minimax_m2", "minimax_m2_append_think", "glm45", "olmo3", "step3", "nemotron_v3",
        "openai_gptoss", "identity", "deepseek_v4", "hy_v3", "poolside_v1", "holo2", "mimo",
        "step3p5", "minimax_m3", "kimi_vl", "apertus", "apriel", "minicpmv",
        "granite_thinking_parser",
    ):  # fmt: skip
        assert name in ALL
    with pytest.raises(ValueError, match="unknown reasoning format"):
        reasoning_parser("nope")


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("opened", [None, True, False])
def test_every_two_piece_split(name: str, opened: bool | None) -> None:
    """All markers of a format in one text, cut at every point: same as whole."""
    marks = [m for m in _markers(name) if m]
    text = "x " + " y ".join(marks) + " z " + " w ".join(reversed(marks)) + " end"
    whole = testing.coalesce(testing.run(reasoning_parser(name, prompt_opened=opened), [text]))
    for cut in range(1, len(text)):
        p = reasoning_parser(name, prompt_opened=opened)
        got = testing.coalesce(testing.run(p, [text[:cut], text[cut:]]))
        assert got == whole, (name, cut)


@pytest.mark.parametrize("name", ALL)
@given(data=st.data())
def test_fuzzed_invariance(name: str, data: st.DataObject) -> None:
    """Random texts built from marker fragments: never raises, nothing lost (for the
    formats that drop no markers), every chunking agrees."""
    marks = [m for m in _markers(name) if m]
    pieces = st.one_of(
        st.sampled_from(marks),
        st.sampled_from(marks).map(lambda m: m[: max(1, len(m) // 2)]),
        st.text(alphabet="ab <>|/\n{", max_size=6),
    )
    text = "".join(data.draw(st.lists(pieces, max_size=12)))
    opened = data.draw(st.sampled_from([None, True, False]))
    items = testing.check_chunkings(
        lambda: reasoning_parser(name, prompt_opened=opened), text, random_chunkings(data, text)
    )
    reasoning, content = split(items)
    assert len(reasoning) + len(content) <= len(text) + len("<think>")


@pytest.mark.parametrize("name", [n for n in ALL if reasoning_spec(n) is not None])
def test_held_tail_is_bounded(name: str) -> None:
    """A long stream in 7-char chunks never holds more than a marker (plus the confirmation
    window): the work per chunk stays proportional to the chunk."""
    spec = reasoning_spec(name)
    assert spec is not None
    spans = [m for span in spec.pass_through for m in span]
    markers = (*spec.start, *spec.end, *spec.implicit_end, *spec.drop, *spans, "x")
    limit = max(len(m) for m in markers)
    limit += spec.implicit_window + len(spec.start_prefix)
    text = ("thinking hard about <tool_call and </thin " * 2000) + spec.end[0] + "answer " * 2000
    p = reasoning_parser(name, prompt_opened=True)
    assert isinstance(p, MarkerReasoningParser)
    total = 0
    for i in range(0, len(text), 7):
        for ev in p.feed(text[i : i + 7]):
            assert isinstance(ev, Text | Reasoning)
            total += len(ev.text)
        assert len(p._tail) <= limit
    for ev in p.finish():
        assert isinstance(ev, Text | Reasoning)
        total += len(ev.text)
    assert total >= len(text) - sum(len(m) for m in (*spec.end, *spec.start)) * 2


def test_end_marker_split_at_every_byte() -> None:
    text = "abc</think>def"
    for cut in range(len(text) + 1):
        p = reasoning_parser("deepseek_r1")
        events = p.feed(text[:cut]) + p.feed(text[cut:]) + p.finish()
        assert split(testing.coalesce(events)) == ("abc", "def")


def test_longer_marker_wins_over_a_prefix_match() -> None:
    # Hunyuan's end marker '\n</think>\n<answer>\n' also starts with '\n</think>'.
    p = reasoning_parser("hunyuan_a13b")
    events = p.feed("<think>\nr\n</think>") + p.feed("\n<answer>\nA") + p.finish()
    assert split(testing.coalesce(events)) == ("r", "A")


@pytest.mark.parametrize(
    ("name", "opened", "text", "expected"),
    [
        ("deepseek_r1", None, "r</think>t", ("r", "t")),
        ("deepseek_r1", False, "r</think>t", ("", "r</think>t")),
        ("deepseek_r1", False, "pre<think>r</think>t", ("r", "pret")),
        ("qwen3", False, "<think>r</think>t", ("r", "t")),
        ("glm45", True, "r</think>t", ("r", "t")),
        ("granite", True, "r Here is my response: t", ("r ", " t")),
        ("mistral", False, "plain", ("", "plain")),
        ("minimax_m2_append_think", False, "r</think>t", ("", "r</think>t")),
    ],
)
def test_prompt_opened(
    name: str, opened: bool | None, text: str, expected: tuple[str, str]
) -> None:
    check_reasoning(name, text, expected[0], expected[1], prompt_opened=opened)


def test_qwen3_tool_call_mention_is_not_an_end() -> None:
    check_reasoning("qwen3", "use <tool_call> tags</think>ok", "use <tool_call> tags", "ok")
    check_reasoning("qwen3", "a <tool_call>" + " " * 40 + "{", "a <tool_call>" + " " * 40 + "{", "")
    check_reasoning("qwen3", "a<tool_call>\n{", "a", "<tool_call>\n{")
    # Cut right after the marker: held until what follows decides.
    p = reasoning_parser("qwen3")
    assert p.feed("a<tool_call>") == [Reasoning("a")]
    assert p.feed("\n") == []
    assert p.feed("<function=f>") == [Text("<tool_call>"), Text("\n<function=f>")]


# --- routing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("deepseek-ai/DeepSeek-R1-0528", "deepseek_r1"),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", "deepseek_r1"),
        ("deepseek-ai/DeepSeek-V3.1", "deepseek_v3"),
        ("Qwen/Qwen3-8B", "qwen3"),
        ("Qwen/Qwen3.5-397B-A17B", "qwen3"),
        ("Qwen/QwQ-32B", "deepseek_r1"),
        ("ibm-granite/granite-3.2-8b-instruct", "granite"),
        ("google/gemma-4-E2B-it", "gemma4"),
        ("mistralai/Magistral-Small-2509", "mistral"),
        ("ByteDance-Seed/Seed-OSS-36B-Instruct", "seed_oss"),
        ("CohereLabs/command-a-reasoning-08-2025", "cohere_command3"),
        ("baidu/ERNIE-4.5-21B-A3B-Thinking", "ernie45"),
        ("tencent/Hunyuan-A13B-Instruct", "hunyuan_a13b"),
        ("moonshotai/Kimi-K2-Thinking", "kimi_k2"),
        ("MiniMaxAI/MiniMax-M2", "minimax_m2"),
        ("zai-org/GLM-4.5", "glm45"),
        ("allenai/Olmo-3-7B-Think", "olmo3"),
        ("stepfun-ai/step3", "step3"),
        ("openai/gpt-oss-120b", "openai_gptoss"),
        ("XiaomiMiMo/MiMo-7B-RL", "mimo"),
    ],
)
def test_routing(model: str, expected: str) -> None:
    assert reasoning_format_for_model(model) == expected
    assert reasoning_format_for_model(model.upper()) == expected


@pytest.mark.parametrize(
    "model",
    [
        "ibm-granite/granite-4.0-h-small",  # Granite 4 does not use the phrases
        "ibm-granite/granite-3.1-8b-instruct",  # nor does 3.1
        "meta-llama/Llama-3.1-8B-Instruct",
        "NousResearch/Hermes-3-Llama-3.1-8B",
        "gpt-4o",
        "google/gemma-3-27b-it",
    ],
)
def test_routing_negative(model: str) -> None:
    assert reasoning_format_for_model(model) is None


def test_routing_non_thinking_models_get_identity() -> None:
    assert reasoning_format_for_model("Qwen/Qwen3-Coder-480B-A35B-Instruct") == "identity"
    assert reasoning_format_for_model("Qwen/Qwen2.5-7B-Instruct") == "identity"


# --- gpt-oss Harmony, text form (cases after vLLM tests/reasoning/test_gptoss_*) -----------

_REASONING_START = "<|channel|>analysis<|message|>"
_CONTENT_START = "<|end|><|start|>assistant<|channel|>final<|message|>"
_COMMENTARY = '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (_REASONING_START + "This is reasoning" + _CONTENT_START + "This is the rest",
         ("This is reasoning", "This is the rest")),
        (_REASONING_START + "This is reasoning<|end|>", ("This is reasoning", "")),
        ("<|start|>assistant" + _REASONING_START + "r<|end|><|start|>assistant<|channel|>final"
         "<|constrain|> JSON <|message|>This is the rest<|return|>", ("r", "This is the rest")),
        (_REASONING_START + "r<|end|>" + _COMMENTARY, ("r", _COMMENTARY)),
        ("plain text", ("", "plain text")),
        ("<|channel|>analysis never ends", ("", "<|channel|>analysis never ends")),
    ],
)  # fmt: skip
@given(data=st.data())
def test_harmony(text: str, expected: tuple[str, str], data: st.DataObject) -> None:
    check_reasoning("openai_gptoss", text, expected[0], expected[1], data)


def test_harmony_prompt_opened() -> None:
    check_reasoning("openai_gptoss", "r<|end|>", "r", "", prompt_opened=True)


def test_append_think_empty_stream_stays_empty() -> None:
    p = reasoning_parser("minimax_m2_append_think")
    assert p.feed("") == [] and p.finish() == []
