"""xlam and granite against SGLang's ``JsonArrayParser`` finish suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_json_array_parser_finish.py``
(Apache-2.0, copyright the SGLang project): the model outputs and what ``finish`` must do
with them; the code is ours (see ``test_xlam_granite_sglang_json_array.py`` for why ``xlam`` and
``granite``). Every text goes through ``check_format`` (whole, 1-char, 7-char and random
chunkings, each ended by ``finish``).

Where SGLang's expectation differs on purpose: a call cut off by the end
(``{"city": "P``) is flushed by SGLang as normal text; here the call had started, so it is
reported ``incomplete`` with its arguments closed (``{"city": "P"}``).
"""

from __future__ import annotations

import pytest
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
FORMATS = ["xlam", "granite"]


def _calls(items: list[testing.Item]) -> list[tuple[str, str, bool]]:
    return [(v.name, v.arguments, v.incomplete) for _, v in items if isinstance(v, testing.Call)]


@pytest.mark.parametrize("fmt", FORMATS)
@given(data=st.data())
def test_sglang_partial_tool_call_at_end_is_flushed(fmt: str, data: st.DataObject) -> None:
    text = '[{"name": "get_weather", "arguments": {"city": "P'
    parser = tool_parser(fmt, tools=TOOLS)
    parser.feed(text)
    assert parser.finish()
    items = check_format(fmt, text, data, TOOLS)
    assert _calls(items) == [("get_weather", '{"city": "P"}', True)]


@pytest.mark.parametrize("fmt", FORMATS)
@given(data=st.data())
def test_sglang_clean_stream_finish_is_noop(fmt: str, data: st.DataObject) -> None:
    parser = tool_parser(fmt, tools=TOOLS)
    parser.feed("just some text")
    assert parser.finish() == []
    assert check_format(fmt, "just some text", data, TOOLS) == [("text", "just some text")]


@pytest.mark.parametrize("fmt", FORMATS)
@given(data=st.data())
def test_sglang_complete_call_not_duplicated_at_finish(fmt: str, data: st.DataObject) -> None:
    text = '[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
    parser = tool_parser(fmt, tools=TOOLS)
    items = testing.coalesce(parser.feed(text))
    assert parser.finish() == []
    assert items == check_format(fmt, text, data, TOOLS)
    assert _calls(items) == [("get_weather", '{"city": "Paris"}', False)]
