"""Kimi-VL Thinking and Kimi-Dev reasoning: ``◁think▷`` … ``◁/think▷`` (SGLang ``kimi``).

U+25C1 and U+25B7 around ``think``: several tokens each, so a text parser finds the
string and holds back a cut one. Not pre-filled: output without the marker is text.
Kimi-K2 models keep ``<think>`` (``kimi_k2``).
"""

from __future__ import annotations

import pytest
from _reasoning_check import check_reasoning, split
from hypothesis import given
from hypothesis import strategies as st

from streamcall import Reasoning, Text, reasoning_parser, testing
from streamcall.output import output_parser
from support import check_upstream_case, upstream_cases

START, END = "\u25c1think\u25b7", "\u25c1/think\u25b7"


@pytest.mark.parametrize("case", upstream_cases("kimi_vl"))
def test_upstream(case: dict) -> None:
    check_upstream_case(case, None, "kimi_vl")


@pytest.mark.parametrize(
    ("text", "opened", "reasoning", "content"),
    [
        (f"{START}a{END}b", None, "a", "b"),
        (f"pre{START}a{END}b", None, "a", "preb"),
        (f"a{END}b", True, "a", "b"),
        (f"{START}a", None, "a", ""),
        (f"a{END}b", None, "", f"a{END}b"),  # no opener, not opened: text
        # Cut or look-alike markers stay as written.
        ("\u25c1thin", None, "", "\u25c1thin"),
        (f"{START}a\u25c1/thi", None, "a\u25c1/thi", ""),
        ("\u25c1 think\u25b7x", None, "", "\u25c1 think\u25b7x"),
        ("<think>a</think>b", None, "", "<think>a</think>b"),
        (f"{START}{START}a{END}", None, f"{START}a", ""),
    ],
)
@given(data=st.data())
def test_cases(
    text: str, opened: bool | None, reasoning: str, content: str, data: st.DataObject
) -> None:
    check_reasoning("kimi_vl", text, reasoning, content, data, prompt_opened=opened)


def test_reasoning_streams_while_written() -> None:
    p = reasoning_parser("kimi_vl")
    assert p.feed(START[:3]) == []
    assert p.feed(START[3:] + "first") == [Reasoning("first")]
    assert p.feed(" second") == [Reasoning(" second")]
    assert p.feed("\u25c1/") == []
    assert p.feed("think\u25b7done") == [Text("done")]


@pytest.mark.parametrize(
    ("model", "text", "expected"),
    [
        ("moonshotai/Kimi-VL-A3B-Thinking-2506", f"{START}r{END}c", ("r", "c")),
        ("moonshotai/Kimi-Dev-72B", f"{START}r{END}c", ("r", "c")),
        ("moonshotai/Kimi-K2-Thinking", "r</think>c", ("r", "c")),
    ],
)
def test_routed_by_model(model: str, text: str, expected: tuple[str, str]) -> None:
    p = output_parser(model, tool_format="none")
    assert split(testing.coalesce(testing.run(p, [text]))) == expected
