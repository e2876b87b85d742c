"""seed_oss, step3 and hy_v3: their wire formats (as vLLM's parsers read them), with
edge cases. These cases are written from the formats, not copied from a public suite."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support import check_format, summary

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"location": {"type": "string"}, "days": {"type": "integer"}},
            },
        },
    }
]
ARGS = {"location": "San Francisco, CA", "days": 3}

TEXTS = {
    "seed_oss": "<seed:tool_call>\n<function=get_weather>\n<parameter=location>San Francisco, CA</parameter>\n<parameter=days>3</parameter>\n</function>\n</seed:tool_call>",
    "step3": '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather"><steptml:parameter name="location">San Francisco, CA</steptml:parameter><steptml:parameter name="days">3</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>',
    "hy_v3": "<tool_calls><tool_call>get_weather<tool_sep><arg_key>location</arg_key><arg_value>San Francisco, CA</arg_value><arg_key>days</arg_key><arg_value>3</arg_value></tool_call></tool_calls>",
}


@pytest.mark.parametrize("fmt", list(TEXTS))
@given(data=st.data())
def test_one_call_with_text_around(fmt: str, data: st.DataObject) -> None:
    content, calls = summary(check_format(fmt, "Checking. " + TEXTS[fmt] + " Done.", data, TOOLS))
    assert content == "Checking.  Done."
    assert calls == [("get_weather", ARGS)]


@pytest.mark.parametrize("fmt", list(TEXTS))
@given(data=st.data(), cut=st.integers(1, 400))
def test_cut_anywhere(fmt: str, data: st.DataObject, cut: int) -> None:
    text = TEXTS[fmt][:cut]
    _, calls = summary(check_format(fmt, text, data, TOOLS))
    for name, args in calls:
        assert name == "get_weather"
        assert set(args) <= {"location", "days"}


@given(data=st.data())
def test_step3_parallel_calls(data: st.DataObject) -> None:
    one = '<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather"><steptml:parameter name="location">{}</steptml:parameter></steptml:invoke><｜tool_call_end｜>'
    text = "<｜tool_calls_begin｜>" + one.format("A") + one.format("B") + "<｜tool_calls_end｜>"
    _, calls = summary(check_format("step3", text, data, TOOLS))
    assert calls == [("get_weather", {"location": "A"}), ("get_weather", {"location": "B"})]


@given(data=st.data())
def test_hy_v3_missing_call_close(data: st.DataObject) -> None:
    text = "<tool_calls><tool_call>get_weather<tool_sep><arg_key>location</arg_key><arg_value>Paris</arg_value></tool_calls>"
    _, calls = summary(check_format("hy_v3", text, data, TOOLS))
    assert calls == [("get_weather", {"location": "Paris"})]


@given(data=st.data())
def test_seed_oss_marker_alone_is_text(data: st.DataObject) -> None:
    text = "a <seed:tool_call> b"
    items: list[Any] = check_format("seed_oss", text, data)
    assert items == [("text", text)]
