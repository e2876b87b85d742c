"""gemma4 against SGLang's ``Gemma4Detector`` finish suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_gemma4_detector_finish.py``
(Apache-2.0, copyright the SGLang project): the model outputs and what ``finish`` must do
with them; the code is ours. Every text goes through ``check_format`` (whole, 1-char,
7-char and random chunkings, each ended by ``finish``). No tools, as in SGLang.

Where SGLang's expectation differs on purpose, we assert ours and say why:
- A call cut off by the end of the stream (``call:get_weather{city:``) is flushed by
  SGLang as normal text; here the call had started, so it is reported ``incomplete`` with
  its arguments closed (the key with no value yet is ``null``).
- ``{city: 'Paris'}``: Gemma 4 quotes strings with ``<|"|>``; single quotes are part of the
  bare value, kept as the model wrote them (``"'Paris'"``).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.events import Text
from streamcall.formats.registry import tool_parser
from support import check_format

START = "<|tool_call>"
END = "<tool_call|>"


def _calls(items: list[testing.Item]) -> list[tuple[str, str, bool]]:
    return [(v.name, v.arguments, v.incomplete) for _, v in items if isinstance(v, testing.Call)]


@given(data=st.data())
def test_sglang_partial_tool_call_at_end_is_flushed(data: st.DataObject) -> None:
    text = "hi " + START + "call:get_weather{city:"
    parser = tool_parser("gemma4")
    first = parser.feed(text)
    assert [e.text for e in first if isinstance(e, Text)] == ["hi "]
    assert parser.finish()  # something was held, and finish gives it out
    items = check_format("gemma4", text, data)
    assert _calls(items) == [("get_weather", '{"city":null}', True)]
    assert items[0] == ("text", "hi ")


@given(data=st.data())
def test_sglang_clean_stream_finish_is_noop(data: st.DataObject) -> None:
    parser = tool_parser("gemma4")
    parser.feed("just some text")
    assert parser.finish() == []
    assert check_format("gemma4", "just some text", data) == [("text", "just some text")]


@given(data=st.data())
def test_sglang_complete_call_not_duplicated_at_finish(data: st.DataObject) -> None:
    text = START + "call:get_weather{city: 'Paris'}" + END
    parser = tool_parser("gemma4")
    items = testing.coalesce(parser.feed(text))
    assert parser.finish() == []
    assert items == check_format("gemma4", text, data)
    assert _calls(items) == [("get_weather", '{"city":"\'Paris\'"}', False)]
