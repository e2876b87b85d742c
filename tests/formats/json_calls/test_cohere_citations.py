"""Cohere Command A (``cohere_command3``/``cohere_command4``): citation tags in the text.

Cohere's models cite tool results inline, ``<co>cited text</co: 0:[1]>`` (the older form
``<co: 0,1>cited text</co: 0,1>``). cohere_melody, which vLLM's parsers run, drops the tags
and keeps the cited text (the citation records it makes are not passed on by vLLM); so
does the tool format here, in the text around the calls, never inside their arguments.
The cited example is from cohere_melody's README and vLLM's tests/parser/cohere tests
(Apache-2.0).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import tool_parser
from streamcall.events import Text
from streamcall.formats.cohere import CohereCommandParser
from support import check_contract, summary

CALL = CohereCommandParser.render([("search", {"q": "<co>x</co: 0:[1]>"})])


@pytest.mark.parametrize("fmt", ["cohere_command3", "cohere_command4"])
@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        ("foo <co>bar</co: 0:[1,2],1:[3,4]> baz", "foo bar baz", []),
        ("<co: 0,1>Emperor penguins</co: 0,1> are tallest.", "Emperor penguins are tallest.", []),
        # a tag with no partner is dropped too; the arguments are the call's, untouched
        (f"See <co>this</co: 0:[0]>.{CALL}", "See this.", [("search", {"q": "<co>x</co: 0:[1]>"})]),
        (f"{CALL}<co>after</co: 1:[0]>", "after", [("search", {"q": "<co>x</co: 0:[1]>"})]),
        # not tags: text as written
        ("a <code> b </co: x> c <co", "a <code> b </co: x> c <co", []),
        ("x <c", "x <c", []),
    ],
)
@given(data=st.data())
def test_citation_tags_are_dropped_the_cited_text_kept(
    fmt: str, text: str, content: str, calls: list[tuple[str, dict[str, str]]], data: st.DataObject
) -> None:
    items = check_contract(fmt, text, data)
    assert summary(items) == (content, calls)


def test_text_streams_around_a_tag() -> None:
    p = tool_parser("cohere_command3")
    assert p.feed("It is <co") == [Text("It is ")]  # a tag may be coming
    assert p.feed(">true</co: 0:[1") == [Text("true")]
    assert p.feed("]>. And <co: 1") == [Text(". And ")]
    assert p.feed(",2>more") == [Text("more")]
    assert p.finish() == []


def test_a_long_run_of_angle_brackets_is_not_held() -> None:
    p = tool_parser("cohere_command3")
    out = p.feed("<" * 1000 + "co")
    assert "".join(e.text for e in out if isinstance(e, Text)) == "<" * 999
    assert p.finish() == [Text("<co")]
