"""apertus against SGLang's ``Apertus2509Detector`` unit suites.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_apertus2509_detector.py``
and ``test_apertus2509_detector_finish.py`` (Apache-2.0, copyright the SGLang project): the
model outputs (its ``_block`` helper), the tool schemas, the expected calls and content,
and the chunkings it feeds (every width from 1 to the whole text, a second block cut at
every point, its explicit two-chunk splits); the code is ours. Every text goes through
``check_format`` (whole, 1-char, 7-char and random chunkings), and each pinned chunking
is replayed and compared with the one-shot result.

Where SGLang's expectation differs on purpose, we assert ours and say why:
- A block cut off by the end of the stream reports the call it had started,
  ``incomplete``, with what it had (SGLang keeps it buffered and emits nothing).
- Arguments are the model's JSON as written (``"Z\\u00fcrich"`` stays escaped; it is the
  same string).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import ToolCallStart, testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]
FMT = "apertus"
TOOLS = [
    {
        "type": "function",
        "function": {"name": n, "parameters": {"type": "object", "properties": {}}},
    }
    for n in ("get_weather", "get_time")
]


def _block(calls: list[dict[str, Any]]) -> str:
    return "<|tools_prefix|>" + json.dumps(calls) + "<|tools_suffix|>"


MULTI = (
    "before"
    + _block([{"get_weather": {"city": "Zürich"}}])
    + "between"
    + _block([{"get_time": {}}, {"get_weather": {"city": "Tokyo"}}])
    + "done"
)
TWO_BLOCKS = (
    '<|tools_prefix|>[{"get_weather": {}}]<|tools_suffix|>'
    '<|tools_prefix|>[{"get_time": {}}]<|tools_suffix|>done'
)
CUT = '<|tools_prefix|>[{"get_time": {"zone":'

CASES: list[tuple[str, str, Calls]] = [
    (
        MULTI,
        "beforebetweendone",
        [
            ("get_weather", {"city": "Zürich"}),
            ("get_time", {}),
            ("get_weather", {"city": "Tokyo"}),
        ],
    ),
    ("hello", "hello", []),
    ("hello world", "hello world", []),
    (_block([{"get_time": {}}]) + "done", "done", [("get_time", {})]),
    (TWO_BLOCKS, "done", [("get_weather", {}), ("get_time", {})]),
    (
        '<|tools_prefix|>[{"get_weather": {}}]<|tools_suffix|>hi',
        "hi",
        [("get_weather", {})],
    ),
    # Cut off: the started call is reported incomplete (SGLang: nothing).
    (_block([{"get_weather": {}}]) + CUT, "", [("get_weather", {}), ("get_time", {"zone": None})]),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_apertus_cases(text: str, content: str, calls: Calls, data: st.DataObject) -> None:
    assert summary(check_format(FMT, text, data, TOOLS)) == (content, calls)


def _replay(pieces: list[str]) -> list[testing.Item]:
    return testing.coalesce(testing.run(tool_parser(FMT, tools=TOOLS), pieces))


def test_every_width_gives_the_one_shot_result() -> None:
    whole = check_format(FMT, MULTI, None, TOOLS)
    for width in range(1, len(MULTI) + 1):
        assert _replay([MULTI[i : i + width] for i in range(0, len(MULTI), width)]) == whole
    calls = [v for k, v in whole if isinstance(v, testing.Call)]
    assert [c.index for c in calls] == [0, 1, 2]
    assert json.loads(calls[0].arguments) == {"city": "Zürich"}


def test_second_block_cut_at_every_point() -> None:
    first = _block([{"get_weather": {}}])
    second = _block([{"get_time": {"zone": "UTC"}}])
    text = first + "between" + second + "done"
    whole = check_format(FMT, text, None, TOOLS)
    assert summary(whole) == (
        "betweendone",
        [("get_weather", {}), ("get_time", {"zone": "UTC"})],
    )
    for split in range(1, len(second)):
        p = tool_parser(FMT, tools=TOOLS)
        head = p.feed(first + "between" + second[:split])
        # Only the first call has started: nothing of the cut second block leaks.
        assert [e.name for e in head if isinstance(e, ToolCallStart)] in (
            ["get_weather"],
            ["get_weather", "get_time"],
        )
        events = head + p.feed(second[split:] + "done") + p.finish()
        assert testing.coalesce(events) == whole, split


@pytest.mark.parametrize(
    "pieces",
    [
        [
            '<|tools_prefix|>[{"get_weather": {}}]<|tools_suffix|><|tools_prefix|>[{"get_t',
            'ime": {}}]<|tools_suffix|>done',
        ],
        [
            '<|tools_prefix|>[{"get_weather": {}}]<|tools_suffix|><|tools_p',
            'refix|>[{"get_time": {}}]<|tools_suffix|>done',
        ],
        [TWO_BLOCKS],
    ],
)
def test_sglang_pinned_chunkings(pieces: list[str]) -> None:
    text = "".join(pieces)
    got = _replay(pieces)
    assert got == check_format(FMT, text, None, TOOLS)
    assert summary(got) == ("done", [("get_weather", {}), ("get_time", {})])
