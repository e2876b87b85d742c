"""internlm against SGLang's ``InternlmDetector`` finish suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_internlm_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs and what ``finish`` must do
with them; the code is ours. Every text goes through ``check_format`` (whole, 1-char,
7-char and random chunkings, each ended by ``finish``). It found a bug: the start written
with a space between the special tokens (``<|action_start|> <|plugin|>``) was text.

Where SGLang's expectation differs on purpose: ``<|action_start|> <|plugin|>get_weather('par``
is not JSON, so here it is text with what precedes it, whole (SGLang gives ``hi `` at once
and the rest at finish: the same text in the end).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.events import Text
from streamcall.formats.registry import tool_parser
from support import check_format

PARTIAL = "hi <|action_start|> <|plugin|>get_weather('par"


@given(data=st.data())
def test_sglang_partial_tool_call_at_end_is_flushed(data: st.DataObject) -> None:
    assert check_format("internlm", PARTIAL, data) == [("text", PARTIAL)]
    parser = tool_parser("internlm")
    out = parser.feed(PARTIAL) + parser.finish()
    assert "".join(e.text for e in out if isinstance(e, Text)) == PARTIAL


@given(data=st.data())
def test_sglang_clean_stream_finish_is_noop(data: st.DataObject) -> None:
    parser = tool_parser("internlm")
    parser.feed("just some text")
    assert parser.finish() == []
    assert check_format("internlm", "just some text", data) == [("text", "just some text")]


@given(data=st.data())
def test_sglang_complete_call_not_duplicated_at_finish(data: st.DataObject) -> None:
    text = (
        '<|action_start|> <|plugin|>\n{"name": "get_weather", "arguments": {"city": "Paris"}}'
        "<|action_end|>"
    )
    parser = tool_parser("internlm")
    items = testing.coalesce(parser.feed(text))
    assert parser.finish() == []
    assert items == check_format("internlm", text, data)
    assert [(v.name, v.arguments) for _, v in items if isinstance(v, testing.Call)] == [
        ("get_weather", '{"city": "Paris"}')
    ]
    assert not [v for k, v in items if k == "text"]
