"""``--upstream-tools render`` end to end: a server that takes no tools, and whose model
knows only what its prompt says, gives the openai SDK structured tool calls.

The upstream copies llama.cpp's server without ``--jinja``: ``/v1/chat/completions``
answers 500 to any request with ``tools``; ``/v1/completions`` completes a raw prompt.
Its "model" reads that prompt as a model would: it writes a call to ``get_weather`` only
when the prompt describes that tool in the syntax its family was trained on (a Hermes
``<tools>`` block for the Hermes/Qwen family, Qwen3-Coder's ``<function><name>`` list)
and asks about the weather; once the prompt holds the tool's result (``<tool_response>``
with the temperature), it answers with it. It streams completion chunks of 4 characters,
stops where the request's ``stop`` strings say, and records every request.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from loopback_harness import ServerThread
from openai import OpenAI
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from streamcall import render_prompt
from streamcall.prompt import ChatTemplate
from streamcall.server import ServerConfig, create_app
from streamcall.server.app import config_with_model_dir

QWEN3 = "Qwen/Qwen3-8B"
CODER = "Qwen/Qwen3-Coder-30B-A3B-Instruct"
TEMPLATES = Path(__file__).resolve().parent.parent / "fixtures" / "chat_templates" / "llama.cpp"
TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
QUESTION = [{"role": "user", "content": "What is the weather in Paris?"}]


def _model_output(prompt: str) -> str:
    """What the scripted model writes for a prompt (module docstring)."""
    results = re.findall(r"<tool_response>\n(.*?)\n</tool_response>", prompt, re.S)
    if results:
        temp = json.loads(results[-1])["temp"]
        return f"It is {temp} degrees in Paris."
    hermes_tools = re.search(r"<tools>\n(.*?)\n</tools>", prompt, re.S)
    knows_hermes = hermes_tools is not None and '"name": "get_weather"' in hermes_tools.group(1)
    knows_coder = "<function>\n<name>get_weather</name>" in prompt
    if "weather" in prompt.rsplit("<|im_start|>user", 1)[-1]:
        if knows_hermes:
            return 'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>'
        if knows_coder:
            return "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call><|im_end|>"
    return "I have no way to look up the weather.<|im_end|>"


class Upstream:
    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.thread = ServerThread(self.app()).start()

    @property
    def url(self) -> str:
        return f"{self.thread.url}/v1"

    def last(self) -> dict[str, Any]:
        return self.requests[-1][1]

    def app(self) -> Starlette:
        async def chat(request: Request) -> Response:
            body = await request.json()
            self.requests.append(("chat", body))
            if body.get("tools"):
                return JSONResponse(
                    {"error": {"code": 500, "message": "tools param requires --jinja flag"}}, 500
                )
            return JSONResponse({"error": {"message": "this test sends no plain chat"}}, 400)

        async def completions(request: Request) -> Response:
            body = await request.json()
            self.requests.append(("completions", body))
            if not isinstance(body.get("prompt"), str):
                return JSONResponse({"error": {"message": "prompt must be a string"}}, 400)
            text = _model_output(body["prompt"])
            for stop in body.get("stop") or []:
                text = text.split(stop, 1)[0]
            usage = {
                "prompt_tokens": len(body["prompt"]) // 4,
                "completion_tokens": 9,
                "total_tokens": 0,
            }
            usage["total_tokens"] = usage["prompt_tokens"] + 9
            if not body.get("stream"):
                choice = {"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}
                return JSONResponse(
                    {
                        "id": "cmpl-1",
                        "object": "text_completion",
                        "choices": [choice],
                        "usage": usage,
                    }
                )

            async def events() -> AsyncIterator[bytes]:
                for i in range(0, len(text), 4):
                    chunk = {
                        "id": "cmpl-1",
                        "object": "text_completion",
                        "choices": [{"index": 0, "text": text[i : i + 4], "finish_reason": None}],
                    }
                    yield f"data: {json.dumps(chunk)}\n\n".encode()
                last = {
                    "id": "cmpl-1",
                    "object": "text_completion",
                    "choices": [{"index": 0, "text": "", "finish_reason": "stop"}],
                }
                yield f"data: {json.dumps(last)}\n\n".encode()
                options = body.get("stream_options") or {}
                if options.get("include_usage"):
                    yield f"data: {json.dumps({'id': 'cmpl-1', 'choices': [], 'usage': usage})}\n\n".encode()
                yield b"data: [DONE]\n\n"

            return StreamingResponse(events(), media_type="text/event-stream")

        async def models(request: Request) -> Response:
            return JSONResponse({"object": "list", "data": []})

        return Starlette(
            routes=[
                Route("/v1/chat/completions", chat, methods=["POST"]),
                Route("/v1/completions", completions, methods=["POST"]),
                Route("/v1/models", models, methods=["GET"]),
            ]
        )


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    up = Upstream()
    yield up
    up.thread.stop()


class Proxy:
    def __init__(self, config: ServerConfig) -> None:
        self.thread = ServerThread(create_app(config)).start()
        self.client = OpenAI(
            base_url=f"{self.thread.url}/v1", api_key="x", max_retries=0, timeout=20
        )


@pytest.fixture(scope="module")
def proxies(
    upstream: Upstream, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Proxy]]:
    checkpoint = tmp_path_factory.mktemp("Qwen3-8B")
    (checkpoint / "tokenizer_config.json").write_text(
        json.dumps(
            {
                "chat_template": (TEMPLATES / "Qwen-Qwen3-0.6B.jinja").read_text(encoding="utf-8"),
                "eos_token": "<|im_end|>",
                "pad_token": "<|endoftext|>",
            }
        ),
        encoding="utf-8",
    )
    base = ServerConfig(upstream=upstream.url, timeout=20.0, upstream_tools="render")
    made = {
        "family": Proxy(base),  # streamcall's template, from each request's model
        "model-dir": Proxy(config_with_model_dir(base, checkpoint)),
        "strip": Proxy(ServerConfig(upstream=upstream.url, timeout=20.0, upstream_tools="strip")),
    }
    yield made
    for proxy in made.values():
        proxy.thread.stop()


def _ask(client: OpenAI, messages: list[Any], stream: bool, model: str = QWEN3) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "tools": TOOLS,
        "extra_body": {"chat_template_kwargs": {"enable_thinking": False}},
    }
    if not stream:
        answer = client.chat.completions.create(**kwargs)
        message = answer.choices[0].message
        return {
            "content": message.content or "",
            "calls": [
                (c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []
            ],
            "finish": answer.choices[0].finish_reason,
        }
    content: list[str] = []
    calls: dict[int, list[str]] = {}
    finish = None
    for chunk in client.chat.completions.create(stream=True, **kwargs):
        for choice in chunk.choices:
            delta = choice.delta
            content.append(delta.content or "")
            for call in delta.tool_calls or []:
                entry = calls.setdefault(call.index, ["", "", ""])
                if call.id:
                    entry[0] = call.id
                if call.function and call.function.name:
                    entry[1] = call.function.name
                if call.function and call.function.arguments:
                    entry[2] += call.function.arguments
            finish = choice.finish_reason or finish
    return {
        "content": "".join(content),
        "calls": [tuple(calls[i]) for i in sorted(calls)],
        "finish": finish,
    }


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("which", ["family", "model-dir"])
def test_a_structured_call_from_a_server_that_takes_no_tools(
    proxies: dict[str, Proxy], upstream: Upstream, which: str, stream: bool
) -> None:
    got = _ask(proxies[which].client, QUESTION, stream)
    assert [(name, json.loads(args)) for _, name, args in got["calls"]] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert got["content"] == "Checking.\n"  # the blank before a first call is text
    assert got["finish"] == "tool_calls"
    kind, sent = upstream.requests[-1]
    assert kind == "completions"
    assert "tools" not in sent and "messages" not in sent
    assert sent["stop"] == ["<|im_end|>"]
    assert sent["skip_special_tokens"] is False
    assert sent["prompt"].endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")


def test_with_model_dir_the_prompt_is_the_checkpoint_template_s(
    proxies: dict[str, Proxy], upstream: Upstream
) -> None:
    _ask(proxies["model-dir"].client, QUESTION, stream=False)
    template = ChatTemplate.from_string(
        (TEMPLATES / "Qwen-Qwen3-0.6B.jinja").read_text(encoding="utf-8"),
        special_tokens={"eos_token": "<|im_end|>"},
    )
    expected = render_prompt(QUESTION, tools=TOOLS, template=template, enable_thinking=False)
    assert upstream.last()["prompt"] == expected


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("which", ["family", "model-dir"])
def test_a_two_turn_agent_loop(
    proxies: dict[str, Proxy], upstream: Upstream, which: str, stream: bool
) -> None:
    client = proxies[which].client
    first = _ask(client, QUESTION, stream)
    call_id, name, arguments = first["calls"][0]
    messages = [
        *QUESTION,
        {
            "role": "assistant",
            "content": first["content"],
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": json.dumps({"temp": 21})},
    ]
    second = _ask(client, messages, stream)
    assert second == {"content": "It is 21 degrees in Paris.", "calls": [], "finish": "stop"}
    prompt = upstream.last()["prompt"]
    # the earlier call is written back in the model's own syntax, the result as Qwen3 frames it
    assert (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
        in prompt
    )
    assert '<|im_start|>user\n<tool_response>\n{"temp": 21}\n</tool_response><|im_end|>' in prompt


def test_the_family_of_the_request_model_renders_it(
    proxies: dict[str, Proxy], upstream: Upstream
) -> None:
    got = _ask(proxies["family"].client, QUESTION, stream=True, model=CODER)
    assert [(n, json.loads(a)) for _, n, a in got["calls"]] == [("get_weather", {"city": "Paris"})]
    assert "<function>\n<name>get_weather</name>" in upstream.last()["prompt"]


def test_strip_tells_the_model_nothing_which_render_mends(proxies: dict[str, Proxy]) -> None:
    """The failure render exists for: with strip, the server accepts the request but the
    model never hears of the tool (here the upstream's chat route has no model at all)."""
    with pytest.raises(openai.BadRequestError):
        _ask(proxies["strip"].client, QUESTION, stream=False)


def test_a_model_with_no_template_gets_a_clear_400(proxies: dict[str, Proxy]) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        _ask(proxies["family"].client, QUESTION, stream=False, model="some/unknown-model")
    assert "no tool-call format routes from the model id 'some/unknown-model'" in str(info.value)


def test_a_template_that_fails_names_itself_and_its_line(
    upstream: Upstream, tmp_path: Path
) -> None:
    (tmp_path / "chat_template.jinja").write_text(
        "{% for m in messages %}\n{{ m.content }}\n{% if m.role == 'tool' %}"
        "{{ raise_exception('tool messages are not supported') }}{% endif %}\n{% endfor %}",
        encoding="utf-8",
    )
    config = config_with_model_dir(
        ServerConfig(upstream=upstream.url, timeout=20.0, upstream_tools="render"), tmp_path
    )
    proxy = Proxy(config)
    try:
        messages = [*QUESTION, {"role": "tool", "tool_call_id": "x", "content": "1"}]
        for stream in (True, False):
            with pytest.raises(openai.BadRequestError) as info:
                _ask(proxy.client, messages, stream)
            text = str(info.value)
            assert "chat_template.jinja, line 3" in text
            assert "tool messages are not supported" in text
    finally:
        proxy.thread.stop()
