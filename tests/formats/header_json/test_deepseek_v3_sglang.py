"""deepseek_v3 against SGLang's ``DeepSeekV3Detector`` unit suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_deepseekv3_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs, the tool schemas and the
expected calls and content; the code is ours. Every text goes through ``check_format``
(whole, 1-char, 7-char and random chunkings).

Where SGLang's expectation differs on purpose, we assert ours and say why:
- SGLang only asks that malformed arguments (``{invalid}``) do not crash. Here the call
  had started (its name and a ``{``), so it is reported ``incomplete`` with its arguments
  closed (``{}``), and what follows the break is text: nothing is lost.
- ``has_tool_call`` is SGLang's API, not ported.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]

B = "<｜tool▁calls▁begin｜>"
E = "<｜tool▁calls▁end｜>"
CB = "<｜tool▁call▁begin｜>"
CE = "<｜tool▁call▁end｜>"
SEP = "<｜tool▁sep｜>"


def _tool(name: str, key: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {
                "type": "object",
                "properties": {key: {"type": "string"}},
                "required": [key],
            },
        },
    }


TOOLS = [_tool("get_weather", "city"), _tool("search", "query")]


def call(name: str, args: str) -> str:
    return f"{CB}function{SEP}{name}\n```json\n{args}\n```{CE}"


CASES: list[tuple[str, str, Calls]] = [
    (
        B + call("get_weather", '{"city": "Beijing"}') + E,
        "",
        [("get_weather", {"city": "Beijing"})],
    ),
    (
        B
        + call("get_weather", '{"city": "Beijing"}')
        + "\n"
        + call("search", '{"query": "restaurants"}')
        + E,
        "",
        [("get_weather", {"city": "Beijing"}), ("search", {"query": "restaurants"})],
    ),
    (
        "Let me check that for you." + B + call("get_weather", '{"city": "Tokyo"}') + E,
        "Let me check that for you.",
        [("get_weather", {"city": "Tokyo"})],
    ),
    ("Hello, how can I help you today?", "Hello, how can I help you today?", []),
    ("The weather in Beijing is sunny today.", "The weather in Beijing is sunny today.", []),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_deepseek_v3_cases(
    text: str, content: str, calls: Calls, data: st.DataObject
) -> None:
    assert summary(check_format("deepseek_v3", text, data, TOOLS)) == (content, calls)


@given(data=st.data())
def test_sglang_malformed_arguments(data: st.DataObject) -> None:
    # SGLang: no crash. Ours: the started call ends incomplete with "{}"; the rest is text.
    text = B + call("get_weather", "{invalid}") + E
    items = check_format("deepseek_v3", text, data, TOOLS)
    calls = [(v.name, v.arguments, v.incomplete) for k, v in items if isinstance(v, testing.Call)]
    assert calls == [("get_weather", "{}", True)]
    assert summary(items)[0] == "invalid}\n```" + CE + E
