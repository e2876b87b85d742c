"""What a first run of the proxy met (issue 47), each as a user meets it: render mode against
the built-in replay upstream, an unknown model counted as the client's refusal rather than
an upstream error, an upstream that breaks off its answer said apart from one that cannot be
reached, and the replay's log lines not repeating the proxy's."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
from loopback_harness import ServerThread

from streamcall.server import ServerConfig, config_for_examples, create_app, replay_app

HERMES = "NousResearch/DeepHermes-3-Llama-3-8B-Preview"


@pytest.fixture(scope="module")
def replay() -> Iterator[ServerThread]:
    thread = ServerThread(replay_app(delay=0)).start()
    try:
        yield thread
    finally:
        thread.stop()


@pytest.mark.parametrize("stream", [False, True])
def test_render_mode_runs_on_the_replay_upstream(replay: ServerThread, stream: bool) -> None:
    config = config_for_examples(ServerConfig(upstream=f"{replay.url}/v1", upstream_tools="render"))
    proxy = ServerThread(create_app(config)).start()
    try:
        client = openai.OpenAI(base_url=f"{proxy.url}/v1", api_key="k", max_retries=0)
        messages: list[dict[str, str]] = [{"role": "user", "content": "Weather in Paris?"}]
        if stream:
            names = []
            for chunk in client.chat.completions.create(
                model=HERMES,
                messages=messages,
                stream=True,  # type: ignore[arg-type]
            ):
                for choice in chunk.choices:
                    names += [
                        tc.function.name
                        for tc in choice.delta.tool_calls or []
                        if tc.function and tc.function.name
                    ]
        else:
            done = client.chat.completions.create(model=HERMES, messages=messages)  # type: ignore[arg-type]
            names = [c.function.name for c in done.choices[0].message.tool_calls or []]  # type: ignore[union-attr]
        assert names == ["search_docs", "get_weather"]  # the example's two calls
    finally:
        proxy.stop()


def test_an_unknown_model_is_the_clients_refusal_not_an_upstream_error(
    replay: ServerThread,
) -> None:
    proxy = ServerThread(create_app(ServerConfig(upstream=f"{replay.url}/v1"))).start()
    try:
        resp = httpx.post(
            f"{proxy.url}/v1/chat/completions",
            json={"model": "no/such-model", "messages": [{"role": "user", "content": "hi"}]},
            timeout=20,
        )
        assert resp.status_code == 404 and "no/such-model" in resp.json()["error"]["message"]
        counters = httpx.get(f"{proxy.url}/health", timeout=20).json()["counters"]
        assert counters["upstream_refusals"] == 1 and counters["upstream_errors"] == 0
    finally:
        proxy.stop()


def _breaking_upstream() -> tuple[socket.socket, threading.Thread]:
    """A server that promises a body and closes after a part of it."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)

    def serve() -> None:
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            conn.recv(65536)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                b'content-length: 1000\r\n\r\n{"choices": ['
            )
            time.sleep(0.05)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return sock, thread


def test_an_answer_that_breaks_off_is_not_called_unreachable() -> None:
    sock, _ = _breaking_upstream()
    port = sock.getsockname()[1]
    proxy = ServerThread(
        create_app(ServerConfig(upstream=f"http://127.0.0.1:{port}/v1", format="hermes"))
    ).start()
    try:
        resp = httpx.post(
            f"{proxy.url}/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
            timeout=20,
        )
        assert resp.status_code == 502
        message = resp.json()["error"]["message"]
        assert "broke off" in message and "unreachable" not in message
    finally:
        proxy.stop()
        sock.close()
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    gone = closed.getsockname()[1]
    closed.close()
    proxy = ServerThread(create_app(ServerConfig(upstream=f"http://127.0.0.1:{gone}/v1"))).start()
    try:
        resp = httpx.post(
            f"{proxy.url}/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
            timeout=20,
        )
        assert resp.status_code == 502 and "upstream unreachable" in resp.json()["error"]["message"]
    finally:
        proxy.stop()


def test_serve_with_the_replay_logs_each_line_once() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamcall.cli", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    assert out.count("Started server process") == 1, out


def test_the_rendered_prompt_gives_the_parser_its_start() -> None:
    """Render mode: where the prompt the proxy rendered leaves the model is where the parser
    starts (``generation_prompt``), over what the request's switches would say."""
    from streamcall.events import Reasoning, Text
    from streamcall.server.parsers import parser_for

    body = {
        "model": "Qwen/Qwen3-8B",
        "messages": [{"role": "user", "content": "hi"}],
        "chat_template_kwargs": {"enable_thinking": False},
    }
    sse = (
        b'data: {"choices": [{"index": 0, "delta": {"content": "hm</think>Hi!"}, '
        b'"finish_reason": "stop"}]}\n\ndata: [DONE]\n\n'
    )
    config = ServerConfig(upstream="http://127.0.0.1:9/v1", upstream_tools="render")
    opened = parser_for(config, body, "call_", "<|im_start|>assistant\n<think>\n")
    events = opened.feed(sse) + opened.finish()
    assert [e for e in events if isinstance(e, Reasoning | Text)] == [
        Reasoning("hm"),
        Text("Hi!"),
    ]
    closed = parser_for(config, body, "call_", None)  # the request's switch: thinking off
    events = closed.feed(sse) + closed.finish()
    assert "".join(e.text for e in events if isinstance(e, Text)) == "hm</think>Hi!"


def test_with_a_checkpoint_the_template_gives_the_start_in_every_mode(tmp_path: Path) -> None:
    """Outside render mode the proxy sends the chat request, but with ``--model-dir`` it
    knows the checkpoint's template, so the parser starts where that template's
    generation prompt leaves the model (rendered for that, not sent)."""
    from test_proxy_model_dir import _dir

    from streamcall.server.app import config_with_model_dir
    from streamcall.server.upstream import Upstream

    base = ServerConfig(upstream="http://127.0.0.1:9/v1")
    config = config_with_model_dir(base, _dir(tmp_path / "glm", "GLM-4.6.jinja"))
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    path, sent, prompt = Upstream(config).request_for(body)
    assert path == "chat/completions" and "prompt" not in sent
    assert prompt is not None and prompt.endswith("<|assistant|>")
    plain = Upstream(base).request_for(body)
    assert plain[2] is None  # no checkpoint: nothing known of the prompt
