"""Cases ported from vLLM's ``tests/reasoning/`` (Apache-2.0, Copyright contributors to
the vLLM project): the strings and expected values are copied, the code is ours.

vLLM runs each case one token per delta, and for some formats its one-shot path disagrees
with its streaming path. streamcall has one implementation, so each case has one answer;
where vLLM's two paths differ we take the streaming one and say so. vLLM's ``None``
("no reasoning", "no content") is ``""`` here. Every case is fed whole, 1 char and 7
chars at a time, and in random chunkings drawn by hypothesis.
"""

from __future__ import annotations

import pytest
from _reasoning_check import check_reasoning
from hypothesis import given, settings
from hypothesis import strategies as st

Case = tuple[str, str, str | None, str | None, bool | None]


def _r1_family(start: str, end: str) -> list[tuple[str, str | None, str | None]]:
    """tests/reasoning/test_deepseekr1_reasoning_parser.py (and the identical tables in
    test_seedoss_reasoning_parser.py, test_minimax_m2_reasoning_parser.py), with the
    markers substituted."""
    return [
        (f"This is a reasoning section{end}This is the rest", "This is a reasoning section",
         "This is the rest"),
        (f"This is a reasoning section{end}", "This is a reasoning section", None),
        ("This is content", "This is content", None),
        ("This is a reasoning section", "This is a reasoning section", None),
        (f"This\nThat{end}This is the rest\nThat", "This\nThat", "This is the rest\nThat"),
        (f"{end}This is the rest", None, "This is the rest"),
        (f"{start}This is a reasoning section{end}This is the rest",
         "This is a reasoning section", "This is the rest"),
        (f"{start}This is a reasoning section{end}", "This is a reasoning section", None),
        (f"{start}This\nThat{end}This is the rest\nThat", "This\nThat",
         "This is the rest\nThat"),
        (f"{start}This is a reasoning section", "This is a reasoning section", None),
        ("", None, None),
        # NEW_LINE_STREAMING: text before the start marker stays reasoning.
        (f"\n{start}This is a reasoning section{end}\nThis is the rest",
         "\nThis is a reasoning section", "\nThis is the rest"),
    ]  # fmt: skip


OPENED_THINK = (
    "deepseek_r1",
    "deepseek_v3",
    "deepseek_v4",
    "ernie45",
    "kimi_k2",
    "minimax_m2",
    "olmo3",
    "step3",
    "step3p5",
    "nemotron_v3",
    "hy_v3",
    "poolside_v1",
    "qwen3",
    "mimo",
    "holo2",  # vLLM's holo2 is deepseek_r1 while thinking is on (its default)
)

# Formats whose R1-family cases vLLM runs with thinking switched on by the request
# (test_deepseekv3_reasoning_parser.py: chat_template_kwargs={"thinking": True} selects the
# R1 parser; off, the default, is identity).
OPENED_BY_REQUEST = {"deepseek_v3": True}

CASES: list[Case] = []
for _name in OPENED_THINK:
    _opened = OPENED_BY_REQUEST.get(_name)
    CASES += [(_name, o, r, c, _opened) for o, r, c in _r1_family("<think>", "</think>")]
# test_mistral_reasoning_parser.py: a reasoning trace must open with [THINK]; without
# it the output is content, and a [/THINK] with no opener is dropped.
CASES += [
    ("mistral", o, r, c, None)
    for o, r, c in [
        ("This is a reasoning section[/THINK]This is the rest", None,
         "This is a reasoning sectionThis is the rest"),
        ("This is a reasoning section[/THINK]", None, "This is a reasoning section"),
        ("[THINK]This is reasoning", "This is reasoning", None),
        ("This is content", None, "This is content"),
        ("This is a reasoning section", None, "This is a reasoning section"),
        ("This\nThat[/THINK]This is the rest\nThat", None, "This\nThatThis is the rest\nThat"),
        ("[/THINK]This is the rest", None, "This is the rest"),
        ("[THINK]This is a reasoning section[/THINK]This is the rest",
         "This is a reasoning section", "This is the rest"),
        ("[THINK]This is a reasoning section[/THINK]", "This is a reasoning section", None),
        ("[THINK]This\nThat[/THINK]This is the rest\nThat", "This\nThat",
         "This is the rest\nThat"),
        ("[THINK]This is a reasoning section", "This is a reasoning section", None),
        ("", None, None),
        ("Before\n[THINK]This is a reasoning section[/THINK]\nThis is the rest",
         "This is a reasoning section", "Before\n\nThis is the rest"),
    ]
]  # fmt: skip
CASES += [("seed_oss", o, r, c, None) for o, r, c in _r1_family("<seed:think>", "</seed:think>")]

