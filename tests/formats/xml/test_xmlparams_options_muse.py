"""Two pieces of the XML-parameter engine that Muse's tool channels use: the
``QUOTED_STRINGS`` option, and ``_reset_reading`` (an engine read anew after ``finish``)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.minimax import MiniMaxM2Parser
from streamcall.formats.schema import quoted_string_json
from support import random_chunkings, summary, typed_tool


class QuotedM2(MiniMaxM2Parser):
    """MiniMax-M2's markers with the option on (not a registered format)."""

    QUOTED_STRINGS = True


def m2(value: str) -> str:
    return (
        '<minimax:tool_call><invoke name="f"><parameter name="s">'
        f'{value}</parameter><parameter name="n">1</parameter></invoke></minimax:tool_call>'
    )


@pytest.mark.parametrize(
    ("written", "on", "off"),
    [
        ('"x"', "x", '"x"'),
        ('"a \\"b\\" \\u00e9"', 'a "b" é', '"a \\"b\\" \\u00e9"'),
        ('"a" "b"', '"a" "b"', '"a" "b"'),  # not one JSON string: raw
        ('"cut', '"cut', '"cut'),
        ('"' + "long " * 40 + '"', "long " * 40, '"' + "long " * 40 + '"'),
        ("plain", "plain", "plain"),
    ],
)
@given(data=st.data())
def test_quoted_strings(written: str, on: str, off: str, data: st.DataObject) -> None:
    text = m2(written)
    chunkings = random_chunkings(data, text)
    for cls, value in ((QuotedM2, on), (MiniMaxM2Parser, off)):
        items = testing.check_chunkings(cls, text, chunkings)
        assert summary(items)[1] == [("f", {"s": value, "n": 1})]
    # a key the schema types keeps its plan: a string stays raw
    tools = [typed_tool("f", s="string")]
    items = testing.check_chunkings(lambda: QuotedM2(tools), text, chunkings)
    assert summary(items)[1] == [("f", {"s": written, "n": 1})]


def test_quoted_string_json() -> None:
    assert json.loads(quoted_string_json('"a\\nb"')) == "a\nb"
    assert json.loads(quoted_string_json('"a" x')) == '"a" x'


TEXTS = [
    m2("x"),
    m2("cut")[:60],
    '<minimax:tool_call><invoke name="f"><parameter name="s">a</parameter>',
    "text <minimax:tool_call",
    '<minimax:tool_call><invoke name="g"></invoke></minimax:tool_call>  ',
]


def _read_anew(first: str) -> MiniMaxM2Parser:
    """An engine that read ``first`` to its end, then was read anew (its count kept at 0,
    as a host that shares its own would set it)."""
    engine = MiniMaxM2Parser()
    testing.run(engine, [first[: len(first) // 2], first[len(first) // 2 :]])
    engine._reset_reading()
    engine._calls = 0
    engine._ids = MiniMaxM2Parser()._ids
    return engine


@pytest.mark.parametrize("first", TEXTS)
@pytest.mark.parametrize("second", TEXTS)
def test_an_engine_read_anew_reads_as_a_fresh_one(first: str, second: str) -> None:
    for pieces in ([second], testing.chunk_every(second, 1), testing.chunk_every(second, 7)):
        expected = testing.coalesce(testing.run(MiniMaxM2Parser(), pieces))
        assert testing.coalesce(testing.run(_read_anew(first), pieces)) == expected
