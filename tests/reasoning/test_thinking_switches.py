"""The request's thinking switches decide where reasoning stands when the output starts.

Each reasoning format with a switch is tested with it on, off and absent, through
``output_parser(request=...)`` in every chunking: "off" makes a plain answer content (the
Qwen3 bug: ``enable_thinking: false`` gave the whole answer as reasoning), "on" makes an
answer without a start marker reasoning where the template pre-fills the marker, and
nothing said keeps the format's default. The members each format reads are vLLM 0.33's
(``vllm/parser/*.py``, ``vllm/reasoning/*.py``).
"""

from __future__ import annotations

from typing import Any

import pytest
from _reasoning_check import check_output, split
from hypothesis import given
from hypothesis import strategies as st

from streamcall import output_parser, parse_output, prompt_opened_for, thinking_requested
from streamcall.reasoning import reasoning_formats, reasoning_spec
from streamcall.reasoning.switches import SWITCHES

ANSWER = "Hello! How can I help?"


def _ctk(**kwargs: Any) -> dict[str, Any]:
    return {"chat_template_kwargs": kwargs}


# (format, a request that turns thinking off, a request that turns it on)
OFF_ON = [
    ("qwen3", _ctk(enable_thinking=False), _ctk(enable_thinking=True)),
    ("mimo", _ctk(enable_thinking=False), _ctk(enable_thinking=True)),
    ("nemotron_v3", _ctk(enable_thinking=False), _ctk(enable_thinking=True)),
    ("deepseek_v3", _ctk(thinking=False), _ctk(thinking=True)),
    ("deepseek_v3", _ctk(enable_thinking=False), _ctk(enable_thinking=True)),
    ("deepseek_v4", _ctk(thinking=False), _ctk(thinking=True)),
    ("deepseek_v4", {"reasoning_effort": "none"}, {"reasoning_effort": "high"}),
    ("deepseek_v41", _ctk(reasoning_effort="none"), _ctk(thinking=True)),
    ("kimi_k2", _ctk(thinking=False), _ctk(thinking=True)),
    ("holo2", _ctk(enable_thinking=False), _ctk(enable_thinking=True)),
    ("hy_v3", _ctk(reasoning_effort="no_think"), _ctk(reasoning_effort="high")),
    ("hy_v4", {"reasoning_effort": "no_think"}, {"reasoning_effort": "low"}),
    ("minimax_m3", _ctk(thinking_mode="disabled"), _ctk(thinking_mode="enabled")),
    ("minicpmv", _ctk(enable_thinking=False), _ctk(enable_thinking=True)),
    ("granite_thinking_parser", _ctk(enable_thinking=False), _ctk(enable_thinking=True)),
    ("cohere_command4", _ctk(reasoning=False), _ctk(reasoning=True)),
    ("cohere_command4", {"reasoning_effort": "none"}, {"reasoning_effort": "high"}),
    ("ling3", _ctk(enable_thinking=False), _ctk(enable_thinking=True)),
    ("ling3", _ctk(thinking=False), _ctk(thinking=True)),
    ("telechat4", _ctk(enable_thinking=False), _ctk(enable_thinking=True)),
    ("xingchen4", _ctk(thinking=False), _ctk(thinking=True)),
    ("xing4_0", _ctk(enable_thinking=False), _ctk(enable_thinking=True)),
]


@pytest.mark.parametrize(("fmt", "off", "on"), OFF_ON)
@given(data=st.data())
def test_off_is_content_and_on_is_reasoning(
    fmt: str, off: dict[str, Any], on: dict[str, Any], data: st.DataObject
) -> None:
    items = check_output(ANSWER, data, reasoning_format=fmt, tool_format="none", request=off)
    assert split(items) == ("", ANSWER)
    items = check_output(ANSWER, data, reasoning_format=fmt, tool_format="none", request=on)
    assert split(items) == (ANSWER, "")


@pytest.mark.parametrize(("fmt", "off", "on"), OFF_ON)
def test_a_start_marker_written_by_the_model_still_opens_reasoning(
    fmt: str, off: dict[str, Any], on: dict[str, Any]
) -> None:
    spec = reasoning_spec(fmt)
    assert spec is not None
    text = f"{spec.start[0]}plan{spec.end[0]}{ANSWER}"
    for request in (off, on, None):
        parsed = parse_output(text, reasoning_format=fmt, tool_format="none", request=request)
        assert (parsed.reasoning, parsed.content) == ("plan", ANSWER), request