# test_seedoss_reasoning_parser.py: its own extra cases.
CASES += [
    ("seed_oss", "Some reasoning</seed:think>This is the rest", "Some reasoning",
     "This is the rest", None),
    ("seed_oss", "This is just content without any reasoning tokens",
     "This is just content without any reasoning tokens", None, None),
    ("seed_oss", "Some reasoning content</seed:think>Final answer", "Some reasoning content",
     "Final answer", None),
]  # fmt: skip

# test_qwen3_reasoning_parser.py
_TOOL_CALL_BODY = (
    "<tool_call>\n<function=bash>\n<parameter=command>"
    "\ncat /etc/hosts\n</parameter>\n</function>\n</tool_call>"
)
CASES += [
    ("qwen3", "<think>This is a reasoning\nsection</think>This is the rest\nThat",
     "This is a reasoning\nsection", "This is the rest\nThat", None),
    ("qwen3", "I need to read the file.\n\n" + _TOOL_CALL_BODY, "I need to read the file.\n\n",
     _TOOL_CALL_BODY, None),
    ("qwen3", "<think>I need to read the file.\n\n" + _TOOL_CALL_BODY,
     "I need to read the file.\n\n", _TOOL_CALL_BODY, None),
    ("qwen3", "<think>reasoning</think>", "reasoning", None, None),
    ("qwen3", "reasoning section</think>content", "reasoning section", "content", None),
    ("qwen3", "I need to read the file.\n\n<tool_call>\n<function=bash>",
     "I need to read the file.\n\n", "<tool_call>\n<function=bash>", None),
    # enable_thinking=False: the prompt did not open reasoning.
    ("qwen3", "This is plain content", None, "This is plain content", False),
    ("qwen3", "Some output without think tokens", None, "Some output without think tokens",
     False),
    ("qwen3", "I need to read the file.\n\n" + _TOOL_CALL_BODY, None,
     "I need to read the file.\n\n" + _TOOL_CALL_BODY, False),
]  # fmt: skip

# test_minimax_m2_reasoning_parser.py
CASES += [
    ("minimax_m2", "Let me think... 1+1=2, right?</think>Yes, 1+1=2.",
     "Let me think... 1+1=2, right?", "Yes, 1+1=2.", None),
    ("minimax_m2", "```python\nprint('hello')\n```</think>Here is the code.",
     "```python\nprint('hello')\n```", "Here is the code.", None),
    ("minimax_m2", "First line\nSecond line</think>Response first line\nResponse second",
     "First line\nSecond line", "Response first line\nResponse second", None),
    # DOUBLE_END_TOKEN: a re-emitted </think> is stripped from the content.
    ("minimax_m2", "reasoning</think>content A</think>content B", "reasoning",
     "content Acontent B", None),
]  # fmt: skip

# test_minimax_m2_append_reasoning_parser.py (streaming expectations)
CASES += [
    ("minimax_m2_append_think", o, None, c, None)
    for o, c in [
        ("This is reasoning</think>This is response",
         "<think>This is reasoning</think>This is response"),
        ("This is reasoning in progress", "<think>This is reasoning in progress"),
        ("</think>This is response", "<think></think>This is response"),
        ("Line 1\nLine 2</think>Response 1\nResponse 2",
         "<think>Line 1\nLine 2</think>Response 1\nResponse 2"),
        ("", None),
        ("Let me think... 1+1=2</think>Yes!", "<think>Let me think... 1+1=2</think>Yes!"),
        ("```python\nprint('hi')\n```</think>Here's the code.",
         "<think>```python\nprint('hi')\n```</think>Here's the code."),
    ]
]  # fmt: skip

# test_olmo3_reasoning_parser.py
CASES += [
    ("olmo3", o, r, c, None)
    for o, r, c in [
        ("<think></think>No thoughts, head empty!", None, "No thoughts, head empty!"),
        ("<think>\n</think>\n\nNo thoughts, head empty!", "\n", "\n\nNo thoughts, head empty!"),
        ("<think>This is a reasoning section</think>This is the rest",
         "This is a reasoning section", "This is the rest"),
        ("<think> Look!\n\nI'm thinking...</think>\nThis is the rest",
         " Look!\n\nI'm thinking...", "\nThis is the rest"),
        ("<think>\nLook!\nI'm thinking...\n\n</think>\n\n\nThis is the rest",
         "\nLook!\nI'm thinking...\n\n", "\n\n\nThis is the rest"),
        ("<think>\nLook!\nI'm thinking... </think>\nThis is the rest",
         "\nLook!\nI'm thinking... ", "\nThis is the rest"),
        ("</think>\n\nNo thoughts, head empty!", None, "\n\nNo thoughts, head empty!"),
        ("The user is asking me not to think.</think>No thoughts!",
         "The user is asking me not to think.", "No thoughts!"),
    ]
]  # fmt: skip

