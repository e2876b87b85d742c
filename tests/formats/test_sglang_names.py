"""The parser names only SGLang has, read as the streamcall formats they alias
(``streamcall.aliases``), on SGLang's own test strings.

Cases are taken from SGLang (Apache-2.0, copyright the SGLang project / sgl-project):
``test/registered/unit/function_call/test_spark25_detector.py``,
``test_trinity_detector.py``, ``test_qwen3_coder_detector.py`` (``nanbeige`` is SGLang's
Qwen3-Coder detector under another name) and the reasoning detectors of
``sglang/srt/parser/reasoning_parser.py`` (``kimi``, ``nemotron_3``, ``iquest_q1``,
``qwen3-thinking``, ``minimax``, ``minimax-append-think``). The model outputs and expected
results are copied; the code is ours. Every text goes through ``check_format`` (whole,
1-char, 7-char and random chunkings). Where streamcall's reading differs from SGLang's on
purpose, the test asserts ours and says why.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from sglang_fixtures import function_tool
from streamcall.events import Reasoning, Text
from streamcall.formats.registry import collect, parse_tool_calls
from streamcall.output import output_parser
from streamcall.reasoning import reasoning_parser
from support import check_format, summary

SPARK_TOOLS = [
    function_tool(
        "set_state",
        {
            "name": {"type": "string"},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "active": {"type": "boolean"},
            "items": {"type": "array"},
            "metadata": {"type": "object"},
        },
    ),
    function_tool("now", {}),
]
WEATHER = [function_tool("get_weather", {"city": {"type": "string"}}, ["city"])]


def spark_xml(name: str, arguments: list[tuple[str, str]]) -> str:
    pairs = "".join(f"<arg_key>{k}</arg_key><arg_value>{v}</arg_value>" for k, v in arguments)
    return f"<tool_call>{name}{pairs}</tool_call>"


SPARK_TEXT = (
    "before"
    + spark_xml(
        "set_state",
        [
            ("name", "上海"),
            ("count", "42"),
            ("ratio", "2.5"),
            ("active", "true"),
            ("items", '["a", "b"]'),
            ("metadata", '{"source":"spark"}'),
        ],
    )
    + "middle"
    + spark_xml("now", [])
    + "after"
)


@given(data=st.data())
def test_spark25_calls_between_text(data: st.DataObject) -> None:
    content, calls = summary(check_format("spark25", SPARK_TEXT, data, tools=SPARK_TOOLS))
    assert content == "beforemiddleafter"
    assert calls == [
        (
            "set_state",
            {
                "name": "上海",
                "count": 42,
                "ratio": 2.5,
                "active": True,
                "items": ["a", "b"],
                "metadata": {"source": "spark"},
            },
        ),
        ("now", {}),
    ]


def test_spark25_edge_values_are_read_as_spark3_reads_them() -> None:
    # SGLang's Spark 2.5 detector gives {"name": None, "active": True, "count":
    # "not-an-int", "undeclared": "42"}: "null" as null for a string, "1" as a boolean, an
    # undeclared value as a string. streamcall keeps what was written where the schema
    # says string, and reads an undeclared value by its first character (spark3's rules).
    text = spark_xml(
        "set_state",
        [("name", "null"), ("count", "not-an-int"), ("active", "1"), ("undeclared", "42")],
    )
    (call,) = parse_tool_calls(text, "spark25", tools=SPARK_TOOLS).tool_calls
    assert call.args == {"name": "null", "count": "not-an-int", "active": "1", "undeclared": 42}


def test_spark25_malformed_block_is_text() -> None:
    parsed = parse_tool_calls("x<tool_call></tool_call>y", "spark25", tools=SPARK_TOOLS)
    assert (parsed.content, parsed.tool_calls) == ("x<tool_call></tool_call>y", [])


TRINITY_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


@given(data=st.data())
def test_trinity_calls_are_qwen25s(data: st.DataObject) -> None:
    content, calls = summary(check_format("trinity", "Sure. " + TRINITY_CALL, data, tools=WEATHER))
    assert (content, calls) == ("Sure. ", [("get_weather", {"city": "Paris"})])


def _output(text: str, **kw: Any) -> tuple[str, str, list[tuple[str, dict[str, Any]]]]:
    parser = output_parser(tool_format="trinity", reasoning_format="qwen3", **kw)
    events = parser.feed(text) + parser.finish()
    parsed = collect(events)
    return parsed.reasoning, parsed.content, [(c.name, c.args) for c in parsed.tool_calls]


def test_trinity_with_reasoning_in_front() -> None:
    # SGLang's trinity detector deletes the tags and keeps the reasoning as content
    # ("reasoninghello"); with a reasoning parser in front the reasoning is reasoning
    assert _output("<think>reasoning</think>hello", prompt_opened=False) == (
        "reasoning",
        "hello",
        [],
    )
    # a call written inside <think> is read (<tool_call> ends Qwen3's reasoning); the
    # </think> after it is content as written
    reasoning, content, calls = _output(f"<think>{TRINITY_CALL}</think>", prompt_opened=False)
    assert (reasoning, calls) == ("", [("get_weather", {"city": "Paris"})])
    assert content == "</think>"


def test_nanbeige_is_qwen3_coder() -> None:
    text = (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    (call,) = parse_tool_calls(text, "nanbeige", tools=WEATHER).tool_calls
    assert (call.name, json.loads(call.arguments)) == ("get_weather", {"city": "Paris"})


def _reasoning(name: str, text: str, prompt_opened: bool | None = None) -> tuple[str, str]:
    parser = reasoning_parser(name, prompt_opened=prompt_opened)
    events = parser.feed(text) + parser.finish()
    return (
        "".join(e.text for e in events if isinstance(e, Reasoning)),
        "".join(e.text for e in events if isinstance(e, Text)),
    )


def test_sglang_only_reasoning_names() -> None:
    # KimiDetector: ◁think▷ ... ◁/think▷, never forced
    assert _reasoning("kimi", "◁think▷Let me see◁/think▷The answer") == ("Let me see", "The answer")
    assert _reasoning("kimi", "The answer") == ("", "The answer")
    # Nemotron3Detector: <think>, on unless enable_thinking is false
    assert _reasoning("nemotron_3", "Let me see</think>The answer") == ("Let me see", "The answer")
    assert _reasoning("nemotron_3", "The answer", prompt_opened=False) == ("", "The answer")
    # IQuestQ1ReasoningDetector: on unless thinking/enable_thinking is false
    assert _reasoning("iquest_q1", "Let me see</think>The answer") == ("Let me see", "The answer")
    assert _reasoning("iquest_q1", "The answer", prompt_opened=False) == ("", "The answer")
    # qwen3-thinking and minimax: SGLang's Qwen3 detector forced on
    assert _reasoning("qwen3-thinking", "Let me see</think>Hi") == ("Let me see", "Hi")
    assert _reasoning("minimax", "Let me see</think>Hi") == ("Let me see", "Hi")
    # MiniMaxAppendThinkDetector: everything is content, with <think> put back in front
    assert _reasoning("minimax-append-think", "Let me see</think>Hi") == (
        "",
        "<think>Let me see</think>Hi",
    )
