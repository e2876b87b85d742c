"""pythonic against SGLang's ``PythonicDetector`` finish suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_pythonic_detector_finish.py``
(Apache-2.0, copyright the SGLang project): the model outputs and what ``finish`` must do
with them; the code is ours. Every text goes through ``check_format`` (whole, 1-char,
7-char and random chunkings, each ended by ``finish``).

Where SGLang's expectation differs on purpose: ``hi [get_weather(city=`` gives ``hi `` at
once in SGLang and the held call as text at finish; ``pythonic`` needs the list to open
the output, so here all of it is text (the same text in the end; ``llama4_pythonic``
likewise). No tools are given, as in SGLang.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.events import Text
from streamcall.formats.registry import tool_parser
from support import check_format


@pytest.mark.parametrize("fmt", ["pythonic", "llama4_pythonic"])
@given(data=st.data())
def test_sglang_partial_tool_call_at_end_is_flushed(fmt: str, data: st.DataObject) -> None:
    text = "hi [get_weather(city="
    assert check_format(fmt, text, data) == [("text", text)]
    parser = tool_parser(fmt)
    out = parser.feed(text) + parser.finish()
    assert "".join(e.text for e in out if isinstance(e, Text)) == text


@given(data=st.data())
def test_sglang_clean_stream_finish_is_noop(data: st.DataObject) -> None:
    parser = tool_parser("pythonic")
    parser.feed("just some text")
    assert parser.finish() == []
    assert check_format("pythonic", "just some text", data) == [("text", "just some text")]


@given(data=st.data())
def test_sglang_complete_call_not_duplicated_at_finish(data: st.DataObject) -> None:
    text = "[get_weather(city='Paris')]"
    parser = tool_parser("pythonic")
    items = testing.coalesce(parser.feed(text))
    assert parser.finish() == []
    assert items == check_format("pythonic", text, data)
    assert [v.arguments for _, v in items if isinstance(v, testing.Call)] == ['{"city":"Paris"}']
