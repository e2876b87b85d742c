"""gigachat3 against SGLang's ``GigaChat3Detector`` unit suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_gigachat3_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs (both marker forms), the
tool schemas, the chunkings it feeds and the expected calls and content; the code is
ours. Every text goes through ``check_format`` (whole, 1-char, 7-char and random
chunkings), and SGLang's chunkings are replayed as given and compared with the one-shot
result.

Where SGLang's expectation differs on purpose, we assert ours and say why:
- ``{"name": ..., "arguments": {invalid json}}``: the call had started, so it ends
  ``incomplete`` with ``{}`` and the rest is text (SGLang gives the whole text as content).
- A call with no ``arguments`` key gets ``{}`` (SGLang drops it): a parameterless call is
  a call (vLLM #28806 was the opposite bug).
- ``"arguments": "string_args"`` (a string that is not a JSON object) and a call with no
  name are text, whole (SGLang drops them too, keeping no text).
- A call cut off by the end (``{"city": "London"``) is ``incomplete``, its arguments closed.

``has_tool_call`` (SGLang's API) is not ported.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "manage_user_memory",
            "parameters": {
                "type": "object",
                "properties": {
                    "content": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
                    "action": {
                        "type": "string",
                        "enum": ["create", "update", "delete"],
                        "default": "create",
                    },
                    "id": {
                        "anyOf": [{"type": "string", "format": "uuid"}, {"type": "null"}],
                        "default": None,
                    },
                },
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
P = "<|message_sep|>\n\nfunction call<|role_sep|>\n"
MEMORY = '{"name": "manage_user_memory", "arguments": {"action": "create", "id": "preferences"}}'
PREFS = {
    "action": "create",
    "id": "preferences",
    "content": {
        "short_answers": True,
        "hate_emojis": True,
        "english_ui": False,
        "russian_math_explanations": True,
    },
}

CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    ("How can I help you today?", "How can I help you today?", []),
    (P + MEMORY, "", [("manage_user_memory", {"action": "create", "id": "preferences"})]),
    (P + '{"name": "manage_user_memory", "arguments": {}}', "", [("manage_user_memory", {})]),
    (
        P + '{"name": "manage_user_memory", "arguments": {"action": "create", "id": "preferences", '
        '"content": {"short_answers": true, "hate_emojis": true, "english_ui": false, '
        '"russian_math_explanations": true}}}',
        "",
        [("manage_user_memory", PREFS)],
    ),
    (
        "I'll remember that."
        + P
        + '{"name": "manage_user_memory", "arguments": {"action": "create", "id": "test"}}</s>',
        "I'll remember that.",
        [("manage_user_memory", {"action": "create", "id": "test"})],
    ),
    # SGLang: no call; text here, whole
    (P + '{"arguments": {"action": "create"}}', P + '{"arguments": {"action": "create"}}', []),
    # SGLang: no call; a call with {} here
    (P + '{"name": "manage_user_memory"}', "", [("manage_user_memory", {})]),
    # SGLang: no call; text here, whole
    (
        P + '{"name": "manage_user_memory", "arguments": "string_args"}',
        P + '{"name": "manage_user_memory", "arguments": "string_args"}',
        [],
    ),
    (
        "<|function_call|>" + MEMORY,
        "",
        [("manage_user_memory", {"action": "create", "id": "preferences"})],
    ),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_gigachat3_cases(text: str, content: str, calls: Any, data: st.DataObject) -> None:
    assert summary(check_format("gigachat3", text, data, TOOLS)) == (content, calls)


@given(data=st.data())
def test_sglang_invalid_json(data: st.DataObject) -> None:
    text = P + '{"name": "manage_user_memory", "arguments": {invalid json}}'
    items = check_format("gigachat3", text, data, TOOLS)
    calls = [(v.name, v.arguments, v.incomplete) for _, v in items if isinstance(v, testing.Call)]
    assert calls == [("manage_user_memory", "{}", True)]  # SGLang: no call, all text
    assert summary(items)[0] == "invalid json}}"


def _replay(pieces: list[str]) -> list[testing.Item]:
    one_shot = check_format("gigachat3", "".join(pieces), None, TOOLS)
    got = testing.coalesce(testing.run(tool_parser("gigachat3", tools=TOOLS), pieces))
    assert got == one_shot, pieces
    return one_shot


NYC = '{"name": "get_weather", "arguments": {"city": "NYC"}}'


@pytest.mark.parametrize(
    ("pieces", "content", "calls"),
    [
        (["How ", "can ", "I ", "help ", "you?"], "How can I help you?", []),
        (
            ["<|message_sep|>\n\n", "function call", "<|role_sep|>\n",
             '{"name": "manage_user_memory", ', '"arguments": {"action": "create"',
             ', "id": "preferences"}}'],
            "",
            [("manage_user_memory", {"action": "create", "id": "preferences"})],
        ),
        (
            ["I'll ", "help ", "you.", "<|message_sep|>\n\n", "function call", "<|role_sep|>\n",
             '{"name": "get_weather", ', '"arguments": {"city": "Tokyo"}}'],
            "I'll help you.",
            [("get_weather", {"city": "Tokyo"})],
        ),
        (
            ["<|message_sep|>\n\n", "functi", "on call<|role_sep|>\n",
             '{"name": "manage_user_memory", "arguments": ',
             '{"action": "create", "id": "prefs", ',
             '"content": {"likes": ["short", "clear"], ',
             '"dislikes": ["emojis", "verbose"]}', "}}"],
            "",
            [("manage_user_memory", {"action": "create", "id": "prefs", "content": {
                "likes": ["short", "clear"], "dislikes": ["emojis", "verbose"]}})],
        ),
        (
            ["<|message_sep|>\n\n", "function c", "all<|role_sep|>\n",
             '{"name": "get_weather", ', '"arguments": {"city": "Paris"}}', "</s>"],
            "",
            [("get_weather", {"city": "Paris"})],
        ),
        (
            ["I'll remember that.", "<|message_sep|>\n\nfuncti", "on call<|role_sep|>\n",
             '{"name": "manage_user_memory", "arguments": {"action": "create", "id": '
             '"preferences", "content": {"short_answers": true, "hate_emojis": true, ',
             '"english_ui": false, "russian_math_explanations": true}', "}}"],
            "I'll remember that.",
            [("manage_user_memory", PREFS)],
        ),
        (
            ["<|message_sep|>\n\n", "func", "tion call", "<|role_sep|>\n",
             *testing.chunk_every(NYC, 5)],
            "",
            [("get_weather", {"city": "NYC"})],
        ),
        (
            ["I'll help you.", "<|function_call|>",
             '{"name": "manage_user_memory", "arguments": ', '{"action": "create", "id": "prefs"}}'],
            "I'll help you.",
            [("manage_user_memory", {"action": "create", "id": "prefs"})],
        ),
    ],
)  # fmt: skip
def test_sglang_streaming(pieces: list[str], content: str, calls: Any) -> None:
    assert summary(_replay(pieces)) == (content, calls)


def test_sglang_streaming_incomplete_json() -> None:
    pieces = ["<|message_sep|>\n\n", "fun", "ction call<|role_sep|>\n",
              '{"name": "get_weather", ', '"arguments": {"city": "London"']  # fmt: skip
    items = _replay(pieces)
    calls = [(v.name, v.arguments, v.incomplete) for _, v in items if isinstance(v, testing.Call)]
    assert calls == [("get_weather", '{"city": "London"}', True)]
