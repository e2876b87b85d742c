"""llama3_json against SGLang's ``Llama32Detector`` unit suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_llama32_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs, the tool schemas and the
expected calls and content; the code is ours. Every text goes through ``check_format``
(whole, 1-char, 7-char and random chunkings). SGLang's ``Llama32Detector`` is our
``llama3_json``.

Not ported: ``has_tool_call`` and ``structure_info`` (SGLang's API), and its
``_convert_python_dict_to_json`` helper: a call written as a Python dict (single quotes)
is not JSON and stays text here, as in vLLM (asserted below).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sglang_fixtures import WEATHER_AND_SEARCH
from support import check_format, summary

TOOLS = WEATHER_AND_SEARCH
TAG = "<|python_tag|>"
BEIJING = '{"name": "get_weather", "arguments": {"city": "Beijing"}}'

CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    (TAG + BEIJING, "", [("get_weather", {"city": "Beijing"})]),
    (BEIJING, "", [("get_weather", {"city": "Beijing"})]),
    (
        "Let me check. " + TAG + '{"name": "get_weather", "arguments": {"city": "Tokyo"}}',
        "Let me check. ",
        [("get_weather", {"city": "Tokyo"})],
    ),
    ("The weather is nice today.", "The weather is nice today.", []),
    ("The weather in Beijing is sunny today.", "The weather in Beijing is sunny today.", []),
    (
        TAG + BEIJING + ';{"name": "search", "arguments": {"query": "restaurants"}}',
        "",
        [("get_weather", {"city": "Beijing"}), ("search", {"query": "restaurants"})],
    ),
    (
        TAG + '{"name": "get_weather", "arguments": {"city": "London", "unit": "celsius"}}',
        "",
        [("get_weather", {"city": "London", "unit": "celsius"})],
    ),
    # a Python dict is not JSON: text (SGLang only tests its conversion helper)
    (
        TAG + "{'name': 'get_weather', 'arguments': {'city': 'Beijing'}}",
        TAG + "{'name': 'get_weather', 'arguments': {'city': 'Beijing'}}",
        [],
    ),
    ("not a dict at all", "not a dict at all", []),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_llama32_cases(text: str, content: str, calls: Any, data: st.DataObject) -> None:
    assert summary(check_format("llama3_json", text, data, TOOLS)) == (content, calls)
