"""llama3_json against SGLang's ``Llama32Detector`` finish suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_llama32_detector_finish.py``
(Apache-2.0, copyright the SGLang project): the model outputs and what ``finish`` must do
with them; the code is ours. Every text goes through ``check_format`` (whole, 1-char,
7-char and random chunkings, each ended by ``finish``).

SGLang's texts put a Python-style call after ``<|python_tag|>``
(``get_weather(city='Paris')``), which is not the JSON form: SGLang holds it and flushes
it as normal text at ``finish``; here it is text too, ``<|python_tag|>`` included, as
written (SGLang's normal text holds the call; we assert the whole of ours).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall.events import Text
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


@pytest.mark.parametrize(
    "text",
    [
        "hi <|python_tag|>get_weather(city='P",  # test_partial_tool_call_at_end_is_flushed
        "<|python_tag|>get_weather(city='Paris')",  # test_complete_call_not_duplicated_at_finish
        "just some text",  # test_clean_stream_finish_is_noop
    ],
)
@given(data=st.data())
def test_sglang_finish_flushes_held_text(text: str, data: st.DataObject) -> None:
    assert check_format("llama3_json", text, data, TOOLS) == [("text", text)]
    parser = tool_parser("llama3_json", tools=TOOLS)
    out = parser.feed(text)
    out += parser.finish()
    assert "".join(e.text for e in out if isinstance(e, Text)) == text
    assert parser.finish() == []  # nothing is given twice
