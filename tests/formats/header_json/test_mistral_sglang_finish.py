"""mistral against SGLang's ``MistralDetector`` finish suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_mistral_detector_finish.py``
(Apache-2.0, copyright the SGLang project): the model outputs and what ``finish`` must do
with them; the code is ours. Every text goes through ``check_format`` (whole, 1-char,
7-char and random chunkings, each ended by ``finish``).

Where SGLang's expectation differs on purpose, we assert ours and say why: a call cut off
by the end of the stream (``... {"city": "P``) is flushed by SGLang as normal text; here
the call had started, so it is reported ``incomplete`` with its arguments closed
(``{"city": "P"}``), and only the text before it is content.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import tool_parser
from support import check_format

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


@given(data=st.data())
def test_sglang_partial_tool_call_at_end_is_flushed(data: st.DataObject) -> None:
    text = 'hi [TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "P'
    parser = tool_parser("mistral", tools=TOOLS)
    parser.feed(text)
    assert parser.finish()  # something was held, and finish gives it out
    items = check_format("mistral", text, data, TOOLS)
    calls = [(v.name, v.arguments, v.incomplete) for _, v in items if isinstance(v, testing.Call)]
    assert calls == [("get_weather", '{"city": "P"}', True)]
    assert items[0] == ("text", "hi ")


@given(data=st.data())
def test_sglang_clean_stream_finish_is_noop(data: st.DataObject) -> None:
    parser = tool_parser("mistral", tools=TOOLS)
    parser.feed("just some text")
    assert parser.finish() == []
    assert check_format("mistral", "just some text", data, TOOLS) == [("text", "just some text")]


@given(data=st.data())
def test_sglang_complete_call_not_duplicated_at_finish(data: st.DataObject) -> None:
    text = '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]'
    parser = tool_parser("mistral", tools=TOOLS)
    before = parser.feed(text)
    assert parser.finish() == []
    items = testing.coalesce(before)
    assert items == check_format("mistral", text, data, TOOLS)
    assert [v.arguments for _, v in items if isinstance(v, testing.Call)] == ['{"city": "Paris"}']
