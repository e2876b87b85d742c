"""What agents send, through the proxy, with the official SDKs on loopback: system entries in
Anthropic messages, namespace and custom tools, hosted tools, stop sequences, count_tokens,
bad input as a 4xx that names its member, the blanks a template writes around reasoning (no
whitespace-only part reaches a client), and a cut call never arriving as runnable."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx
import openai
import pytest
from agent_upstream import CALL, CUT_MODEL, MODEL, Stack
from loopback_harness import ServerThread, scripted_upstream

from streamcall.events import ToolCallArgs, ToolCallEnd, ToolCallStart
from streamcall.server import ServerConfig, create_app
from streamcall.server.api import Call, Offered
from streamcall.server.messages import IGNORED as MESSAGES_IGNORED
from streamcall.server.messages import MessagesWire
from streamcall.server.responses import IGNORED as RESPONSES_IGNORED
from streamcall.server.responses import ResponsesWire
from streamcall.server.responses import chat_request as responses_request
from streamcall.server.tools import responses_tools
from streamcall.server.unfinished import WrittenCalls, written

WEATHER_TOOL = {
    "name": "get_weather",
    "description": "The weather in a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
RESPONSES_WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}
MODES = ("pass", "none", "render")


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    s = Stack()
    try:
        yield s
    finally:
        s.stop()


def _anthropic(stack: Stack, mode: str = "pass") -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=stack.urls[mode], api_key="k", max_retries=0)


def _openai(stack: Stack, mode: str = "pass") -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{stack.urls[mode]}/v1", api_key="k", max_retries=0)


# -- Anthropic: system entries, cache_control, stop sequences ---------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_system_entry_in_messages_is_a_system_message_where_it_stands(
    stack: Stack, mode: str
) -> None:
    # Claude Code sends one (the SDK's MessageParam allows role "system")
    messages: Any = [
        {"role": "user", "content": "Hello"},
        {
            "role": "system",
            "content": [
                {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}
            ],
        },
        {
            "role": "user",
            "content": [{"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral"}}],
        },
    ]
    got = _anthropic(stack, mode).messages.create(
        model=MODEL,
        max_tokens=50,
        system=[{"type": "text", "text": "You help.", "cache_control": {"type": "ephemeral"}}],
        messages=messages,
        tools=[{**WEATHER_TOOL, "cache_control": {"type": "ephemeral"}}],  # type: ignore[list-item]
    )
    assert got.content[-1].text == "Hello! How can I help?"  # type: ignore[union-attr]
    sent = stack.upstream.last()
    if mode == "render":
        prompt = sent["prompt"]
        assert prompt.index("You help.") < prompt.index("Hello") < prompt.index("Be brief.")
        assert prompt.index("Be brief.") < prompt.index("Hi")
    else:
        roles = [(m["role"], m["content"]) for m in sent["messages"]]
        assert roles == [
            ("system", "You help."),
            ("user", "Hello"),
            ("system", "Be brief."),
            ("user", "Hi"),
        ]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("mode", ["pass", "render"])
def test_stop_sequence_reported(stack: Stack, mode: str, stream: bool) -> None:
    client = _anthropic(stack, mode)
    hello: Any = [{"role": "user", "content": "Hello"}]
    if stream:
        with client.messages.stream(
            model=MODEL, max_tokens=50, messages=hello, stop_sequences=["How"]
        ) as s:
            got = s.get_final_message()
    else:
        got = client.messages.create(
            model=MODEL, max_tokens=50, messages=hello, stop_sequences=["How"]
        )
    assert got.stop_reason == "stop_sequence" and got.stop_sequence == "How"
    assert got.content[-1].text == "Hello! "  # type: ignore[union-attr]
    sent = stack.upstream.last()
    assert "How" in sent["stop"]
    # not matched: the model's own end
    plain = client.messages.create(
        model=MODEL, max_tokens=50, messages=hello, stop_sequences=["never"]
    )
    assert plain.stop_reason == "end_turn" and plain.stop_sequence is None


def test_pass_mode_ids_start_with_toolu() -> None:
    wire = MessagesWire(Call({}), "m")
    wire.apply([ToolCallStart(0, "chatcmpl-tool-9", "f"), ToolCallEnd(0, "{}")])
    assert wire.message()["content"][0]["id"] == "toolu_chatcmpl-tool-9"


# -- count_tokens ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_count_tokens_asks_the_upstreams_tokenizer(stack: Stack, mode: str) -> None:
    hello: Any = [{"role": "user", "content": "Hello"}]
    got = _anthropic(stack, mode).messages.count_tokens(
        model=MODEL,
        messages=hello,
        tools=[WEATHER_TOOL],  # type: ignore[list-item]
    )
    route, body = stack.upstream.requests[-1]
    assert route == "tokenize"
    if mode == "render":
        # the prompt the proxy renders, counted as it is
        assert "get_weather" in body["prompt"] and body["add_special_tokens"] is False
        assert got.input_tokens == len(json.dumps(body["prompt"])) // 4
    else:
        assert body["messages"] == [{"role": "user", "content": "Hello"}]
        assert body["tools"][0]["function"]["name"] == "get_weather"
        assert got.input_tokens == len(json.dumps(body["messages"])) // 4


def test_count_tokens_without_a_tokenizer_says_so() -> None:
    upstream = ServerThread(scripted_upstream({})).start()
    proxy = ServerThread(create_app(ServerConfig(upstream=f"{upstream.url}/v1"))).start()
    try:
        client = anthropic.Anthropic(base_url=proxy.url, api_key="k", max_retries=0)
        with pytest.raises(anthropic.APIStatusError) as info:
            client.messages.count_tokens(
                model=MODEL,
                messages=[{"role": "user", "content": "Hello"}],
            )
        assert info.value.status_code == 501
        body: Any = info.value.body
        assert body["type"] == "error" and "/tokenize" in body["error"]["message"]
        bad = httpx.post(f"{proxy.url}/v1/messages/count_tokens", json={"model": MODEL}, timeout=20)
        assert bad.status_code == 400 and "messages" in bad.json()["error"]["message"]
    finally:
        proxy.stop()
        upstream.stop()


# -- hosted tools ----------------------------------------------------------------------------


def test_hosted_tools_are_not_offered_and_said_once(stack: Stack) -> None:
    client = _anthropic(stack)
    tools: Any = [WEATHER_TOOL, {"type": "web_search_20250305", "name": "web_search"}]
    ask: Any = [{"role": "user", "content": "What is the weather in Paris?"}]
    got = client.messages.create(model=MODEL, max_tokens=200, messages=ask, tools=tools)
    assert got.stop_reason == "tool_use"
    assert [t["function"]["name"] for t in stack.upstream.last()["tools"]] == ["get_weather"]
    out = _openai(stack).responses.create(
        model=MODEL,
        input="What is the weather in Paris?",
        tools=[
            RESPONSES_WEATHER,
            {"type": "web_search"},
            {"type": "code_interpreter", "container": "c"},
        ],  # type: ignore[list-item]
    )
    assert [i.type for i in out.output][-1] == "function_call"
    health = httpx.get(f"{stack.urls['pass']}/health", timeout=20).json()["hosted_tools"]
    assert health["mode"] == "drop"
    assert {"web_search_20250305", "web_search", "code_interpreter"} <= set(health["dropped"])


def test_hosted_tools_refused_when_asked(stack: Stack) -> None:
    resp = httpx.post(
        f"{stack.urls['refuse']}/v1/responses",
        json={"model": MODEL, "input": "hi", "tools": [RESPONSES_WEATHER, {"type": "web_search"}]},
        timeout=20,
    )
    assert resp.status_code == 400
    error = resp.json()["error"]
    assert error["param"] == "tools[1]" and "'web_search' is a hosted tool" in error["message"]
    resp = httpx.post(
        f"{stack.urls['refuse']}/v1/messages",
        json={
            "model": MODEL,
            "max_tokens": 10,
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"type": "web_fetch_20250910", "name": "web_fetch"}],
        },
        timeout=20,
    )
    assert resp.status_code == 400 and "tools.0" in resp.json()["error"]["message"]


# -- Responses: namespace and custom tools -----------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("mode", MODES)
def test_a_namespaced_function_is_called_and_reported_in_its_namespace(
    stack: Stack, mode: str, stream: bool
) -> None:
    client = _openai(stack, mode)
    tools: Any = [
        {
            "type": "namespace",
            "name": "weather",
            "description": "Weather tools.",
            "tools": [{k: v for k, v in RESPONSES_WEATHER.items() if k != "description"}],
        },
        {"type": "web_search"},
    ]
    if stream:
        with client.responses.stream(
            model=MODEL, input="What is the weather in Paris?", tools=tools
        ) as s:
            out = s.get_final_response()
    else:
        out = client.responses.create(
            model=MODEL, input="What is the weather in Paris?", tools=tools
        )
    call = out.output[-1]
    assert call.type == "function_call"
    assert call.name == "get_weather" and call.namespace == "weather"
    assert json.loads(call.arguments) == {"city": "Paris"}
    # sent back, the call and its output reach the model under the name it was shown
    again = client.responses.create(
        model=MODEL,
        input=[
            {"role": "user", "content": "What is the weather in Paris?"},
            {
                "type": "function_call",
                "call_id": call.call_id,
                "name": "get_weather",
                "namespace": "weather",
                "arguments": call.arguments,
            },
            {"type": "function_call_output", "call_id": call.call_id, "output": '{"temp": 21}'},
        ],
        tools=tools,
    )
    assert again.output_text == "It is 21 degrees in Paris."


def test_namespaces_that_share_a_name_are_told_apart() -> None:
    found = responses_tools(
        [
            {
                "type": "namespace",
                "name": "a",
                "description": "",
                "tools": [{"type": "function", "name": "run"}],
            },
            {
                "type": "namespace",
                "name": "b",
                "description": "",
                "tools": [{"type": "function", "name": "run"}],
            },
            {"type": "function", "name": "solo"},
        ]
    )
    assert [t["function"]["name"] for t in found.tools] == ["a__run", "b__run", "solo"]
    assert found.names["a__run"] == Offered("function", "run", "a")
    assert found.offered_name("run", "b") == "b__run"


def test_a_custom_tool_is_offered_as_one_string_and_called_back_as_custom() -> None:
    body = {
        "model": MODEL,
        "input": [
            {"role": "user", "content": "patch it"},
            {
                "type": "custom_tool_call",
                "call_id": "c1",
                "name": "apply_patch",
                "input": "*** Begin",
            },
            {"type": "custom_tool_call_output", "call_id": "c1", "output": "done"},
        ],
        "tools": [
            {
                "type": "custom",
                "name": "apply_patch",
                "description": "Edit files.",
                "format": {"type": "grammar", "syntax": "lark", "definition": "start: /.+/"},
            }
        ],
    }
    call = responses_request(body)
    fn = call.chat["tools"][0]["function"]
    assert fn["name"] == "apply_patch" and fn["parameters"]["required"] == ["input"]
    assert "start: /.+/" in fn["description"]
    assistant = call.chat["messages"][1]
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"input": "*** Begin"}
    assert call.chat["messages"][2] == {"role": "tool", "tool_call_id": "c1", "content": "done"}
    # the model's call comes back as a custom_tool_call with its input, streamed and whole
    wire = ResponsesWire(call, MODEL)
    wire.apply(
        [
            ToolCallStart(0, "call_1", "apply_patch"),
            ToolCallArgs(0, '{"input": "*** Begin Patch\\n'),
            ToolCallArgs(0, '*** End Patch"}'),
            ToolCallEnd(0, '{"input": "*** Begin Patch\\n*** End Patch"}'),
        ]
    )
    events = wire.take_events()
    kinds = [e["type"] for e in events]
    assert "response.function_call_arguments.delta" not in kinds
    assert kinds[-3:] == [
        "response.custom_tool_call_input.delta",
        "response.custom_tool_call_input.done",
        "response.output_item.done",
    ]
    from openai.types.responses import ResponseCustomToolCall

    item = ResponseCustomToolCall.model_validate(events[-1]["item"])
    assert item.input == "*** Begin Patch\n*** End Patch" and item.name == "apply_patch"


# -- framing is not content --------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("mode", MODES)
def test_no_whitespace_only_part_reaches_a_client(stack: Stack, mode: str, stream: bool) -> None:
    ask = "What is the forecast for Paris?"
    # Anthropic: no blank text block before the tool_use
    client = _anthropic(stack, mode)
    msgs: Any = [{"role": "user", "content": ask}]
    if stream:
        with client.messages.stream(
            model=MODEL,
            max_tokens=300,
            messages=msgs,
            tools=[WEATHER_TOOL],  # type: ignore[list-item]
        ) as s:
            message = s.get_final_message()
    else:
        message = client.messages.create(
            model=MODEL,
            max_tokens=300,
            messages=msgs,
            tools=[WEATHER_TOOL],  # type: ignore[list-item]
        )
    assert [b.type for b in message.content] == ["thinking", "tool_use"]
    # Responses: no blank message item
    oa = _openai(stack, mode)
    if stream:
        with oa.responses.stream(model=MODEL, input=ask, tools=[RESPONSES_WEATHER]) as rs:  # type: ignore[list-item]
            response = rs.get_final_response()
    else:
        response = oa.responses.create(model=MODEL, input=ask, tools=[RESPONSES_WEATHER])  # type: ignore[list-item]
    assert [i.type for i in response.output] == ["reasoning", "function_call"]
    # chat completions: no content at all
    chat_tools: Any = [
        {
            "type": "function",
            "function": {k: v for k, v in RESPONSES_WEATHER.items() if k != "type"},
        }
    ]
    chat_msgs: Any = [{"role": "user", "content": ask}]
    if stream:
        content = ""
        for chunk in oa.chat.completions.create(
            model=MODEL, messages=chat_msgs, tools=chat_tools, stream=True
        ):
            for choice in chunk.choices:
                content += choice.delta.content or ""
    else:
        done = oa.chat.completions.create(model=MODEL, messages=chat_msgs, tools=chat_tools)
        content = done.choices[0].message.content or ""
    assert content == ""


# -- a cut call is never runnable ---------------------------------------------------------------


def test_written_takes_off_only_the_closing() -> None:
    assert written('{"cmd": "rm -rf /tmp/bu"}') == '{"cmd": "rm -rf /tmp/bu'
    assert written('{"a": [1, 2]}') == '{"a": [1, 2'
    assert written('{"a":null}') == '{"a'
    assert written('{"a": null}') == '{"a": '
    assert written("{}") == "{"
    for text in ('{"cmd": "rm -rf /tmp/bu"}', '{"a": [1, {"b": true}]}', '{"x":""}'):
        with pytest.raises(ValueError):
            json.loads(written(text))


def test_written_calls_send_only_what_the_model_wrote() -> None:
    calls = WrittenCalls()
    first = calls.apply([ToolCallStart(0, "c", "f"), ToolCallArgs(0, '{"cmd": "rm -rf')])
    assert first[-1] == ToolCallArgs(0, '{"cmd": "rm -rf')
    last = calls.apply(
        [ToolCallArgs(0, ' /tmp/bu"}'), ToolCallEnd(0, '{"cmd": "rm -rf /tmp/bu"}', True)]
    )
    assert last == [ToolCallArgs(0, " /tmp/bu"), ToolCallEnd(0, '{"cmd": "rm -rf /tmp/bu', True)]
    # a finished call passes as it is
    whole = [ToolCallStart(1, "d", "f"), ToolCallArgs(1, "{}"), ToolCallEnd(1, "{}")]
    assert calls.apply(whole) == whole


WEATHER_ASK = "What is the weather in Paris?"


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("mode", MODES)
def test_a_call_cut_at_the_token_limit_is_not_runnable(
    stack: Stack, mode: str, stream: bool
) -> None:
    cut_at = CALL[: CALL.index('"Paris"') + len('"Par')]
    written_args = cut_at[cut_at.index('{"city"') :]
    # chat completions: the arguments as written, finish "length"
    oa = _openai(stack, mode)
    chat_tools: Any = [
        {
            "type": "function",
            "function": {k: v for k, v in RESPONSES_WEATHER.items() if k != "type"},
        }
    ]
    chat_msgs: Any = [{"role": "user", "content": WEATHER_ASK}]
    if stream:
        args, finish = "", None
        for chunk in oa.chat.completions.create(
            model=CUT_MODEL, messages=chat_msgs, tools=chat_tools, stream=True
        ):
            for choice in chunk.choices:
                for tc in choice.delta.tool_calls or []:
                    args += tc.function.arguments or "" if tc.function else ""
                finish = choice.finish_reason or finish
    else:
        done = oa.chat.completions.create(model=CUT_MODEL, messages=chat_msgs, tools=chat_tools)
        calls = done.choices[0].message.tool_calls or []
        args, finish = calls[0].function.arguments, done.choices[0].finish_reason  # type: ignore[union-attr]
    assert finish == "length"
    assert args == written_args
    with pytest.raises(ValueError):
        json.loads(args)
    # Responses: the call item incomplete, its arguments as written
    tools: Any = [RESPONSES_WEATHER]
    if stream:
        # as from OpenAI's own API: the stream ends with response.incomplete, which the
        # SDK's get_final_response does not take (it waits for response.completed)
        ended = [
            e
            for e in oa.responses.create(
                model=CUT_MODEL, input=WEATHER_ASK, tools=tools, stream=True
            )
            if e.type == "response.incomplete"
        ]
        response = ended[0].response  # type: ignore[union-attr]
    else:
        response = oa.responses.create(model=CUT_MODEL, input=WEATHER_ASK, tools=tools)
    assert response.status == "incomplete"
    item = response.output[-1]
    assert item.type == "function_call" and item.status == "incomplete"
    assert item.arguments == written_args
    # Anthropic: max_tokens; streamed, the partial input as written; whole, no tool_use
    client = _anthropic(stack, mode)
    msgs: Any = [{"role": "user", "content": WEATHER_ASK}]
    atools: Any = [WEATHER_TOOL]
    if stream:
        partial = ""
        with client.messages.stream(
            model=CUT_MODEL, max_tokens=300, messages=msgs, tools=atools
        ) as s:
            for event in s:
                if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                    partial += event.delta.partial_json
            message = s.get_final_message()
        assert partial == written_args
    else:
        message = client.messages.create(
            model=CUT_MODEL, max_tokens=300, messages=msgs, tools=atools
        )
        assert "tool_use" not in [b.type for b in message.content]
        extra: Any = message.model_extra
        assert extra["streamcall"]["incomplete_calls"][0]["arguments"] == written_args
    assert message.stop_reason == "max_tokens"


# -- bad input on the chat route -------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "body", "param", "says"),
    [
        (
            "render",
            {"messages": [{"role": "wizard", "content": "hi"}]},
            "messages[0].role",
            "not 'wizard'",
        ),
        ("pass", {"messages": [{"role": 0, "content": "hi"}]}, "messages[0].role", "not 0"),
        ("pass", {"messages": [{"role": [], "content": "hi"}]}, "messages[0].role", "not []"),
        (
            "pass",
            {
                "messages": [{"role": "user", "content": "hi"}],
                "tools": [{"type": "function", "function": {}}],
            },
            "tools[0]",
            "tools[0].function.name is required",
        ),
        (
            "render",
            {"messages": [{"role": "user", "content": "hi"}], "temperature": "hot"},
            "temperature",
            "'temperature' must be a number, not 'hot'",
        ),
        (
            "render",
            {
                "messages": [
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "tool_calls": True},
                ]
            },
            "messages[1].tool_calls",
            "must be a list of calls",
        ),
        (
            "none",
            {
                "messages": [{"role": "user", "content": "hi"}],
                "tools": [{"type": "function", "function": {"name": "f", "parameters": "s"}}],
            },
            "tools[0]",
            "tools[0].function.parameters must be an object, not 's'",
        ),
    ],
)
def test_chat_bad_input_is_a_400_that_names_it(
    stack: Stack, mode: str, body: dict[str, Any], param: str, says: str
) -> None:
    resp = httpx.post(
        f"{stack.urls[mode]}/v1/chat/completions", json={"model": MODEL, **body}, timeout=20
    )
    assert resp.status_code == 400, resp.text
    error = resp.json()["error"]
    assert error["param"] == param and says in error["message"]


# -- every member of the SDKs' request types has its rule ---------------------------------------


def _keys(typed: Any) -> set[str]:
    return set(typed.__required_keys__ | typed.__optional_keys__)


def test_every_member_the_sdks_send_is_honoured_ignored_or_refused() -> None:
    from anthropic.types import beta, message_count_tokens_params, message_create_params
    from openai.types.responses import response_create_params

    from streamcall.server import messages_request, responses_request

    anthropic_keys = (
        _keys(message_create_params.MessageCreateParamsStreaming)
        | _keys(message_count_tokens_params.MessageCountTokensParams)
        | _keys(beta.message_create_params.MessageCreateParamsStreaming)
        | _keys(beta.message_count_tokens_params.MessageCountTokensParams)
    )
    known = set(messages_request.HONOURED) | set(MESSAGES_IGNORED) | set(messages_request.REFUSED)
    assert anthropic_keys - known == set()
    openai_keys = _keys(response_create_params.ResponseCreateParamsStreaming)
    assert openai_keys - (set(responses_request.HONOURED) | set(RESPONSES_IGNORED)) == set()


def test_every_chat_member_has_its_rule_in_render_mode() -> None:
    from openai.types.chat import completion_create_params

    from streamcall.server import render

    keys = _keys(completion_create_params.CompletionCreateParamsStreaming)
    known = set(render._SHARED) | set(render.READ) | set(render.IGNORED) | set(render.REFUSED)
    assert keys - known == set()


def test_render_mode_refuses_what_it_cannot_do(stack: Stack) -> None:
    resp = httpx.post(
        f"{stack.urls['render']}/v1/chat/completions",
        json={
            "model": MODEL,
            "messages": [{"role": "user", "content": "hi"}],
            "audio": {"voice": "alloy", "format": "wav"},
        },
        timeout=20,
    )
    assert resp.status_code == 400
    error = resp.json()["error"]
    assert error["param"] == "audio" and "--upstream-tools render" in error["message"]
    ok = _openai(stack, "render").chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "hi"}],
        logprobs=True,
        top_logprobs=2,
        metadata={"a": "b"},
        extra_body={"ignore_eos": False, "min_tokens": 1},
    )
    assert ok.choices[0].message.content == "Hello! How can I help?"
    sent = stack.upstream.last()
    assert sent["logprobs"] == 2 and sent["min_tokens"] == 1 and "metadata" not in sent


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("mode", MODES)
def test_anthropic_tool_runner_goes_on_unthreaded(stack: Stack, mode: str, stream: bool) -> None:
    """The SDK's tool runner asks for a server-held thread; the proxy stores none and says so
    as the SDK reads it (``thread_unsupported_request``), and the runner sends every turn
    whole: the model sees the question with the tool result."""
    from anthropic import beta_tool

    def get_weather(city: str) -> str:
        """The weather in a city."""
        return json.dumps({"temp": 21 if city == "Paris" else 0})

    runner = _anthropic(stack, mode).beta.messages.tool_runner(
        model=MODEL,
        max_tokens=1024,
        tools=[beta_tool(get_weather)],
        messages=[{"role": "user", "content": "What is the weather in Paris?"}],
        max_iterations=4,
        **({"stream": True} if stream else {}),  # type: ignore[arg-type]
    )
    last: Any = None
    for item in runner:
        if stream:
            for _ in item:  # type: ignore[attr-defined]
                pass
            last = item.get_final_message()  # type: ignore[attr-defined]
        else:
            last = item
    assert last.content[-1].text == "It is 21 degrees in Paris."
    sent = stack.upstream.last()
    text = sent["prompt"] if mode == "render" else json.dumps(sent["messages"])
    assert "What is the weather in Paris?" in text  # the whole conversation, not the last turn
    refused = httpx.post(
        f"{stack.urls[mode]}/v1/messages",
        json={
            "model": MODEL,
            "max_tokens": 10,
            "messages": [{"role": "user", "content": "hi"}],
            "thread": {"type": "create"},
        },
        timeout=20,
    ).json()
    assert refused["error"]["details"]["error_code"] == "thread_unsupported_request"
