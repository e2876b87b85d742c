"""The proxy in front of servers that refuse tools, and the request's own switches.

Loopback upstreams copy two real servers' rules (``loopback_harness.tool_refusal``):
llama.cpp's server without ``--jinja`` (500 on any ``tools``, and on a ``tool_choice``)
and vLLM without a tool parser (400 on ``tool_choice`` ``"auto"``, its default with tools).
Each model writes Hermes ``<tool_call>`` markup as plain text, as those servers return it.
Through the official openai SDK:

- ``--upstream-tools pass`` (the default) gets the upstream's refusal, and the error says
  which option fixes it; ``strip`` (llama.cpp) and ``none`` (vLLM) give structured calls,
  streamed and not, and the upstream received what the option says;
- the client's ``tool_choice`` is honoured by the proxy: ``"none"`` parses nothing (the
  markup is content), a named function is the only call (the other is content);
- a Qwen3 request with ``chat_template_kwargs.enable_thinking: false`` gets content, not
  reasoning; without the switch, Qwen3's default (the prompt opened ``<think>``) holds.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from loopback_harness import Script, ServerThread, scripted_upstream
from openai import OpenAI
from test_proxy_loopback import _collect

from streamcall.server import ServerConfig, create_app
from streamcall.server.app import tools_hint, upstream_body

HERMES = "NousResearch/Hermes-3-Llama-3.1-8B"
QWEN3 = "Qwen/Qwen3-8B"
WEATHER = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
SEARCH = '{"name": "search", "arguments": {"query": "tea"}}'
CALLS_TEXT = f"On it.\n<tool_call>\n{SEARCH}\n</tool_call>\n<tool_call>\n{WEATHER}\n</tool_call>"
TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": {key: {"type": "string"}}},
        },
    }
    for name, key in (("get_weather", "city"), ("search", "query"))
]
ANSWER = "Hello! How can I help you today?"


def _scripts() -> dict[str, Script]:
    return {HERMES: Script(CALLS_TEXT), QWEN3: Script(ANSWER)}


class Stack:
    """One scripted upstream with a rule set, and a proxy per ``--upstream-tools``."""

    def __init__(self, rules: str) -> None:
        self.scripts = _scripts()
        self.upstream = ServerThread(scripted_upstream(self.scripts, rules=rules)).start()
        self.proxies: dict[str, ServerThread] = {}

    def client(self, mode: str) -> OpenAI:
        proxy = self.proxies.get(mode)
        if proxy is None:
            config = ServerConfig(
                upstream=f"{self.upstream.url}/v1", timeout=20.0, upstream_tools=mode
            )
            proxy = self.proxies[mode] = ServerThread(create_app(config)).start()
        return OpenAI(base_url=f"{proxy.url}/v1", api_key="x", max_retries=0, timeout=20)

    def last_request(self, model: str = HERMES) -> dict[str, Any]:
        return self.scripts[model].requests[-1]

    def stop(self) -> None:
        for proxy in self.proxies.values():
            proxy.stop()
        self.upstream.stop()


@pytest.fixture(scope="module")
def llamacpp() -> Iterator[Stack]:
    stack = Stack("llamacpp")
    yield stack
    stack.stop()


@pytest.fixture(scope="module")
def vllm() -> Iterator[Stack]:
    stack = Stack("vllm")
    yield stack
    stack.stop()


def _ask(client: OpenAI, stream: bool, **extra: Any) -> dict[str, Any]:
    """One request with tools; the parsed answer in ``_collect``'s shape."""
    kwargs: dict[str, Any] = {
        "model": HERMES,
        "messages": [{"role": "user", "content": "weather in Paris?"}],
        "tools": TOOLS,
        **extra,
    }
    if stream:
        return _collect(list(client.chat.completions.create(stream=True, **kwargs)))
    answer = client.chat.completions.create(**kwargs)
    message = answer.choices[0].message
    return {
        "content": message.content or "",
        "calls": [
            (c.id, c.function.name, json.loads(c.function.arguments))
            for c in message.tool_calls or []
        ],
        "finish": answer.choices[0].finish_reason,
    }