# test_ernie45_reasoning_parser.py
CASES += [
    ("ernie45", "abc</think>def", "abc", "def", None),
    ("ernie45", "abc", "abc", None, None),
    ("ernie45", "abc</think>", "abc", None, None),
    ("ernie45", "abc\nABC</think>def\nDEF", "abc\nABC", "def\nDEF", None),
]

# test_glm4_moe_reasoning_parser.py (glm45)
for _name in ("glm45", "glm47"):
    CASES += [
        (_name, o, r, c, None)
        for o, r, c in [
            ("<think>This is a reasoning section</think>This is the rest",
             "This is a reasoning section", "This is the rest"),
            ("This is the rest", None, "This is the rest"),
            ("<think>This is a reasoning section</think>", "This is a reasoning section", None),
            ("<think>This is a reasoning\nsection</think>This is the rest\nThat",
             "This is a reasoning\nsection", "This is the rest\nThat"),
            ("<think></think>This is the rest", None, "This is the rest"),
            ("<think></think>", None, None),
            # ONLY_OPEN_TAG_STREAM (the one-shot path calls it content)
            ("<think>This is a reasoning section", "This is a reasoning section", None),
        ]
    ]  # fmt: skip

# test_granite_reasoning_parser.py
_SR, _SR2 = "Here is my thought process:", "Here's my thought process:"
_RS, _RS2 = "Here is my response:", "Here's my response:"
CASES += [
    ("granite", o, r, c, None)
    for o, r, c in [
        (f"{_SR}This is a reasoning section{_RS}This is the rest",
         "This is a reasoning section", "This is the rest"),
        (f"{_SR}This is a reasoning section{_RS}", "This is a reasoning section", None),
        ("This is content", None, "This is content"),
        (f"{_SR}This\nThat{_RS}This is the rest\nThat", "This\nThat", "This is the rest\nThat"),
        (f"{_SR2}This\nThat{_RS2}This is the rest\nThat", "This\nThat",
         "This is the rest\nThat"),
        # STREAMING_2/3: a broken start phrase is content, all of it
        ("Here is my thought failure", None, "Here is my thought failure"),
        ("Here wrong words", None, "Here wrong words"),
        # STREAMING_5/6/7/13: reasoning that only looks like the response phrase
        ("Here is my thought process: foo", " foo", None),
        ("Here is my thought process: foo Here is Here", " foo Here is Here", None),
        ("Here is my thought process: foo Here was", " foo Here was", None),
        # STREAMING_9/10
        ("Here is my thought process: foo Here is my response: bar", " foo ", " bar"),
        ("Here is my thought process: foo bar Here is my response: baz", " foo bar ", " baz"),
    ]
]  # fmt: skip

# test_gemma4_reasoning_parser.py
CASES += [
    ("gemma4", o, r, c, None)
    for o, r, c in [
        ("<|channel>This is reasoning", "This is reasoning", None),
        ("This is content", None, "This is content"),
        ("<|channel>This is a reasoning section<channel|>This is the rest",
         "This is a reasoning section", "This is the rest"),
        ("<|channel>This is a reasoning section<channel|>", "This is a reasoning section", None),
        ("<|channel>This\nThat<channel|>This is the rest\nThat", "This\nThat",
         "This is the rest\nThat"),
        ("", None, None),
        ("Before\n<|channel>This is a reasoning section<channel|>\nThis is the rest",
         "This is a reasoning section", "Before\n\nThis is the rest"),
        ("<|channel>thought\nActual reasoning here<channel|>Final answer",
         "Actual reasoning here", "Final answer"),
        ("<|channel>thought\n<channel|>", None, None),
        ("<|channel>thought\nLine1\nLine2<channel|>Answer", "Line1\nLine2", "Answer"),
        ("<|channel>thousand reasons<channel|>Done", "thousand reasons", "Done"),
        ("<|tool_call>", None, "<|tool_call>"),
    ]
]  # fmt: skip
CASES += [
    # INVALID_SIMPLE/COMPLETE_NONSTREAMING: the prompt opened the thought channel.
    ("gemma4", "This is a reasoning section<channel|>This is the rest",
     "This is a reasoning section", "This is the rest", True),
    ("gemma4", "This is a reasoning section<channel|>", "This is a reasoning section", None,
     True),
    # INVALID_SIMPLE_STREAMING, where vLLM drops the stray special token: we keep it.
    ("gemma4", "This is a reasoning section<channel|>This is the rest", None,
     "This is a reasoning section<channel|>This is the rest", False),
]  # fmt: skip

