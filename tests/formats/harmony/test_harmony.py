"""``openai`` (gpt-oss Harmony, text form): vLLM's cases in every chunking.

vLLM's tests build their inputs with openai-harmony (``Conversation``/``Message``, then
``render_conversation_for_completion``); the texts below are those conversations' model
output written out in Harmony's text form, following openai/harmony ``docs/format.md``.
Sources (Apache-2.0): vllm-project/vllm ``tests/tool_parsers/test_openai_tool_parser.py``
and ``tests/parser/test_harmony_parser.py``; the format doc's own examples.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import Reasoning, testing
from streamcall.formats.registry import tool_parser
from support import check_format

S = "<|start|>assistant"


def msg(channel: str, body: str, to: str | None = None, ctype: str | None = "json") -> str:
    header = f"<|channel|>{channel}"
    if to is not None:
        header += f" to={to}"
        if ctype is not None:
            header += f" <|constrain|>{ctype}"
    end = "<|call|>" if to is not None else "<|end|>"
    return f"{header}<|message|>{body}{end}"


def convo(*messages: str) -> str:
    return S.join(messages)


Item = tuple[str, Any]
ANALYSIS = 'User asks: "What is the weather in Tokyo?" We need to use get_current_weather tool.'

CASES: list[tuple[str, list[Item]]] = [
    # test_extract_tool_calls_no_tools
    (msg("final", "This is a test"), [("text", "This is a test")]),
    # test_extract_tool_calls_single_tool, both argument spellings
    (
        convo(
            msg("analysis", ANALYSIS),
            msg("commentary", '{"location": "Tokyo"}', "functions.get_current_weather"),
        ),
        [("reasoning", ANALYSIS), ("get_current_weather", {"location": "Tokyo"})],
    ),
    (
        msg("commentary", '{\n"location": "Tokyo"\n}', "functions.get_current_weather"),
        [("get_current_weather", {"location": "Tokyo"})],
    ),
    # test_extract_tool_calls_multiple_tools (not_json_no_content_type: text here)
    (
        convo(
            msg("commentary", '{"location": "Tokyo"}', "functions.get_current_weather"),
            msg("commentary", '{"location": "Tokyo"}', "functions.get_user_location"),
            msg("commentary", '{"location": "Tokyo"}', "functions.no_content_type", None),
            msg("commentary", "{}", "functions.empty_args"),
            msg("commentary", "", "functions.no_args"),
        ),
        [
            ("get_current_weather", {"location": "Tokyo"}),
            ("get_user_location", {"location": "Tokyo"}),
            ("no_content_type", {"location": "Tokyo"}),
            ("empty_args", {}),
            ("no_args", {}),
        ],
    ),
    (
        msg("commentary", "foo", "functions.not_json_no_content_type", None),
        [("text", msg("commentary", "foo", "functions.not_json_no_content_type", None))],
    ),
    # test_extract_tool_calls_with_content
    (
        convo(
            msg("analysis", ANALYSIS),
            msg("commentary", '{"location": "Tokyo"}', "functions.get_current_weather"),
            "<|channel|>final<|message|>This tool call will get the weather.<|return|>",
        ),
        [
            ("reasoning", ANALYSIS),
            ("get_current_weather", {"location": "Tokyo"}),
            ("text", "This tool call will get the weather."),
        ],
    ),
    # test_harmony_parser: reasoning and content, truncated outputs, preambles
    (
        convo(msg("analysis", "I should think first."), msg("final", "The answer is 4.")),
        [("reasoning", "I should think first."), ("text", "The answer is 4.")],
    ),
    (
        "<|channel|>final<|message|>I'm in the middle of answering",
        [("text", "I'm in the middle of answering")],
    ),
    (
        "<|channel|>analysis<|message|>I'm thinking.<|end|>"
        "<|start|>assistant<|channel|>final<|message|>I'm in the middle of answering",
        [("reasoning", "I'm thinking."), ("text", "I'm in the middle of answering")],
    ),
    (
        "<|channel|>commentary<|message|>Let me look that up.<|end|>"
        "<|start|>assistant<|channel|>final<|message|>The answer is 42.<|end|>",
        [("text", "Let me look that up.The answer is 42.")],
    ),
    # test_commentary_with_recipient_excluded: the recipient before the channel
    (
        "<|channel|>commentary<|message|>Let me check the weather.<|end|>"
        "<|start|>assistant to=functions.get_weather<|channel|>commentary"
        '<|message|>{"location": "SF"}<|end|>',
        [("text", "Let me check the weather."), ("get_weather", {"location": "SF"})],
    ),
    # bare and dotted recipients are functions; built-in tools and 'assistant' are not
    (
        convo(
            msg("commentary", '{"location": "Tokyo"}', "get_current_weather"),
            msg("commentary", '{"a": 2, "b": 3}', "math.sum"),
        ),
        [("get_current_weather", {"location": "Tokyo"}), ("math.sum", {"a": 2, "b": 3})],
    ),
    (
        convo(
            msg("commentary", "Some tool response", "assistant", None),
            msg("final", "Here is the answer"),
        ),
        [("reasoning", "Some tool response"), ("text", "Here is the answer")],
    ),
    (
        '<|channel|>analysis to=browser.search <|constrain|>json<|message|>{"query": "x"}<|call|>',
        [("reasoning", '{"query": "x"}')],
    ),
    # docs/format.md: no space before <|constrain|>, and a bare content type
    (
        "<|channel|>analysis<|message|>Need to use function get_weather.<|end|>"
        "<|start|>assistant<|channel|>commentary to=functions.get_weather<|constrain|>json"
        '<|message|>{"location":"San Francisco"}<|call|>',
        [
            ("reasoning", "Need to use function get_weather."),
            ("get_weather", {"location": "San Francisco"}),
        ],
    ),
    (
        '<|channel|>commentary to=functions.f json<|message|>{"a": "<|end|> is a token"}<|call|>',
        # a terminator ends the message even inside a JSON string (it is a special
        # token); the stray one after it, outside any message, is text
        [("f", {"a": ""}), ("text", ' is a token"}<|call|>')],
    ),
    # plain text with no Harmony markup is text
    ("How can I help you today?", [("text", "How can I help you today?")]),
]

MALFORMED = [
    '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": [1, 2',
    "<|channel|>commentary to=functions.f <|constrain|>json<|message|>",
    "<|channel|>commentary to=functions.f <|constr",
    '<|channel|>commentary to=functions.f<|message|>{"a": 1} trailing<|call|>',
    '<|channel|>commentary to=functions.f<|message|>{"a": tru<|call|>',
    "<|channel|>" + "x" * 600 + "<|message|>body",
    "<|start|>assistant<|start|>assistant<|channel|>final<|message|>ok",
    "<|end|> stray <|call|> tokens",
    "<|chan",
]


def _view(items: list[testing.Item]) -> list[Item]:
    import json

    view: list[Item] = []
    for kind, value in items:
        if isinstance(value, testing.Call):
            view.append((value.name, json.loads(value.arguments)))
        else:
            view.append((kind, value))
    return view


@pytest.mark.parametrize(("text", "expected"), CASES)
@given(data=st.data())
def test_vllm_cases_in_any_chunking(text: str, expected: list[Item], data: st.DataObject) -> None:
    assert _view(check_format("openai", text, data)) == expected


@pytest.mark.parametrize("text", MALFORMED)
@given(data=st.data())
def test_malformed_never_loses_text(text: str, data: st.DataObject) -> None:
    check_format("openai", text, data)


def test_cut_call_is_incomplete_and_closed() -> None:
    items = check_format("openai", MALFORMED[0])
    call = items[0][1]
    assert isinstance(call, testing.Call)
    assert call.incomplete and call.arguments == '{"a": [1, 2]}'


def test_arguments_stream_verbatim_before_the_call_ends() -> None:
    parser = tool_parser("openai")
    events = parser.feed(
        '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"q": "ab'
    )
    assert "".join(getattr(e, "delta", "") for e in events) == '{"q": "ab'
    parser = tool_parser("openai")
    assert parser.feed("<|channel|>analysis<|message|>hmm") == [Reasoning("hmm")]
