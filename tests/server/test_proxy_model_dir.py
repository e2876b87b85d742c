"""``streamcall serve --model-dir DIR``: the proxy parses with the formats read off the
served checkpoint (``config_with_model_dir``), whatever the request's ``model`` says.

The loopback upstream's model id routes to nothing; the checkpoint directory holds a real
GLM-4.6 chat template (``tests/fixtures/chat_templates``), so the answers are read as GLM
with GLM's reasoning. A directory with a response template gives the ``hf`` format, whose
parsing needs ``streamcall.response_parser`` (skipped, saying so, where it is not there
yet); the config it makes is tested now.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from loopback_harness import Script, ServerThread, scripted_upstream
from openai import OpenAI
from test_proxy_loopback import _collect

import streamcall
from streamcall.cli import build_parser
from streamcall.response_templates import response_template_for
from streamcall.server import ServerConfig, create_app
from streamcall.server.app import config_with_model_dir

TEMPLATES = Path(__file__).resolve().parents[1] / "fixtures" / "chat_templates" / "llama.cpp"
MODEL = "acme/mystery-chat"  # routes to no format
GLM_TEXT = (
    "<think>The user wants Paris.</think>Checking.<tool_call>get_weather\n"
    "<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>"
)
HERMES_TEXT = (
    'Sure.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
)
TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


def _dir(root: Path, template: str | None = None, **config: Any) -> Path:
    root.mkdir(parents=True)
    if template is not None:
        (root / "chat_template.jinja").write_text((TEMPLATES / template).read_text("utf-8"))
    (root / "tokenizer_config.json").write_text(json.dumps(config))
    return root


@pytest.fixture()
def glm_proxy(tmp_path: Path) -> Iterator[OpenAI]:
    upstream = ServerThread(scripted_upstream({MODEL: Script(GLM_TEXT)})).start()
    config = config_with_model_dir(
        ServerConfig(upstream=f"{upstream.url}/v1", timeout=20.0),
        _dir(tmp_path / "glm", "GLM-4.6.jinja"),
    )
    proxy = ServerThread(create_app(config)).start()
    try:
        yield OpenAI(base_url=f"{proxy.url}/v1", api_key="x", max_retries=0, timeout=20)
    finally:
        proxy.stop()
        upstream.stop()


@pytest.mark.parametrize("stream", [True, False])
def test_the_checkpoint_decides_the_formats(glm_proxy: OpenAI, stream: bool) -> None:
    kwargs: dict[str, Any] = {
        "model": MODEL,
        "messages": [{"role": "user", "content": "weather in Paris?"}],
        "tools": TOOLS,
    }
    if stream:
        got = _collect(list(glm_proxy.chat.completions.create(stream=True, **kwargs)))
        calls = [(name, args) for _, name, args in got["calls"]]
        content, reasoning = got["content"], got["reasoning"]
    else:
        message = glm_proxy.chat.completions.create(**kwargs).choices[0].message
        calls = [
            (c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []
        ]
        content = message.content
        reasoning = (message.model_extra or {}).get("reasoning_content")
    assert calls == [("get_weather", {"city": "Paris"})]
    assert content == "Checking."
    assert reasoning == "The user wants Paris."


def test_config_with_model_dir(tmp_path: Path) -> None:
    base = ServerConfig(upstream="http://x/v1")
    glm = config_with_model_dir(base, _dir(tmp_path / "glm", "GLM-4.6.jinja"))
    assert (glm.format, glm.reasoning, glm.response_template) == ("glm45", "glm45", None)
    # nothing found: sniffed from each answer, no reasoning stage
    nothing = config_with_model_dir(base, _dir(tmp_path / "nothing"))
    assert (nothing.format, nothing.reasoning) == ("auto", "none")
    # an explicit format or reasoning wins
    named = config_with_model_dir(
        ServerConfig(upstream="http://x/v1", reasoning="qwen3"), tmp_path / "glm"
    )
    assert (named.format, named.reasoning) == ("glm45", "qwen3")
    # a response template decides both
    template = response_template_for("hermes")
    hf = config_with_model_dir(
        base, _dir(tmp_path / "hf", "GLM-4.6.jinja", response_template=template)
    )
    assert (hf.format, hf.reasoning, hf.response_template) == ("hf", None, template)


def test_serve_takes_model_dir() -> None:
    args = build_parser().parse_args(["serve", "--model-dir", "/some/dir"])
    assert args.model_dir == "/some/dir"


def test_a_sniffing_proxy(tmp_path: Path) -> None:
    upstream = ServerThread(scripted_upstream({MODEL: Script(HERMES_TEXT)})).start()
    config = ServerConfig(upstream=f"{upstream.url}/v1", timeout=20.0, format="auto")
    proxy = ServerThread(create_app(config)).start()
    try:
        client = OpenAI(base_url=f"{proxy.url}/v1", api_key="x", max_retries=0, timeout=20)
        got = _collect(
            list(
                client.chat.completions.create(
                    model=MODEL, messages=[{"role": "user", "content": "hi"}], stream=True
                )
            )
        )
        assert [(n, a) for _, n, a in got["calls"]] == [("get_weather", {"city": "Paris"})]
        assert got["content"] == "Sure."
    finally:
        proxy.stop()
        upstream.stop()


@pytest.mark.skipif(
    not hasattr(streamcall, "response_parser"),
    reason="needs the hf format (streamcall.response_parser, issue 17's stream part)",
)
@pytest.mark.parametrize("stream", [True, False])
def test_a_checkpoint_with_a_response_template(tmp_path: Path, stream: bool) -> None:
    upstream = ServerThread(scripted_upstream({MODEL: Script(HERMES_TEXT)})).start()
    config = config_with_model_dir(
        ServerConfig(upstream=f"{upstream.url}/v1", timeout=20.0),
        _dir(tmp_path / "hf", response_template=response_template_for("hermes")),
    )
    proxy = ServerThread(create_app(config)).start()
    try:
        client = OpenAI(base_url=f"{proxy.url}/v1", api_key="x", max_retries=0, timeout=20)
        kwargs: dict[str, Any] = {
            "model": MODEL,
            "messages": [{"role": "user", "content": "hi"}],
            "tools": TOOLS,
        }
        if stream:
            got = _collect(list(client.chat.completions.create(stream=True, **kwargs)))
            calls = [(n, a) for _, n, a in got["calls"]]
            content = got["content"]
        else:
            message = client.chat.completions.create(**kwargs).choices[0].message
            calls = [
                (c.function.name, json.loads(c.function.arguments))
                for c in message.tool_calls or []
            ]
            content = message.content
        assert calls == [("get_weather", {"city": "Paris"})]
        assert content == "Sure."
    finally:
        proxy.stop()
        upstream.stop()
