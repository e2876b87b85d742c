"""A call cut off is incomplete, in every format.

The rule (README, "Malformed output and the end of the stream"): a call is complete only
when the markup that ends it was seen: its format's closer (``</tool_call>``,
``</function>``, ``<|tool_call_end|>``, ...), or, where one block lists several calls
(a JSON array, a pythonic list), the separator before the next call or the list's own end
where the format has no closer after it. A format whose grammar has no closer (Mistral
v11, Llama 3 JSON, ...), or whose closer is the stop token that servers strip (Harmony's
``<|call|>``, GigaChat's ``</s>``), ends a call with its value: the value closing is the
call's end, since whatever follows (another call, text, the end of the stream) cannot
belong to it.

Each format's own ``render`` writes two calls; every prefix of that text is parsed as a
whole stream (through ``check_format``: whole, 1-char and 7-char chunkings agree), and the
calls reported complete must be exactly those whose closer the prefix holds whole:
``CLOSERS`` says, per format, what text the first prefix in which each call is complete
ends with. A new format must say it here.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcall import formats, testing
from streamcall.formats.registry import parser_class
from support import check_format, summary

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_weather", {"city": "Oslo", "days": 2}),
    ("get_time", {"tz": "UTC"}),
]

_DSML = ("invoke>", "invoke>")
_FUNCTION = ("</function>", "</function>")
# What the first prefix in which the first and the second call are complete ends with.
CLOSERS: dict[str, tuple[str, str]] = {
    # JSON calls: the block's closer; in a list, the separator before the next call
    "apertus": (",", "<|tools_suffix|>"),
    "cohere_command3": (",", "<|END_ACTION|>"),
    "cohere_command4": (",", "<|END_ACTION|>"),
    "ernie45": ("</tool_call>", "</tool_call>"),
    "granite4": ("</tool_call>", "</tool_call>"),
    "hermes": ("</tool_call>", "</tool_call>"),
    "qwen3_json": ("</tool_call>", "</tool_call>"),
    "ripple": ("</tool_call>", "</tool_call>"),
    "hunyuan_a13b": (",", "</tool_calls>"),
    "jamba": (",", "</tool_calls>"),
    "internlm": ("<|action_end|>", "<|action_end|>"),
    "longcat": ("</longcat_tool_call>", "</longcat_tool_call>"),
    "minimax": ("{", "</tool_calls>"),  # one call per line: the next call's '{'
    "xlam": (",", "```"),
    "nemotron_toolcall": (",", "</TOOLCALL>"),
    "generic_json": (",", "]"),  # a list in the envelope: its ',' and its ']'
    # JSON lists with no closer after them: the list's ']'
    "granite": (",", "]"),
    "phi4_mini_json": (",", "]"),
    # no closer: the call's value
    "granite-20b-fc": ("}", "}"),
    "llama3_json": ("}", "}"),
    "llama4_json": ("}", "}"),
    "mistral": ("}", "}"),
    "gigachat3": ("}", "}"),  # its closer </s> is the stop token
    "openai": ("}", "}"),  # its closer <|call|> is the stop token
    "inkling": ("}", "}"),  # its closer may be <|content_model_end_sampling|>, the stop token
    "functionary_v3_2": ("}", "}"),
    "plamo3": ("}", "}"),  # the reference treats every closer as optional
    # a header, JSON arguments, a closer
    "deepseek_v3": ("<｜tool▁call▁end｜>", "<｜tool▁call▁end｜>"),
    "deepseek_v31": ("<｜tool▁call▁end｜>", "<｜tool▁call▁end｜>"),
    "kimi_k2": ("<|tool_call_end|>", "<|tool_call_end|>"),
    "solar_open": ("<|tool_call:end|>", "<|tool_call:end|>"),
    "functionary_v3_1": _FUNCTION,
    "gemma4": ("<tool_call|>", "<tool_call|>"),
    "functiongemma": ("<end_function_call>", "<end_function_call>"),
    # XML parameters: the call's closer
    "deepseek_v32": _DSML,
    "deepseek_v4": _DSML,
    "deepseek_v41": _DSML,
    "gigachat35": _DSML,
    "kimi_k3": ("<|close|>call<|sep|>", "<|close|>call<|sep|>"),
    "dots": ("</invoke>", "</invoke>"),
    "glm45": ("</tool_call>", "</tool_call>"),
    "glm47": ("</tool_call>", "</tool_call>"),
    "poolside_v1": ("</tool_call>", "</tool_call>"),
    "ling3": ("</tool_call>", "</tool_call>"),
    "iquest_q1": ("</iquest_tool_call>", "</iquest_tool_call>"),
    "k2_horizon": ("</ifm|tool_call>", "</ifm|tool_call>"),
    "telechat4": ("</tool_call>", "</tool_call>"),
    "xingchen4": ("</tool_call>", "</tool_call>"),
    "xing4_0": ("</tool_call>", "</tool_call>"),
    "hy_v3": ("</tool_call>", "</tool_call>"),
    "hy_v4": ("</tool_call>", "</tool_call>"),
    "mimo": _FUNCTION,
    "qwen3_coder": _FUNCTION,
    "qwen3_xml": _FUNCTION,
    "step3p5": _FUNCTION,
    "step5": _FUNCTION,
    "granite_toolcall_parser": _FUNCTION,
    "zaya": _FUNCTION,
    "zaya_xml": _FUNCTION,
    "seed_oss": _FUNCTION,
    "minicpm5": _FUNCTION,
    "minimax_m2": ("</invoke>", "</invoke>"),
    "minimax_m3": ("</invoke>", "</invoke>"),
    "muse": ("</atem:invoke>", "</atem:invoke>"),
    "musespark": ("</atem:invoke>", "</atem:invoke>"),
    "musespark1x": ("</atem:invoke>", "</atem:invoke>"),
    "muse_glimmer": ("</atem:invoke>", "</atem:invoke>"),
    "step3": ("</steptml:invoke>", "</steptml:invoke>"),
    # pythonic: the separator, the next call, the list's end or the block's closer
    "pythonic": (",", "]"),
    "llama4_pythonic": (",", "]"),  # <|python_end|> may be left out after the list
    "lfm2": (",", "<|tool_call_end|>"),
    "olmo3": ("get_time(", "</function_calls>"),  # one call per line: the next call
    # issue 46's new names
    "solar_open2": ("<|tool_call:end|>", "<|tool_call:end|>"),
    "spark3": ("</tool_call>", "</tool_call>"),
    "spark": ("</tool_call>", "</tool_call>"),
    "berrylm": _FUNCTION,
    "kolibri1": ("</tool_call>", "</tool_call>"),
    "command_r_plus": (",", "```"),
}


def test_every_format_states_its_closers() -> None:
    assert sorted(CLOSERS) == formats()


def _complete_from(fmt: str, text: str) -> list[int]:
    """For each call of the whole text: the length of the first prefix in which it is
    reported complete (every prefix is checked in every fixed chunking)."""
    first: list[int | None] = [None] * len(CALLS)
    for end in range(len(text) + 1):
        items = check_format(fmt, text[:end])
        calls = [v for k, v in items if isinstance(v, testing.Call)]
        for i, call in enumerate(calls):
            assert i < len(CALLS) and call.name == CALLS[i][0], (end, calls)
            if call.incomplete:
                assert first[i] is None, f"call {i} complete at {first[i]}, not at {end}"
            elif first[i] is None:
                first[i] = end
        for i in range(len(calls), len(CALLS)):
            assert first[i] is None, f"call {i} complete at {first[i]}, gone at {end}"
    assert all(f is not None for f in first), first
    return [f for f in first if f is not None]


@pytest.mark.parametrize("fmt", sorted(CLOSERS))
def test_a_call_is_complete_only_once_its_closer_is_seen(fmt: str) -> None:
    text = parser_class(fmt).render(CALLS)
    firsts = _complete_from(fmt, text)
    for call, (end, closer) in enumerate(zip(firsts, CLOSERS[fmt], strict=True)):
        assert text[:end].endswith(closer), (call, text[:end][-40:], closer)
    assert firsts[0] < firsts[1]


@pytest.mark.parametrize("fmt", sorted(CLOSERS))
@settings(max_examples=25)
@given(data=st.data())
def test_a_cut_call_is_incomplete_in_random_chunkings(fmt: str, data: st.DataObject) -> None:
    text = parser_class(fmt).render(CALLS)
    end = data.draw(st.integers(0, len(text)))
    items = check_format(fmt, text[:end], data)
    flags = [v.incomplete for k, v in items if isinstance(v, testing.Call)]
    assert flags == sorted(flags)  # complete calls first, then at most the cut one
    assert flags.count(True) <= 1


def _calls(items: list[testing.Item]) -> list[tuple[str, dict[str, Any], bool]]:
    return [
        (v.name, json.loads(v.arguments), v.incomplete)
        for k, v in items
        if isinstance(v, testing.Call)
    ]


# Cases the rendered text does not reach: arguments that closed before the call's own
# markup did, junk where the closer belongs, and the formats with no closer.
CUT_CASES: list[tuple[str, str, list[tuple[str, dict[str, Any], bool]], str]] = [
    # the arguments closed, the block's closer never came (the issue's case)
    ("hermes", '<tool_call>\n{"name": "f", "arguments": {"a": 1}}', [("f", {"a": 1}, True)], ""),
    ("hermes", '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n', [("f", {"a": 1}, True)],
     ""),
    ("hermes", '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_', [("f", {"a": 1}, True)],
     "</tool_"),
    ("granite4", '<tool_call> {"name": "f", "arguments": "{\\"a\\": 1}"} ',
     [("f", {"a": 1}, True)], ""),
    ("granite4", '<tool_call> {"name": "f", "arguments": "{\\"a\\": 1}"', [("f", {"a": 1}, True)],
     ""),
    # the call object itself not closed
    ("hermes", '<tool_call>{"name": "f", "arguments": {"a": 1}', [("f", {"a": 1}, True)], ""),
    ("hermes", '<tool_call>{"arguments": {"a": 1}, "name": "f"', [("f", {"a": 1}, True)], ""),
    # junk where the closer belongs: incomplete, the junk is text
    ("hermes", '<tool_call>{"name": "f", "arguments": {}} oops', [("f", {}, True)], " oops"),
    ("cohere_command3", '<|START_ACTION|>[{"tool_name": "f", "parameters": {}}] x',
     [("f", {}, True)], " x"),
    # a list closed, the block's closer not come
    ("jamba", '<tool_calls>[{"name": "f", "arguments": {}}]', [("f", {}, True)], ""),
    ("lfm2", "<|tool_call_start|>[f(a=1)]", [("f", {"a": 1}, True)], ""),
    ("lfm2", "<|tool_call_start|>[f(a=1)] x", [("f", {"a": 1}, True)], " x"),
    ("olmo3", "<function_calls>f(a=1)", [("f", {"a": 1}, True)], ""),
    ("olmo3", "<function_calls>f(a=1)\nnot a call", [("f", {"a": 1}, True)], "\nnot a call"),
    ("pythonic", "[f(a=1)", [("f", {"a": 1}, True)], ""),
    ("pythonic", "[f(a=1), g(", [("f", {"a": 1}, False), ("g", {}, True)], ""),
    ("llama4_pythonic", "<|python_start|>f(a=1)", [("f", {"a": 1}, True)], ""),
    ("llama4_pythonic", "<|python_start|>f(a=1)<|python_end|>", [("f", {"a": 1}, False)], ""),
    ("llama4_pythonic", "[f(a=1)]", [("f", {"a": 1}, False)], ""),
    ("phi4_mini_json", 'functools[{"name": "f", "arguments": {}}', [("f", {}, True)], ""),
    ("mistral", '[TOOL_CALLS] [{"name": "f", "arguments": {}}', [("f", {}, True)], ""),
    ("mistral", '[TOOL_CALLS] [{"name": "f", "arguments": {}}]', [("f", {}, False)], ""),
    ("xlam", '```json\n[{"name": "f", "arguments": {}}]\n', [("f", {}, True)], ""),
    ("xlam", '[{"name": "f", "arguments": {}}]', [("f", {}, False)], ""),
    # header formats: the call's closer, or the section's, ends it; nothing else does
    ("kimi_k2", '<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0'
     '<|tool_call_argument_begin|>{"a": 1}', [("f", {"a": 1}, True)], ""),
    ("kimi_k2", '<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0'
     '<|tool_call_argument_begin|>{"a": 1}<|tool_calls_section_end|>',
     [("f", {"a": 1}, False)], ""),
    ("kimi_k2", '<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0'
     '<|tool_call_argument_begin|>{"a": 1}<|tool_call_begin|>functions.g:1'
     '<|tool_call_argument_begin|>{}<|tool_call_end|>',
     [("f", {"a": 1}, True), ("g", {}, False)], ""),
    ("deepseek_v3", '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n'
     '```json\n{"a": 1}\n```', [("f", {"a": 1}, True)], ""),
    ("deepseek_v31", '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1} junk',
     [("f", {"a": 1}, True)], " junk"),
    ("gemma4", '<|tool_call>call:f{a:1}', [("f", {"a": 1}, True)], ""),
    ("gemma4", '<|tool_call>call:f{a:1} and', [("f", {"a": 1}, True)], " and"),
    ("functiongemma", "<start_function_call>call:f{a:1}<end_function",
     [("f", {"a": 1}, True)], "<end_function"),
    # XML: the parameters closed, the call's closer not come
    ("qwen3_coder", "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n",
     [("f", {"a": 1}, True)], ""),
    ("qwen3_coder", "<tool_call>\n<function=f>\n</function>", [("f", {}, False)], ""),
    # no closer in the grammar: the value's end is the call's, whatever follows
    ("mistral", '[TOOL_CALLS]f[ARGS]{"a": 1}', [("f", {"a": 1}, False)], ""),
    ("mistral", '[TOOL_CALLS]f[ARGS]{"a": 1} done', [("f", {"a": 1}, False)], " done"),
    ("mistral", '[TOOL_CALLS]f[ARGS]{"a": 1', [("f", {"a": 1}, True)], ""),
    ("llama3_json", '{"name": "f", "parameters": {"a": 1}}', [("f", {"a": 1}, False)], ""),
    ("llama3_json", '{"name": "f", "parameters": {"a": 1}} ok', [("f", {"a": 1}, False)], " ok"),
    ("llama3_json", '{"name": "f", "parameters": {"a": 1}', [("f", {"a": 1}, True)], ""),
    ("llama3_json", '{"name": "f", "parameters": {}}; {"name": "g", "parameters": {}',
     [("f", {}, False), ("g", {}, True)], ""),
    ("granite-20b-fc", '<function_call> {"name": "f", "arguments": {}}', [("f", {}, False)],
     ""),
    ("granite-20b-fc", '<function_call> {"name": "f", "arguments": {}', [("f", {}, True)], ""),
    ("granite", '<|tool_call|>{"name": "f", "arguments": {}}', [("f", {}, False)], ""),
    ("granite", '<|tool_call|>[{"name": "f", "arguments": {}}', [("f", {}, True)], ""),
    ("gigachat3", '<|function_call|>{"name": "f", "arguments": {}}', [("f", {}, False)], ""),
    ("gigachat3", '<|function_call|>{"name": "f", "arguments": {}}</s>', [("f", {}, False)], ""),
    ("gigachat3", '<|function_call|>{"name": "f", "arguments": {}', [("f", {}, True)], ""),
    ("openai", '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1}',
     [("f", {"a": 1}, False)], ""),
    ("openai", '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1',
     [("f", {"a": 1}, True)], ""),
    # Muse: the invoke's closer ends the call; a message's end before it leaves it cut
    ("muse", '<|start|>assistant to=f<|message|><atem:invoke name="f"><atem:parameter '
     'name="a">1</atem:parameter><|eom|>', [("f", {"a": 1}, True)], ""),
    ("muse_glimmer", '<|start|>assistant to=f<|message|><atem:function_calls><atem:invoke '
     'name="f"></atem:invoke>', [("f", {}, False)], ""),
    ("muse", ' to=f<|message|><atem:invoke name="f"><atem:parameter name="a">x<|start|>'
     'assistant to=user<|message|>ok', [("f", {"a": "x"}, True)], "ok"),
]  # fmt: skip


@pytest.mark.parametrize(("fmt", "text", "calls", "content"), CUT_CASES)
@given(data=st.data())
def test_cut_and_closer_less_cases(
    fmt: str,
    text: str,
    calls: list[tuple[str, dict[str, Any], bool]],
    content: str,
    data: st.DataObject,
) -> None:
    items = check_format(fmt, text, data)
    assert _calls(items) == calls
    assert summary(items)[0] == content
