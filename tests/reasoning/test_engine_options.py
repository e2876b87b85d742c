"""The reasoning engine's general options, each on a made-up spec: DROP markers,
TEXT_DROP before reasoning and on an implicit end, a stray END that opens the stream,
pass-through spans inside reasoning, and ``lstrip_after_end`` (``_engine.py``'s header
states each rule). Every case runs whole, per character, in 7-character pieces and in
random chunkings."""

from __future__ import annotations

import pytest
from _reasoning_check import split
from hypothesis import given
from hypothesis import strategies as st

from streamcall import Reasoning, Text, testing
from streamcall.reasoning import ReasoningSpec
from streamcall.reasoning._engine import MarkerReasoningParser
from support import random_chunkings


def _check(
    spec: ReasoningSpec,
    text: str,
    reasoning: str,
    content: str,
    data: st.DataObject | None = None,
    *,
    opened: bool | None = None,
) -> None:
    chunkings = random_chunkings(data, text) if data is not None else []
    items = testing.check_chunkings(
        lambda: MarkerReasoningParser(spec, prompt_opened=opened), text, chunkings
    )
    assert split(items) == (reasoning, content), text


DROP = ReasoningSpec("t", drop=("<|eot|>", "<r1>"), drop_stray_end=True)


@pytest.mark.parametrize(
    ("text", "opened", "reasoning", "content"),
    [
        ("a<|eot|>b", False, "", "ab"),  # before reasoning
        ("<think>a<r1>b</think>c<|eot|>", False, "ab", "c"),  # inside and after
        ("a<r1>b</think>c", True, "ab", "c"),
        ("a<|eot|", False, "", "a<|eot|"),  # cut at the end: text as written
        ("<r1><r1>x", False, "", "x"),
        ("a<r2>b", False, "", "a<r2>b"),  # not listed: kept
    ],
)
@given(data=st.data())
def test_drop_everywhere(
    text: str, opened: bool, reasoning: str, content: str, data: st.DataObject
) -> None:
    _check(DROP, text, reasoning, content, data, opened=opened)


WRAP = ReasoningSpec(
    "t",
    start=("<T>",),
    end=("</T>",),
    opened=True,
    implicit_end=("<A>", "<ACT>"),
    text_drop=("<A>", "</A>"),
)


@pytest.mark.parametrize(
    ("text", "opened", "reasoning", "content"),
    [
        ("r</T><A>x</A>", True, "r", "x"),
        ("<A>x</A>", True, "", "x"),  # an implicit end that is dropped too
        ("r<ACT>[1]", True, "r", "<ACT>[1]"),  # an implicit end handed on
        ("<A>x</A>", False, "", "x"),  # dropped before reasoning as well
        ("p<A>x</A><T>r</T>y", False, "r", "pxy"),
        ("<T>r</T><A>x", True, "r", "x"),  # an echoed start, then a cut answer
    ],
)
@given(data=st.data())
def test_text_drop_before_and_on_implicit_end(
    text: str, opened: bool, reasoning: str, content: str, data: st.DataObject
) -> None:
    _check(WRAP, text, reasoning, content, data, opened=opened)


LEADING = ReasoningSpec("t", start=("<mm>",), end=("</mm>",), drop_leading_end=True)


@pytest.mark.parametrize(
    ("text", "opened", "reasoning", "content"),
    [
        ("</mm>answer", False, "", "answer"),
        ("</mm>", False, "", ""),
        ("x</mm>y", False, "", "x</mm>y"),  # not leading: text as written
        (" </mm>y", False, "", " </mm>y"),
        ("</mm></mm>y", False, "", "</mm>y"),  # only one is dropped
        ("</mm>a<mm>r</mm>b", False, "r", "ab"),  # a later start still opens
        ("<mm>r</mm>a", False, "r", "a"),
        ("r</mm>a", True, "r", "a"),  # opened: the END ends reasoning
        ("</mm", False, "", "</mm"),  # cut at the end of the stream
    ],
)
@given(data=st.data())
def test_drop_leading_end(
    text: str, opened: bool, reasoning: str, content: str, data: st.DataObject
) -> None:
    _check(LEADING, text, reasoning, content, data, opened=opened)


def test_leading_end_is_held_while_cut() -> None:
    p = MarkerReasoningParser(LEADING)
    assert p.feed("</m") == []
    assert p.feed("m>ok") == [Text("ok")]
    p = MarkerReasoningParser(LEADING)
    assert p.feed("<") == []
    assert p.feed("x") == [Text("<x")]


SPAN = ReasoningSpec(
    "t", start=("<i>",), end=("</i>",), reopen=True, pass_through=(("<t>[", "</t>"),)
)


@pytest.mark.parametrize(
    ("text", "reasoning", "content"),
    [
        ("<i>a<t>[1]</t>b</i>c", "ab", "<t>[1]</t>c"),
        ("<i>a<t> b</i>c", "a<t> b", "c"),  # not the span's opener: reasoning
        ("<i>a<t>[1</i>c", "a", "<t>[1c"),  # END inside the span ends both
        ("<i>a<t>[1", "a", "<t>[1"),  # cut inside the span: text
        ("x<t>[1]</t>y", "", "x<t>[1]</t>y"),  # outside reasoning it is plain text
        ("<i>a<t>[1]</t><t>[2]</t>b</i>", "ab", "<t>[1]</t><t>[2]</t>"),
        ("<i>a</i>x<i>b<t>[</t>c</i>y", "abc", "x<t>[</t>y"),
    ],
)
@given(data=st.data())
def test_pass_through_span(text: str, reasoning: str, content: str, data: st.DataObject) -> None:
    _check(SPAN, text, reasoning, content, data)


def test_span_streams_while_written() -> None:
    p = MarkerReasoningParser(SPAN)
    assert p.feed("<i>plan") == [Reasoning("plan")]
    assert p.feed("<t>[") == [Text("<t>[")]
    assert p.feed('{"a": "xxxx') == [Text('{"a": "xxxx')]
    assert p.in_reasoning
    assert p.feed('"}]</t') == [Text('"}]')]
    assert p.feed(">more") == [Text("</t>"), Reasoning("more")]


STRIP = ReasoningSpec("t", opened=True, lstrip_after_end="\n")


@pytest.mark.parametrize(
    ("text", "opened", "reasoning", "content"),
    [
        ("r</think>\nHello", True, "r", "Hello"),
        ("r</think>\n\n\nHello\n\nthere\n", True, "r", "Hello\n\nthere\n"),
        ("r</think>\n\n", True, "r", ""),
        ("r</think> \nHello", True, "r", " \nHello"),  # only the listed characters
        ("\nplain", False, "", "\nplain"),  # no END: nothing is stripped
        ("<think>r</think>\nx", False, "r", "x"),
    ],
)
@given(data=st.data())
def test_lstrip_after_end(
    text: str, opened: bool, reasoning: str, content: str, data: st.DataObject
) -> None:
    _check(STRIP, text, reasoning, content, data, opened=opened)


def test_lstrip_goes_on_across_chunks() -> None:
    p = MarkerReasoningParser(STRIP)
    assert p.feed("r</think>\n") == [Reasoning("r")]
    assert p.feed("\n") == []
    assert p.feed("\nHi\n") == [Text("Hi\n")]
    assert p.feed("\n") == [Text("\n")]