BOTH_CALLS = [("search", {"query": "tea"}), ("get_weather", {"city": "Paris"})]


def _named(got: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(name, args) for _, name, args in got["calls"]]


# --- llama.cpp without --jinja ------------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False])
def test_llamacpp_refuses_tools_and_the_error_names_render(llamacpp: Stack, stream: bool) -> None:
    for mode in ("pass", "none"):
        with pytest.raises(openai.InternalServerError) as info:
            _ask(llamacpp.client(mode), stream)
        assert info.value.status_code == 500
        message = str(info.value)
        assert "tools param requires --jinja flag" in message  # the upstream's own words
        assert "--upstream-tools render" in message


@pytest.mark.parametrize("stream", [True, False])
def test_llamacpp_with_strip_gives_structured_calls(llamacpp: Stack, stream: bool) -> None:
    got = _ask(llamacpp.client("strip"), stream)
    assert _named(got) == BOTH_CALLS
    assert got["content"] == "On it.\n"
    assert got["finish"] == "tool_calls"
    sent = llamacpp.last_request()
    assert "tools" not in sent and "tool_choice" not in sent


def test_llamacpp_refuses_a_tool_choice_too_and_strip_drops_it(llamacpp: Stack) -> None:
    with pytest.raises(openai.InternalServerError) as info:
        llamacpp.client("pass").chat.completions.create(
            model=HERMES, messages=[{"role": "user", "content": "hi"}], tool_choice="auto"
        )
    assert "Unsupported param: tool_choice" in str(info.value)
    assert "--upstream-tools render" in str(info.value)
    got = _ask(llamacpp.client("strip"), True, tool_choice="required", parallel_tool_calls=True)
    assert _named(got) == BOTH_CALLS
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(llamacpp.last_request())


# --- vLLM without a tool parser -----------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False])
def test_vllm_refuses_auto_and_the_error_names_none(vllm: Stack, stream: bool) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        _ask(vllm.client("pass"), stream)
    assert info.value.status_code == 400
    message = str(info.value)
    assert '"auto" tool choice requires --enable-auto-tool-choice' in message
    assert "--upstream-tools none" in message


@pytest.mark.parametrize("stream", [True, False])
def test_vllm_with_none_gives_structured_calls(vllm: Stack, stream: bool) -> None:
    got = _ask(vllm.client("none"), stream)
    assert _named(got) == BOTH_CALLS
    assert got["finish"] == "tool_calls"
    sent = vllm.last_request()
    assert sent["tools"] == TOOLS  # the template still shows the model its tools
    assert sent["tool_choice"] == "none"


def test_vllm_with_strip_gives_structured_calls_too(vllm: Stack) -> None:
    got = _ask(vllm.client("strip"), True)
    assert _named(got) == BOTH_CALLS
    assert "tools" not in vllm.last_request()


def test_vllm_refuses_a_named_choice_and_none_forwards_none(vllm: Stack) -> None:
    named = {"type": "function", "function": {"name": "get_weather"}}
    with pytest.raises(openai.BadRequestError) as info:
        _ask(vllm.client("pass"), True, tool_choice=named)
    assert 'tool_choice=function "get_weather" requires --tool-call-parser' in str(info.value)
    assert "--upstream-tools none" in str(info.value)
    got = _ask(vllm.client("none"), True, tool_choice=named)
    assert vllm.last_request()["tool_choice"] == "none"
    # the proxy honours the client's choice: only get_weather is a call
    assert _named(got) == [("get_weather", {"city": "Paris"})]
    assert got["content"].startswith("On it.\n<tool_call>")
    assert '"search"' in got["content"] and '"get_weather"' not in got["content"]


# --- the client's tool_choice, honoured by the proxy --------------------------------------


