"""The newlines at a parameter value's ends: framing where the template writes them, the
value's own where it writes the value inline (issue 46). Every case in every chunking.

- DeepSeek DSML (V3.2, V4, V4.1) and GLM-4.5 to 5 templates write
  ``<｜DSML｜parameter …>VALUE</｜DSML｜parameter>`` and ``<arg_value>VALUE</arg_value>``:
  a value's last newline (a file's final newline) is kept.
- Qwen3-Coder's template writes ``<parameter=k>\\nVALUE\\n</parameter>``: the one newline
  on each side is framing, and stripped.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing, tool_parser
from support import random_chunkings

P, C = "<｜DSML｜", "</｜DSML｜"


def dsml(block: str, sep: str, value: str) -> str:
    p, c = P + sep, C + sep
    return (
        f'{p}{block}>\n{p}invoke name="w">\n{p}parameter name="c" string="true">{value}'
        f"{c}parameter>\n{c}invoke>\n{c}{block}>"
    )


def glm(value: str) -> str:
    return f"<tool_call>w\n<arg_key>c</arg_key>\n<arg_value>{value}</arg_value>\n</tool_call>"


VALUES = ["  padded\n", "\nlead", "\n\nboth\n\n", "line 1\nline 2\n"]
CASES = [
    *(
        (fmt, text, value)
        for value in VALUES
        for fmt, text in (
            ("deepseek_v32", dsml("function_calls", "", value)),
            ("deepseek_v4", dsml("tool_calls", "", value)),
            ("deepseek_v41", dsml("calls", " ", value)),
            ("glm45", glm(value)),
            ("glm47", glm(value).replace("w\n<arg_key>", "w<arg_key>")),
        )
    ),
    # framing newlines where the template writes them
    (
        "qwen3_coder",
        "<tool_call>\n<function=w>\n<parameter=c>\n  padded\n\n</parameter>\n"
        "</function>\n</tool_call>",
        "  padded\n",
    ),
    (
        "qwen3_coder",
        "<tool_call>\n<function=w>\n<parameter=c>\nx\n</parameter>\n</function>\n</tool_call>",
        "x",
    ),
]


@pytest.mark.parametrize(("fmt", "text", "value"), CASES)
@given(data=st.data())
def test_a_values_own_newlines_are_kept(
    fmt: str, text: str, value: str, data: st.DataObject
) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "w",
                "parameters": {"type": "object", "properties": {"c": {"type": "string"}}},
            },
        }
    ]
    items = testing.check_contract(
        lambda: tool_parser(fmt, tools=tools), text, random_chunkings(data, text)
    )
    calls = [(v.name, json.loads(v.arguments)) for k, v in items if isinstance(v, testing.Call)]
    assert calls == [("w", {"c": value})]
