"""gigachat3 against SGLang's ``GigaChat3Detector`` finish suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_gigachat3_detector_finish.py``
(Apache-2.0, copyright the SGLang project): the model outputs and what ``finish`` must do
with them; the code is ours. Every text goes through ``check_format`` (whole, 1-char,
7-char and random chunkings, each ended by ``finish``).

Where SGLang's expectation differs on purpose: a call cut off by the end
(``{"city": "P``) is flushed by SGLang as normal text; here the call had started, so it is
reported ``incomplete`` with its arguments closed (``{"city": "P"}``). Plain text is not
held to the end here (SGLang keeps it buffered until ``finish``); it comes out whole all
the same.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.events import Text
from streamcall.formats.registry import tool_parser
from support import check_format

MARKER = "<|function_call|>"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


def _calls(items: list[testing.Item]) -> list[tuple[str, str, bool]]:
    return [(v.name, v.arguments, v.incomplete) for _, v in items if isinstance(v, testing.Call)]


@given(data=st.data())
def test_sglang_partial_tool_call_at_end_is_flushed(data: st.DataObject) -> None:
    text = "hi " + MARKER + ' {"name": "get_weather", "arguments": {"city": "P'
    parser = tool_parser("gigachat3", tools=TOOLS)
    parser.feed(text)
    assert parser.finish()
    items = check_format("gigachat3", text, data, TOOLS)
    assert _calls(items) == [("get_weather", '{"city": "P"}', True)]
    assert items[0] == ("text", "hi ")


@given(data=st.data())
def test_sglang_plain_text_finish_flushes_not_drops(data: st.DataObject) -> None:
    parser = tool_parser("gigachat3", tools=TOOLS)
    out = parser.feed("just some text") + parser.finish()
    assert "".join(e.text for e in out if isinstance(e, Text)) == "just some text"
    assert check_format("gigachat3", "just some text", data, TOOLS) == [("text", "just some text")]


@given(data=st.data())
def test_sglang_complete_call_not_duplicated_at_finish(data: st.DataObject) -> None:
    text = MARKER + ' {"name": "get_weather", "arguments": {"city": "Paris"}}'
    parser = tool_parser("gigachat3", tools=TOOLS)
    items = testing.coalesce(parser.feed(text))
    assert parser.finish() == []
    assert items == check_format("gigachat3", text, data, TOOLS)
    assert _calls(items) == [("get_weather", '{"city": "Paris"}', False)]
