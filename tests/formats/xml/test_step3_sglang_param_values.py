"""step3 against SGLang's Step3Detector parameter-value suite (values containing ``<``).

Cases are taken from SGLang's
``test/registered/unit/function_call/test_step3_detector_param_values.py`` (Apache-2.0,
copyright the SGLang project): the model outputs, the tool schema, the expected calls and
its 8-character chunking; the code is ours. Every text goes through ``check_format``
(whole, 1-char, 7-char and random chunkings) and the 8-character chunking is replayed.
No deliberate differences.
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
from support import STEP3_SEP as SEP
from support import (
    check_format,
    every,
    summary,
)
from support import function_tool as tool

FMT = "step3"
TOOLS = [tool("run_code", {"code": {"type": "string"}, "lang": {"type": "string"}}, ["code"])]


def _wrap_tool_call(invoke_body: str) -> str:
    return f"{BOT}{CALL_BEGIN}function{SEP}{invoke_body}{CALL_END}{EOT}"


def _invoke(*params: tuple[str, str]) -> str:
    body = "".join(f'<steptml:parameter name="{k}">{v}</steptml:parameter>' for k, v in params)
    return f'<steptml:invoke name="run_code">{body}</steptml:invoke>'


CASES: list[tuple[str, dict[str, Any]]] = [
    (
        _wrap_tool_call(_invoke(("code", "if a < b: print(a)"), ("lang", "python"))),
        {"code": "if a < b: print(a)", "lang": "python"},
    ),
    (
        _wrap_tool_call(_invoke(("code", "x = 1\nif x < 2:\n    print(x)"))),
        {"code": "x = 1\nif x < 2:\n    print(x)"},
    ),
    (
        _wrap_tool_call(_invoke(("code", "print(1)"), ("lang", "python"))),
        {"code": "print(1)", "lang": "python"},
    ),
]


@pytest.mark.parametrize(("text", "args"), CASES)
@given(data=st.data())
def test_sglang_values_with_lt(text: str, args: dict[str, Any], data: st.DataObject) -> None:
    items = check_format(FMT, text, data, TOOLS)
    assert summary(items) == ("", [("run_code", args)])
    got = testing.coalesce(testing.run(tool_parser(FMT, tools=TOOLS), every(text, 8)))
    assert got == items
