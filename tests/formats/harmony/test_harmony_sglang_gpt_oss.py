"""openai (gpt-oss Harmony) against SGLang's second ``GptOssDetector`` suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_gpt_oss_detector.py``
(Apache-2.0, copyright the SGLang project); the code is ours. That suite pins
``has_tool_call`` on one text and builds XGrammar structural tags; only the text is
portable. It is a header with no ``<|message|>`` (``... commentary to=get_weather
<|return|>``): not a message, so text here, whole, through ``check_format`` (whole,
1-char, 7-char and random chunkings). The structural-tag tests (constrained decoding)
are not ported.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from support import check_format

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string"}, "topn": {"type": "integer"}},
                "required": ["query"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        },
    },
]


@given(data=st.data())
def test_sglang_header_without_message_is_text(data: st.DataObject) -> None:
    text = "<|start|>assistant<|channel|>commentary to=get_weather<|return|>"
    assert check_format("openai", text, data, TOOLS) == [("text", text)]
    assert check_format("openai", "no tool call here", data, TOOLS) == [
        ("text", "no tool call here")
    ]
