"""Cohere Command A+ and the v4 templates (``cohere_command4``): reasoning in
``<|START_THINKING|>`` … ``<|END_THINKING|>``, pre-filled by the template when
``reasoning`` is on, then the answer in ``<|START_TEXT|>`` … ``<|END_TEXT|>`` (Command A:
``<|START_RESPONSE|>`` … ``<|END_RESPONSE|>``) or tool calls in ``<|START_ACTION|>`` … .

The answer wrapper is dropped wherever it appears, and it (or an action block) ends a
pre-opened reasoning block that has no END (reasoning off: the template wrote both
thinking markers). Citation tags (``<co>cited</co: 0:[1]>``) are dropped and the cited
text kept, in the reasoning and the answer, as cohere_melody does for vLLM and SGLang;
those parsers also swap reasoning into content when there is no answer, and melody drops
the blanks between the blocks: streamcall never re-labels streamed reasoning and keeps the
blanks (``vllm_differences``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _reasoning_check import check_output, check_reasoning, split
from hypothesis import given
from hypothesis import strategies as st

from streamcall import Reasoning, Text, reasoning_parser, testing
from streamcall.formats.registry import parser_class
from streamcall.output import output_parser
from support import check_upstream_case, random_chunkings, upstream_cases

SKIP = {
    "citations_stripped_by_melody": "the newline between the blocks stays in the text "
    "(vllm_differences); its citations: test_citation_tags_are_dropped",
    "sglang_force_nonempty_swap": "reasoning already streamed is never re-labelled as "
    "content (force_nonempty_content; vllm_differences)",
}


@pytest.mark.parametrize("case", upstream_cases("cohere_command4", skip=SKIP))
def test_upstream(case: dict[str, Any]) -> None:
    name = (case.get("options") or {}).get("name", "cohere_command4")
    check_upstream_case(case, None, name)


TS, TE = "<|START_THINKING|>", "<|END_THINKING|>"
XS, XE = "<|START_TEXT|>", "<|END_TEXT|>"
RS, RE = "<|START_RESPONSE|>", "<|END_RESPONSE|>"
ACT = '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {}}]<|END_ACTION|>'


@pytest.mark.parametrize(
    ("text", "opened", "reasoning", "content"),
    [
        (f"r{TE}{XS}answer{XE}", None, "r", "answer"),
        (f"r{TE}{RS}answer{RE}", None, "r", "answer"),  # the Command A wrapper
        (f"{XS}answer{XE}", None, "", "answer"),  # reasoning off, template-closed
        (f"{RS}answer{RE}", None, "", "answer"),
        (f"r{TE}{ACT}", None, "r", ACT),
        (ACT, None, "", ACT),
        (f"r{TE}\n{XS}a{XE}\n", None, "r", "\na\n"),  # text outside the wrapper is kept
        (f"{XS}answer{XE}", False, "", "answer"),  # reasoning off, said by the request
        (f"{TS}r{TE}{XS}a{XE}", False, "r", "a"),
        ("plain", False, "", "plain"),
        # Cut markers: reasoning (or text) as written.
        (f"r{TE}{XS}a<|END_TE", None, "r", "a<|END_TE"),
        ("r<|START_TE", None, "r<|START_TE", ""),
    ],
)
@given(data=st.data())
def test_cases(
    text: str, opened: bool | None, reasoning: str, content: str, data: st.DataObject
) -> None:
    check_reasoning("cohere_command4", text, reasoning, content, data, prompt_opened=opened)


@pytest.mark.parametrize(
    ("request_", "opened"),
    [
        ({"chat_template_kwargs": {"reasoning": True}}, True),
        ({"chat_template_kwargs": {"reasoning": False}}, False),
        ({"reasoning_effort": "none"}, False),  # the template reads it when reasoning is unset
        ({"reasoning_effort": "high"}, True),
        ({}, True),
    ],
)
def test_reasoning_switch(request_: dict[str, Any], opened: bool) -> None:
    p = output_parser(reasoning_format="cohere_command4", tool_format="none", request=request_)
    assert p.reasoning is not None and p.reasoning.in_reasoning is opened


def test_answer_streams_while_written() -> None:
    p = reasoning_parser("cohere_command4")
    assert p.feed("think") == [Reasoning("think")]
    assert p.feed(TE + XS[:5]) == []
    assert p.feed(XS[5:] + "The answer") == [Text("The answer")]
    assert p.feed(" goes on") == [Text(" goes on")]
    assert p.feed(XE) == []


@given(data=st.data())
def test_reasoning_then_action_with_the_tool_format(data: st.DataObject) -> None:
    call = parser_class("cohere_command4").render([("search", {"query": "x"})])
    for text in (f"Look it up.{TE}{call}", f"{TS}Look it up.{TE}{call}"):
        items = check_output(
            text, data, reasoning_format="cohere_command4", tool_format="cohere_command4"
        )
        assert split(items) == ("Look it up.", "")
        calls = [v for k, v in items if k == "call" and isinstance(v, testing.Call)]
        assert [(c.name, json.loads(c.arguments)) for c in calls] == [("search", {"query": "x"})]


def test_routed_by_model() -> None:
    p = output_parser("CohereLabs/command-a-plus-05-2026", tool_format="none")
    items = testing.coalesce(testing.run(p, [f"r{TE}{XS}a{XE}"]))
    assert split(items) == ("r", "a")


CITED = (
    # vLLM's tests/parser/cohere/test_reasoning.py (Apache-2.0), cmd4-citations_with_emoji
    "<|START_THINKING|>This is a rainbow <co>emoji: 🌈</co: 0:[1]><|END_THINKING|>\n"
    "<|START_RESPONSE|>foo <co>bar</co: 0:[1,2],1:[3,4]><|END_RESPONSE|>"
)


@pytest.mark.parametrize("name", ["cohere_command3", "cohere_command4"])
@pytest.mark.parametrize("tool_format", ["none", "cohere_command3"])
@given(data=st.data())
def test_citation_tags_are_dropped(name: str, tool_format: str, data: st.DataObject) -> None:
    # the reasoning parser alone filters its text; with the tool stage, the tool parser does
    items = check_output(CITED, data, reasoning_format=name, tool_format=tool_format)
    assert split(items) == ("This is a rainbow emoji: 🌈", "foo bar")


@pytest.mark.parametrize(
    ("text", "reasoning", "content"),
    [
        # the older form, an opener with its sources
        (f"a <co: 0,1>b</co: 0,1> c{TE}{XS}d{XE}", "a b c", "d"),
        # a tag with no partner is dropped too
        (f"a</co: 2:[0]>{TE}{XS}<co>d{XE}", "a", "d"),
        # not a tag: kept as written (a cut one at the end, a longer name, other sources)
        (f"x<co{TE}{XS}<code>y</co: z> <co", "x<co", "<code>y</co: z> <co"),
        (f"{TE}{XS}a < b <c", "", "a < b <c"),
        # a dropped marker between a '<' and the rest: no tag, each side as written
        (f"{TE}<{XS} ", "", "< "),
        (f"{TE}x<{XS}co>y{XE}", "", "x<co>y"),
        (f"x<c{TE}{XS}o>y", "x<c", "o>y"),
    ],
)
@given(data=st.data())
def test_citation_tags_in_any_chunking(
    text: str, reasoning: str, content: str, data: st.DataObject
) -> None:
    check_reasoning("cohere_command4", text, reasoning, content, data)
    items = testing.check_contract(
        lambda: reasoning_parser("cohere_command4"), text, random_chunkings(data, text)
    )
    assert split(items) == (reasoning, content)


def test_a_cited_answer_streams_around_its_tags() -> None:
    p = reasoning_parser("cohere_command4", prompt_opened=False)
    assert p.feed(XS + "It is <c") == [Text("It is ")]  # a tag may be coming
    assert p.feed("o>true</co: 0:") == [Text("true")]
    assert p.feed("[1]>.") == [Text(".")]
    assert p.feed(" <") == [Text(" ")]
    assert p.finish() == [Text("<")]  # the stream ended: not a tag