# test_hunyuan_reasoning_parser.py (hunyuan_a13b)
_HS, _HR, _HE = "<think>\n", "\n</think>\n<answer>\n", "\n</answer>"
CASES += [
    ("hunyuan_a13b", o, r, c, None)
    for o, r, c in [
        (f"{_HS}{_HR}This is the rest{_HE}", None, "This is the rest"),
        (f"{_HS}This is a reasoning section{_HR}This is the rest{_HE}",
         "This is a reasoning section", "This is the rest"),
        (f"{_HS}This is a reasoning section{_HR}", "This is a reasoning section", None),
        (f"{_HS}This is a reasoning section!{_HR}", "This is a reasoning section!", None),
        ("This is content", None, "This is content"),
        (f"{_HS}This\nThat{_HR}This is the rest\nThat", "This\nThat", "This is the rest\nThat"),
        (f"{_HS}This is a reasoning section{_HR}This is the rest",
         "This is a reasoning section", "This is the rest"),
        (f"{_HS} reasoning here{_HR} the answer{_HE}", " reasoning here", " the answer"),
    ]
]  # fmt: skip

# test_kimi_k2_reasoning_parser.py
CASES += [
    ("kimi_k2", "<think>step by step reasoning</think>final answer", "step by step reasoning",
     "final answer", None),
    ("kimi_k2", "<think></think>final answer", None, "final answer", None),
    ("kimi_k2", "implicit reasoning with no tags", "implicit reasoning with no tags", None, None),
    ("kimi_k2", "some reasoning<|tool_calls_section_begin|>tool call data", "some reasoning",
     "<|tool_calls_section_begin|>tool call data", None),
    ("kimi_k2", "<think>thinking<|tool_calls_section_begin|>", "thinking",
     "<|tool_calls_section_begin|>", None),
    ("kimi_k2", "<think>step one</think>answer", "step one", "answer", None),
]  # fmt: skip

# test_cohere_command_reasoning_parser.py; without cohere_melody the space after the
# start marker and the text between the blocks stay (vLLM's melody strips them).
for _name in ("cohere_command3", "cohere_command4"):
    _act = (
        "<|START_ACTION|>\n[\n"
        '    {"tool_call_id": "0", "tool_name": "foo", "parameters": {"query": "query1"}}\n'
        "]\n<|END_ACTION|>"
    )
    CASES += [
        (_name, "<|START_THINKING|> i will call foo with query1<|END_THINKING|>" + _act,
         " i will call foo with query1", _act, None),
        (_name, "<|START_THINKING|>This is a rainbow emoji: 🌈<|END_THINKING|>\n"
         "<|START_RESPONSE|>foo bar<|END_RESPONSE|>", "This is a rainbow emoji: 🌈",
         "\nfoo bar", None),
    ]  # fmt: skip

# test_base_thinking_reasoning_parser.py, with <think> markers (deepseek_r1)
CASES += [
    ("deepseek_r1", "<think>Some reasoning content</think>Final answer",
     "Some reasoning content", "Final answer", None),
    ("deepseek_r1", "<think>Some reasoning without end", "Some reasoning without end", None,
     None),
    ("deepseek_r1", "First</think>Middle</think>Last", "First", "Middle</think>Last", None),
    ("deepseek_r1", "<think></think>", None, None, None),
]  # fmt: skip

# test_identity_reasoning_parser.py
CASES += [
    (
        "identity",
        "<think>This is not reasoning</think>content",
        None,
        "<think>This is not reasoning</think>content",
        None,
    ),
    ("identity", "", None, None, None),
]

IDS = [f"{i}-{c[0]}" for i, c in enumerate(CASES)]


@pytest.mark.parametrize("case", CASES, ids=IDS)
@settings(max_examples=8)
@given(data=st.data())
def test_vllm_case(case: Case, data: st.DataObject) -> None:
    name, output, reasoning, content, opened = case
    check_reasoning(name, output, reasoning, content, data, prompt_opened=opened)


def test_case_count() -> None:
    assert len(CASES) >= 250
