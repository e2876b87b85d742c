"""deepseek_v41 against SGLang's ``DeepSeekV41Detector`` unit suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_deepseekv41_detector.py``
(Apache-2.0, copyright the SGLang project): the tools, the arguments its round trip
renders, its chunk sizes and the expected calls and content; the code is ours. SGLang
renders the completion with its ``encoding_dsv41`` encoder; here it is written out from
the markup that suite pins (``\\n\\n<｜DSML｜ calls>\\n``, ``<｜DSML｜ invoke name="...">\\n``,
``<｜DSML｜ parameter name="..." string="true|false">...</｜DSML｜ parameter>\\n``,
``</｜DSML｜ invoke>\\n</｜DSML｜ calls>``). The text goes through ``check_format`` (whole,
1-char, 7-char and random chunkings), and SGLang's chunk sizes are replayed and compared
with the one-shot result.

Where SGLang's expectation differs on purpose: SGLang pins only ``normal.strip()`` (the
blank line before the block is released or trimmed depending on the chunk boundary);
here the content is the same at every chunking, the blank line kept as written.

Not ported: the reasoning half of the round trip (``<think>reason</think>`` goes to a
reasoning parser first: not this module's concern), and the structural-tag / XGrammar
tests (constrained decoding, not parsing).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

CHUNK_SIZES = [1, 2, 3, 5, 7, 11, 23, 1000]
D = "｜DSML｜ "
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "lookup",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "limit": {"type": "integer"},
                    "flags": {"type": "array"},
                },
            },
        },
    },
]
ARGUMENTS = {"query": '{"a": 1}', "limit": 2, "flags": [1, True, None]}


def render(name: str, arguments: dict[str, Any]) -> str:
    params = "".join(
        f'<{D}parameter name="{k}" string="{"true" if isinstance(v, str) else "false"}">'
        f"{v if isinstance(v, str) else json.dumps(v)}</{D}parameter>\n"
        for k, v in arguments.items()
    )
    return f'\n\n<{D}calls>\n<{D}invoke name="{name}">\n{params}</{D}invoke>\n</{D}calls>'


COMPLETION = "summary" + render("lookup", ARGUMENTS)


@given(data=st.data())
def test_sglang_round_trip_one_shot(data: st.DataObject) -> None:
    items = check_format("deepseek_v41", COMPLETION, data, TOOLS)
    assert summary(items) == ("summary\n\n", [("lookup", ARGUMENTS)])


@pytest.mark.parametrize("size", CHUNK_SIZES)
def test_sglang_round_trip_at_every_chunk_size(size: int) -> None:
    one_shot = check_format("deepseek_v41", COMPLETION, None, TOOLS)
    pieces = testing.chunk_every(COMPLETION, size)
    assert (
        testing.coalesce(testing.run(tool_parser("deepseek_v41", tools=TOOLS), pieces)) == one_shot
    )


@pytest.mark.parametrize(
    "arguments",
    [
        {"city": "杭州"},
        {"city": "Paris"},
        {"query": '{"a": 1}', "limit": 2, "flags": [True, None, 1.5]},
    ],
)
@given(data=st.data())
def test_sglang_encoder_output_round_trips(arguments: dict[str, Any], data: st.DataObject) -> None:
    name = "lookup" if "query" in arguments else "get_weather"
    text = render(name, arguments)
    # The encoder's blank lines before the block are text: only whitespace between and after
    # call blocks is markup (the rule every format follows).
    lead = text[: len(text) - len(text.lstrip())]
    assert lead
    assert summary(check_format("deepseek_v41", text, data, TOOLS)) == (lead, [(name, arguments)])