@pytest.mark.parametrize("fmt", sorted(SWITCHES))
def test_nothing_said_keeps_the_format_default(fmt: str) -> None:
    spec = reasoning_spec(fmt)
    assert spec is not None
    for request in (None, {}, {"chat_template_kwargs": {}}, {"model": "x", "messages": []}):
        assert prompt_opened_for(fmt, request) is None
    parsed = parse_output(ANSWER, reasoning_format=fmt, tool_format="none", request={})
    expected = (ANSWER, "") if spec.opened else ("", ANSWER)
    assert (parsed.reasoning, parsed.content) == expected


@pytest.mark.parametrize("fmt", ["gemma4", "glm45", "glm47", "hunyuan_a13b", "granite"])
def test_on_leaves_formats_whose_model_writes_the_marker_alone(fmt: str) -> None:
    # Gemma 4 writes <|channel>, GLM-4.5 its own <think>: "on" does not pre-open them.
    switch = SWITCHES[fmt]
    request = _ctk(**{switch.keys[0]: True})
    assert prompt_opened_for(fmt, request) is None
    request = _ctk(**{switch.keys[0]: False})
    assert prompt_opened_for(fmt, request) is False


def test_qwen3_model_id_with_thinking_off_gives_content() -> None:
    # The case: Qwen/Qwen3-8B, enable_thinking false, a plain answer.
    request = _ctk(enable_thinking=False)
    p = output_parser("Qwen/Qwen3-8B", request=request)
    events = p.feed("Hello!") + p.finish()
    assert [type(e).__name__ for e in events] == ["Text"]
    parsed = parse_output("Hello!", "Qwen/Qwen3-8B")
    assert (parsed.reasoning, parsed.content) == ("Hello!", "")


def test_explicit_thinking_wins_over_the_request() -> None:
    request = _ctk(enable_thinking=True)
    assert prompt_opened_for("qwen3", request, thinking=False) is False
    assert prompt_opened_for("qwen3", _ctk(enable_thinking=False), thinking=True) is True
    # A format with no switch: "off" starts outside reasoning, "on" keeps its default.
    assert prompt_opened_for("deepseek_r1", None, thinking=False) is False
    assert prompt_opened_for("deepseek_r1", None, thinking=True) is None
    assert prompt_opened_for("deepseek_r1", _ctk(enable_thinking=False)) is None
    assert prompt_opened_for(None, request) is None


def test_explicit_prompt_opened_wins_over_everything() -> None:
    parsed = parse_output(
        ANSWER,
        reasoning_format="qwen3",
        tool_format="none",
        prompt_opened=True,
        request=_ctk(enable_thinking=False),
    )
    assert parsed.reasoning == ANSWER


@pytest.mark.parametrize(
    ("request_body", "expected"),
    [
        (None, None),
        ({}, None),
        (_ctk(enable_thinking=True), True),
        (_ctk(enable_thinking=False), False),
        (_ctk(thinking=False, enable_thinking=True), True),  # either one on: on (vLLM)
        (_ctk(thinking=False, enable_thinking=False), False),
        (_ctk(enable_thinking="false"), False),
        (_ctk(enable_thinking="true"), True),
        (_ctk(thinking={"type": "disabled"}), False),
        (_ctk(enable_thinking=None), None),
        (_ctk(reasoning_effort="none"), False),
        ({"reasoning_effort": "no_think"}, False),
        ({"reasoning_effort": "medium"}, True),
        ({"chat_template_kwargs": "not an object", "reasoning_effort": "low"}, True),
        # chat_template_kwargs' effort is read before the request's own member.
        ({"chat_template_kwargs": {"reasoning_effort": "none"}, "reasoning_effort": "high"}, False),
    ],
)
def test_thinking_requested(request_body: dict[str, Any] | None, expected: bool | None) -> None:
    assert thinking_requested(request_body) is expected


def test_every_switch_names_a_registered_reasoning_format() -> None:
    assert set(SWITCHES) <= set(reasoning_formats())
