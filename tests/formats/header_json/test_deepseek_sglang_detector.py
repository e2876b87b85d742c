"""deepseek_v3 and deepseek_v31 against SGLang's malformed-call regression suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_deepseek_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs and the expected calls; the
code is ours. Every text goes through ``check_format`` (whole, 1-char, 7-char and random
chunkings).

SGLang's regression: one malformed call must not discard the valid calls before it. That
holds here. Where SGLang's expectation differs on purpose, we assert ours and say why:
SGLang drops the malformed call; here it had started (its name and a ``{``), so it is
reported ``incomplete`` with its arguments closed (``{}``), and what follows the break
(``bad json`` and the markers after it) is text, so nothing is lost. The section start
never reaches the content, as SGLang asks.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from support import check_format

B = "<｜tool▁calls▁begin｜>"
E = "<｜tool▁calls▁end｜>"
CB = "<｜tool▁call▁begin｜>"
CE = "<｜tool▁call▁end｜>"
SEP = "<｜tool▁sep｜>"


def _tools(*names: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {"name": n, "parameters": {"type": "object", "properties": {}}},
        }
        for n in names
    ]


def v3_call(name: str, args: str) -> str:
    return f"{CB}function{SEP}{name}\n```json\n{args}\n```{CE}"


def v31_call(name: str, args: str) -> str:
    return f"{CB}{name}{SEP}{args}{CE}"


TOOLS = _tools("get_weather", "search")


def _calls(items: list[testing.Item]) -> list[tuple[str, str, bool]]:
    return [(v.name, v.arguments, v.incomplete) for _, v in items if isinstance(v, testing.Call)]


def _text(items: list[testing.Item]) -> str:
    return "".join(v for k, v in items if k == "text" and isinstance(v, str))


@pytest.mark.parametrize(
    ("fmt", "call", "rest"),
    [
        ("deepseek_v3", v3_call, "bad json\n```" + CE + E),
        ("deepseek_v31", v31_call, "bad json" + CE + E),
    ],
)
@given(data=st.data())
def test_sglang_malformed_call_does_not_discard_valid_call(
    fmt: str, call: Any, rest: str, data: st.DataObject
) -> None:
    text = (
        "Sure. " + B + call("get_weather", '{"city": "Boston"}') + call("search", "{bad json") + E
    )
    items = check_format(fmt, text, data, TOOLS)
    assert _calls(items) == [
        ("get_weather", '{"city": "Boston"}', False),
        ("search", "{}", True),  # SGLang drops it
    ]
    assert _text(items) == "Sure. " + rest
    assert B not in _text(items)


@given(data=st.data())
def test_sglang_two_valid_calls_both_parse(data: st.DataObject) -> None:
    text = B + v3_call("get_weather", '{"city": "Boston"}') + v3_call("search", '{"q": "hi"}') + E
    items = check_format("deepseek_v3", text, data, TOOLS)
    assert _calls(items) == [
        ("get_weather", '{"city": "Boston"}', False),
        ("search", '{"q": "hi"}', False),
    ]
    assert _text(items) == ""
