"""step3 against SGLang's Step3Detector streaming regression suite.

Cases are taken from SGLang's
``test/registered/unit/function_call/test_step3_detector_streaming.py`` (Apache-2.0,
copyright the SGLang project): the model outputs (its ``_call``/``_param`` helpers), the
tool schemas, the expected content and calls, and the chunkings it replays (whole, 16,
8, 4 and 1 characters, and its three explicit increments); the code is ours. Every text
goes through ``check_format`` (whole, 1-char, 7-char and random chunkings), and each
pinned chunking is replayed and compared with the one-shot result.

Found by this port and fixed (``engines/xml_params.py``): a block cut off inside a second call's
header released the first call's ``<｜tool_call_end｜>`` wrapper (and the blanks and
wrappers after it) as text. Inside a block that has held a call, the wrappers between
calls are markup now, dropped; the cut header itself is still text.

Where SGLang's expectation differs on purpose, we assert ours and say why:
- SGLang drops calls to tools not in the list; streamcall reports them.
- A call of a type other than ``function`` (``custom<｜tool_sep｜>``) is not a call the
  format defines: its block is kept as the text it is (SGLang drops it silently).
- The cut second call's header (``<steptml:invoke name="get_ti``) is text: its name never
  arrived, so there is no call to report (SGLang drops it).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import tool_parser
from support import STEP3_BOT as BOT
from support import STEP3_CALL_BEGIN as CALL_BEGIN
from support import STEP3_CALL_END as CALL_END
from support import STEP3_EOT as EOT
from support import STEP3_MARKUP as MARKUP
from support import STEP3_SEP as SEP
from support import (
    check_format,
    every,
    summary,
)
from support import function_tool as tool

Calls = list[tuple[str, dict[str, Any]]]
FMT = "step3"
TOOLS = [
    tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}}, ["city"]),
    tool("get_time", {"tz": {"type": "string"}}),
    tool("ping", {}),
]
CHUNK_SIZES = (None, 16, 8, 4, 1)


def _call(name: str, params: str) -> str:
    return (
        f'{CALL_BEGIN}function{SEP}<steptml:invoke name="{name}">\n{params}'
        f"</steptml:invoke>{CALL_END}\n"
    )


def _param(name: str, value: str) -> str:
    return f'<steptml:parameter name="{name}">{value}</steptml:parameter>\n'


BAD_TYPE = (
    f"{BOT}\n{CALL_BEGIN}custom{SEP}"
    f'<steptml:invoke name="get_weather">{_param("city", "SF")}</steptml:invoke>{CALL_END}\n'
    f"{EOT}\ntail"
)

CASES: list[tuple[str, str, Calls]] = [
    (
        "Sure.\n"
        + BOT
        + "\n"
        + _call("get_weather", _param("city", "SF") + _param("days", "3"))
        + EOT
        + "\nDone.",
        "Sure.\n\nDone.",
        [("get_weather", {"city": "SF", "days": 3})],
    ),
    (
        "Checking.\n"
        + BOT
        + "\n"
        + _call("get_weather", _param("city", "SF"))
        + _call("get_time", _param("tz", "UTC"))
        + EOT
        + "\nBoth done.",
        "Checking.\n\nBoth done.",
        [("get_weather", {"city": "SF"}), ("get_time", {"tz": "UTC"})],
    ),
    (
        BOT + "\n" + _call("get_weather", _param("city", "SF")) + EOT + "\nIt is sunny in SF.",
        "\nIt is sunny in SF.",
        [("get_weather", {"city": "SF"})],
    ),
    (BOT + "\n" + _call("ping", "") + EOT + "\nok", "\nok", [("ping", {})]),
    (
        BOT
        + "\n"
        + f'{CALL_BEGIN}function{SEP}<steptml:invoke name="ping"></steptml:invoke>{CALL_END}\n'
        + EOT,
        "",
        [("ping", {})],
    ),
    # SGLang drops the undeclared tool; it is reported here.
    (
        BOT + "\n" + _call("get_wether", _param("city", "SF")) + EOT + "\nhmm",
        "\nhmm",
        [("get_wether", {"city": "SF"})],
    ),
    # Not a function call: the block is text (SGLang drops it).
    (BAD_TYPE, BAD_TYPE, []),
    # Cut in the second call's name: the first call is kept, no wrapper leaks.
    (
        "Let me check.\n"
        + BOT
        + "\n"
        + _call("get_weather", _param("city", "SF"))
        + f'{CALL_BEGIN}function{SEP}<steptml:invoke name="get_ti',
        'Let me check.\n<steptml:invoke name="get_ti',
        [("get_weather", {"city": "SF"})],
    ),
    ("The price is 10<｜", "The price is 10<｜", []),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_step3_streaming_cases(
    text: str, content: str, calls: Calls, data: st.DataObject
) -> None:
    items = check_format(FMT, text, data, TOOLS)
    assert summary(items) == (content, calls)
    for size in CHUNK_SIZES:
        got = testing.coalesce(testing.run(tool_parser(FMT, tools=TOOLS), every(text, size)))
        assert got == items, size


def test_no_wrapper_of_a_read_call_leaks() -> None:
    text = CASES[7][0]
    content = summary(check_format(FMT, text, None, TOOLS))[0]
    assert not any(m in content for m in MARKUP if m != "<steptml")
    assert CALL_END not in content


def test_sglang_explicit_increments() -> None:
    parts = [
        "Checking.\n" + BOT + "\n",
        _call("get_weather", _param("city", "SF")) + _call("get_time", _param("tz", "UTC")),
        EOT + "\nBoth done.",
    ]
    got = testing.coalesce(testing.run(tool_parser(FMT, tools=TOOLS), parts))
    assert got == check_format(FMT, "".join(parts), None, TOOLS)
    assert summary(got) == (
        "Checking.\n\nBoth done.",
        [("get_weather", {"city": "SF"}), ("get_time", {"tz": "UTC"})],
    )
