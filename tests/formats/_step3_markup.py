"""Step-3's special tokens and the call helpers of SGLang's Step3Detector suites
(``test/registered/unit/function_call/test_step3_detector*.py``, Apache-2.0, copyright the
SGLang project), shared by the three ported files."""

from __future__ import annotations

from typing import Any

BOT = "<｜tool_calls_begin｜>"
EOT = "<｜tool_calls_end｜>"
CALL_BEGIN = "<｜tool_call_begin｜>"
CALL_END = "<｜tool_call_end｜>"
SEP = "<｜tool_sep｜>"
MARKUP = ("<steptml", "<｜tool_call", "<｜tool_sep")


def tool(name: str, props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        params["required"] = required
    return {"type": "function", "function": {"name": name, "parameters": params}}


def every(text: str, size: int | None) -> list[str]:
    if size is None:
        return [text]
    return [text[i : i + size] for i in range(0, len(text), size)]