@pytest.mark.parametrize("stream", [True, False])
def test_tool_choice_none_parses_no_calls(vllm: Stack, stream: bool) -> None:
    got = _ask(vllm.client("pass"), stream, tool_choice="none")  # vLLM accepts "none"
    assert got["calls"] == []
    assert got["content"] == CALLS_TEXT
    assert got["finish"] == "stop"
    assert vllm.last_request()["tool_choice"] == "none"


@pytest.mark.parametrize("stream", [True, False])
def test_named_tool_choice_keeps_only_that_call(llamacpp: Stack, stream: bool) -> None:
    named = {"type": "function", "function": {"name": "search"}}
    got = _ask(llamacpp.client("strip"), stream, tool_choice=named)
    assert _named(got) == [("search", {"query": "tea"})]
    assert got["content"].startswith("On it.\n")
    assert '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}' in got["content"]
    assert got["finish"] == "tool_calls"


def test_a_bad_tool_choice_is_a_400(vllm: Stack) -> None:
    client = vllm.client("none")
    for choice in ("sometimes", {"type": "function", "function": {"name": "nope"}}):
        with pytest.raises(openai.BadRequestError) as info:
            _ask(client, True, tool_choice=choice)
        assert info.value.status_code == 400
        assert "tool_choice" in str(info.value)


# --- thinking switched off ----------------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False])
def test_qwen3_with_thinking_off_gets_content(vllm: Stack, stream: bool) -> None:
    client = vllm.client("pass")
    messages: Any = [{"role": "user", "content": "hi"}]
    off = {"chat_template_kwargs": {"enable_thinking": False}}
    if stream:
        got = _collect(
            list(
                client.chat.completions.create(
                    model=QWEN3, messages=messages, stream=True, extra_body=off
                )
            )
        )
        plain = _collect(
            list(client.chat.completions.create(model=QWEN3, messages=messages, stream=True))
        )
        content, reasoning = got["content"], got["reasoning"]
        default_content, default_reasoning = plain["content"], plain["reasoning"]
    else:
        answer = client.chat.completions.create(model=QWEN3, messages=messages, extra_body=off)
        message = answer.choices[0].message
        content = message.content or ""
        reasoning = (message.model_extra or {}).get("reasoning_content") or ""
        plain = client.chat.completions.create(model=QWEN3, messages=messages).choices[0]
        default_content = plain.message.content or ""
        default_reasoning = (plain.message.model_extra or {}).get("reasoning_content") or ""
    assert (content, reasoning) == (ANSWER, "")
    # the switch went upstream untouched, for the upstream's own chat template
    assert vllm.last_request(QWEN3).get("chat_template_kwargs") is None  # the plain one
    assert vllm.scripts[QWEN3].requests[-2]["chat_template_kwargs"] == {"enable_thinking": False}
    # no switch: Qwen3's template opens <think> in the prompt, so the answer is reasoning
    assert (default_content, default_reasoning) == ("", ANSWER)


# --- the pieces, directly -----------------------------------------------------------------


def test_upstream_body_per_mode() -> None:
    body = {"messages": [], "tools": TOOLS, "tool_choice": "auto", "parallel_tool_calls": True}
    assert upstream_body(body, "pass") is body
    assert upstream_body(body, "strip") == {"messages": []}
    assert upstream_body(body, "none") == {**body, "tool_choice": "none"}
    assert upstream_body({"messages": [], "tool_choice": "auto"}, "none") == {"messages": []}
    assert body["tool_choice"] == "auto"  # the client's body is not changed


def test_tools_hint_only_for_tool_refusals() -> None:
    sent = {"tools": TOOLS}
    assert tools_hint("pass", sent, "context length exceeded") is None
    assert tools_hint("pass", {}, "tools param requires --jinja flag") is None
    assert "--upstream-tools render" in (
        tools_hint("pass", sent, "tools param requires --jinja flag") or ""
    )
    vllm_text = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser'
    assert "--upstream-tools none" in (tools_hint("pass", sent, vllm_text) or "")
    assert "--upstream-tools render" in (tools_hint("none", sent, vllm_text) or "")
