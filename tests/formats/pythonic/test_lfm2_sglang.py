"""lfm2 against SGLang's ``Lfm2Detector`` unit suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_lfm2_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs (pythonic and JSON bodies),
the tool schemas, the chunkings it feeds and the expected calls and content; the code is
ours. Every text goes through ``check_format`` (whole, 1-char, 7-char and random
chunkings), and SGLang's chunkings are replayed as given and compared with the one-shot
result. It found a gap: the JSON body (``<|tool_call_start|>[{"name": ..., "arguments":
...}]<|tool_call_end|>``) was text; it is read now.

Arguments are compact JSON for the pythonic body and verbatim for the JSON body (SGLang
re-serialises both). ``has_tool_call``, ``supports_structural_tag`` and
``structure_info`` (SGLang's API) are not ported.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sglang_fixtures import WEATHER_AND_SEARCH
from streamcall import testing
from streamcall.events import Text
from streamcall.formats.registry import tool_parser
from support import check_format, summary

BOT = "<|tool_call_start|>"
EOT = "<|tool_call_end|>"
TOOLS = WEATHER_AND_SEARCH


def pythonic(content: str) -> str:
    return BOT + content + EOT


def json_call(name: str, args: dict[str, Any]) -> str:
    return BOT + json.dumps([{"name": name, "arguments": args}]) + EOT


CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    (pythonic('[get_weather(city="Tokyo")]'), "", [("get_weather", {"city": "Tokyo"})]),
    (json_call("search", {"query": "sglang"}), "", [("search", {"query": "sglang"})]),
    (json_call("search", {"query": "test"}), "", [("search", {"query": "test"})]),
    (
        pythonic('[get_weather(city="Tokyo"), search(query="restaurants")]'),
        "",
        [("get_weather", {"city": "Tokyo"}), ("search", {"query": "restaurants"})],
    ),
    (
        pythonic('[get_weather(city="London", unit="celsius")]'),
        "",
        [("get_weather", {"city": "London", "unit": "celsius"})],
    ),
    ("The weather is fine today.", "The weather is fine today.", []),
    ("Hello world.", "Hello world.", []),
    (
        "Sure! " + pythonic('[get_weather(city="Paris")]'),
        "Sure! ",
        [("get_weather", {"city": "Paris"})],
    ),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_lfm2_cases(text: str, content: str, calls: Any, data: st.DataObject) -> None:
    assert summary(check_format("lfm2", text, data, TOOLS)) == (content, calls)


def test_sglang_streaming_split_chunks() -> None:
    pieces = [BOT, '[get_weather(city="Oslo")]', EOT]
    one_shot = check_format("lfm2", "".join(pieces), None, TOOLS)
    assert testing.coalesce(testing.run(tool_parser("lfm2", tools=TOOLS), pieces)) == one_shot
    assert summary(one_shot) == ("", [("get_weather", {"city": "Oslo"})])


def test_sglang_streaming_plain_text() -> None:
    out = tool_parser("lfm2", tools=TOOLS).feed("Hello world.")
    assert [e.text for e in out if isinstance(e, Text)] == ["Hello world."]
