"""openai (gpt-oss Harmony) against SGLang's ``GptOssDetector`` unit suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_gptoss_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs, the tool schemas, the
chunkings it feeds and the expected calls and content; the code is ours. Every text goes
through ``check_format`` (whole, 1-char, 7-char and random chunkings), and SGLang's
chunkings are replayed as given and compared with the one-shot result. SGLang's
``GptOssDetector`` is our ``openai`` format. No difference from SGLang's expectations;
``has_tool_call`` and ``structure_info`` (SGLang's API) are not ported.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sglang_fixtures import WEATHER_AND_SEARCH
from streamcall import testing
from streamcall.events import Text
from streamcall.formats.registry import tool_parser
from support import check_format, summary

TOOLS = WEATHER_AND_SEARCH


def call(name: str, args: str) -> str:
    return (
        f"<|start|>assistant<|channel|>commentary to=functions.{name}"
        f"<|constrain|>json<|message|>{args}<|call|>"
    )


BEIJING = call("get_weather", '{"city":"Beijing"}')

CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    (BEIJING, "", [("get_weather", {"city": "Beijing"})]),
    ("Let me check." + BEIJING, "Let me check.", [("get_weather", {"city": "Beijing"})]),
    ("The weather is nice today.", "The weather is nice today.", []),
    ("The weather in Beijing is sunny today.", "The weather in Beijing is sunny today.", []),
    (
        BEIJING + call("search", '{"query":"restaurants"}'),
        "",
        [("get_weather", {"city": "Beijing"}), ("search", {"query": "restaurants"})],
    ),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_gptoss_cases(text: str, content: str, calls: Any, data: st.DataObject) -> None:
    assert summary(check_format("openai", text, data, TOOLS)) == (content, calls)


@pytest.mark.parametrize(
    ("pieces", "content", "calls"),
    [
        (
            [
                "<|start|>",
                "assistant<|channel|>",
                "commentary to=functions.get_weather",
                '<|constrain|>json<|message|>{"city":"Beijing"}<|call|>',
            ],
            "",
            [("get_weather", {"city": "Beijing"})],
        ),
        (
            [
                "I'll look that up. <|start|>",
                "assistant<|channel|>",
                "commentary to=functions.get_weather",
                '<|constrain|>json<|message|>{"city":"Beijing", "unit":"celsius"}<|call|>',
            ],
            "I'll look that up. ",
            [("get_weather", {"city": "Beijing", "unit": "celsius"})],
        ),
    ],
)
def test_sglang_streaming(pieces: list[str], content: str, calls: Any) -> None:
    one_shot = check_format("openai", "".join(pieces), None, TOOLS)
    got = testing.coalesce(testing.run(tool_parser("openai", tools=TOOLS), pieces))
    assert got == one_shot
    assert summary(one_shot) == (content, calls)


def test_sglang_streaming_normal_text_before_tool() -> None:
    parser = tool_parser("openai", tools=TOOLS)
    out = parser.feed("Let me check the weather. ")
    assert [e.text for e in out if isinstance(e, Text)] == ["Let me check the weather. "]
