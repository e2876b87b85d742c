"""What keeps the proxy safe to run: health that tells the truth, client keys, body limits,
keys kept out of logs and errors, bodies nested too deeply, a parser that raises mid-stream,
an upstream stream that is cut, and the replay upstream's unknown models. All of it on
loopback, real servers (uvicorn), the openai SDK or raw sockets as the client."""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from loopback_harness import Script, ServerThread, scripted_upstream
from openai import OpenAI
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from test_proxy_loopback import ServerThreadClosedPort, _collect

from streamcall.cli import CLIError, main, parse_size
from streamcall.server import ServerConfig, create_app, replay_app, startup_warnings
from streamcall.server import body as body_module
from streamcall.server import parsers as parsers_module
from streamcall.stream import StreamParser

HERMES = "NousResearch/Hermes-3-Llama-3.1-8B"
CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
TEXT = "Let me look that up for you, one moment.\n<tool_call>\n" + CALL + "\n</tool_call>"
MESSAGES: Any = [{"role": "user", "content": "weather?"}]


def _client(proxy: ServerThread, key: str = "x") -> OpenAI:
    return OpenAI(base_url=f"{proxy.url}/v1", api_key=key, max_retries=0, timeout=20)


@pytest.fixture
def upstream() -> Iterator[ServerThread]:
    # test/cut: the model's text stops inside the call, and so does the stream
    scripts = {HERMES: Script(TEXT), "test/cut": Script(TEXT[:-25], fault="cut")}
    server = ServerThread(scripted_upstream(scripts)).start()
    yield server
    server.stop()


def _proxy(upstream_url: str, **options: Any) -> ServerThread:
    config = ServerConfig(upstream=upstream_url, timeout=10.0, **options)
    return ServerThread(create_app(config)).start()


# --- /health ------------------------------------------------------------------------------


def test_health_is_degraded_while_the_upstream_cannot_be_reached() -> None:
    upstream = ServerThread(scripted_upstream({HERMES: Script(TEXT)})).start()
    proxy = _proxy(f"{upstream.url}/v1")
    try:
        ok = httpx.get(f"{proxy.url}/health", timeout=10)
        assert ok.status_code == 200 and ok.json()["status"] == "ok"
        assert "reason" not in ok.json()
        upstream.stop()  # the upstream goes away; the proxy is still up
        down = httpx.get(f"{proxy.url}/health", timeout=10)
        assert down.status_code == 503
        body = down.json()
        assert body["status"] == "degraded"
        assert "cannot be reached" in body["reason"] and upstream.url in body["reason"]
        assert "counters" in body
    finally:
        proxy.stop()


# --- client keys --------------------------------------------------------------------------


def test_client_key_is_required_and_health_stays_open(upstream: ServerThread) -> None:
    proxy = _proxy(f"{upstream.url}/v1", client_keys=["ck-alpha-0001"], api_key="up-key-0002")
    try:
        with pytest.raises(openai.AuthenticationError) as info:
            _client(proxy, "wrong-key-0003").chat.completions.create(
                model=HERMES, messages=MESSAGES
            )
        assert info.value.status_code == 401
        error = info.value.body
        assert isinstance(error, dict) and error["code"] == 401
        assert "Authorization: Bearer" in error["message"]
        # a raw request without any header, and /v1/models, are refused the same way
        raw = httpx.post(f"{proxy.url}/v1/chat/completions", json={"messages": MESSAGES})
        assert raw.status_code == 401 and raw.json()["error"]["type"] == "invalid_request_error"
        assert raw.headers["www-authenticate"] == "Bearer"
        assert httpx.get(f"{proxy.url}/v1/models", timeout=5).status_code == 401
        health = httpx.get(f"{proxy.url}/health", timeout=5)
        assert health.status_code == 200 and health.json()["client_key_required"] is True
        assert health.json()["counters"]["unauthorized"] == 3
        # the right key works, and the upstream sees the proxy's key, never the client's
        got = _collect(
            list(
                _client(proxy, "ck-alpha-0001").chat.completions.create(
                    model=HERMES, messages=MESSAGES, stream=True
                )
            )
        )
        assert [name for _, name, _ in got["calls"]] == ["get_weather"]
    finally:
        proxy.stop()


# --- keys never in a log line or an error body -------------------------------------------


def _echo_upstream() -> Starlette:
    """An upstream that refuses every key, quoting the one it got (as OpenAI half does)."""

    async def refuse(request: Request) -> Response:
        sent = request.headers.get("authorization", "")
        message = f"Incorrect API key provided: {sent.removeprefix('Bearer ')}."
        logging.getLogger("test.echo").warning("refused %s", sent)  # not the proxy's log
        return JSONResponse({"error": {"message": message, "code": "invalid_api_key"}}, 401)

    return Starlette(
        routes=[
            Route("/v1/chat/completions", refuse, methods=["POST"]),
            Route("/v1/models", refuse, methods=["GET"]),
        ]
    )


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith("test."):
            return
        text = record.getMessage()
        if record.exc_info:
            text += logging.Formatter().formatException(record.exc_info)
        self.lines.append(text)


@pytest.fixture
def records() -> Iterator[_Records]:
    handler = _Records()
    loggers = [logging.getLogger(n) for n in ("", "streamcall", "uvicorn", "uvicorn.error")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(handler)
    logging.getLogger("streamcall").setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.removeHandler(handler)
            lg.setLevel(level)


def test_no_key_in_a_log_line_or_an_error_body(
    records: _Records, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream_key, client_key, forwarded = "sk-up-6f1e2d", "ck-cl-91ab3c", "sk-own-4c4c4c"
    echo = ServerThread(_echo_upstream()).start()
    guarded = _proxy(f"{echo.url}/v1", api_key=upstream_key, client_keys=[client_key])
    open_proxy = _proxy(f"{echo.url}/v1")  # no key of its own: the client's is forwarded
    bodies: list[str] = []
    try:
        for proxy, key in ((guarded, client_key), (open_proxy, forwarded)):
            for stream in (True, False):
                body = {"model": HERMES, "messages": MESSAGES, "stream": stream}
                r = httpx.post(
                    f"{proxy.url}/v1/chat/completions",
                    json=body,
                    headers={"authorization": f"Bearer {key}"},
                    timeout=10,
                )
                assert r.status_code == 401
                assert r.json()["error"]["message"] == "Incorrect API key provided: ***."
                bodies.append(r.text)
            bodies.append(
                httpx.get(f"{proxy.url}/v1/models", headers={"authorization": f"Bearer {key}"}).text
            )
        bad = httpx.post(
            f"{guarded.url}/v1/chat/completions",
            json={"messages": MESSAGES},
            headers={"authorization": f"Bearer {forwarded}"},
        )
        assert bad.status_code == 401
        bodies.append(bad.text)
        health = httpx.get(f"{guarded.url}/health", timeout=10)
        assert health.json()["status"] == "degraded"  # the upstream refuses the proxy's key
        bodies.append(health.text)
    finally:
        guarded.stop()
        open_proxy.stop()
        echo.stop()
    # a password in the upstream URL, on a port where nothing listens
    with ServerThreadClosedPort() as port:
        url = f"http://streamcall:pw-7d7d7d@127.0.0.1:{port}/v1"
        proxy = _proxy(url, api_key=upstream_key)
        try:
            r = httpx.post(f"{proxy.url}/v1/chat/completions", json={"messages": MESSAGES})
            assert r.status_code == 502
            bodies.append(r.text)
            bodies.append(httpx.get(f"{proxy.url}/health", timeout=10).text)
        finally:
            proxy.stop()
    # the start-up banner, on a public address with every kind of key
    monkeypatch.setattr("uvicorn.run", lambda *a, **k: None)
    monkeypatch.setattr("streamcall.cli.serve.bind_error", lambda *a: None)  # 8000 may be busy
    argv = ["serve", "--upstream", url, "--api-key", upstream_key, "--client-key", client_key]
    assert main([*argv, "--host", "0.0.0.0"]) == 0
    banner = capsys.readouterr().err
    assert "streamcall serve:" in banner and "***@127.0.0.1" in banner
    everything = "\n".join([*bodies, *records.lines, banner])
    assert records.lines, "the proxy logged nothing: the check would prove nothing"
    for key in (upstream_key, client_key, forwarded, "pw-7d7d7d"):
        assert key not in everything, key


def test_public_bind_with_an_upstream_key_and_no_client_key_warns(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("uvicorn.run", lambda *a, **k: None)
    monkeypatch.setattr("streamcall.cli.serve.bind_error", lambda *a: None)  # 8000 may be busy
    monkeypatch.delenv("STREAMCALL_CLIENT_KEY", raising=False)
    base = ["serve", "--upstream", "http://127.0.0.1:9/v1", "--api-key", "sk-up-111"]
    assert main([*base, "--host", "0.0.0.0"]) == 0
    err = capsys.readouterr().err
    assert "warning: listening on 0.0.0.0 with an upstream API key" in err
    assert "--client-key" in err and "sk-up-111" not in err
    for quiet in (["--host", "127.0.0.1"], ["--host", "0.0.0.0", "--client-key", "ck-1"]):
        assert main([*base, *quiet]) == 0
        assert "warning" not in capsys.readouterr().err
    monkeypatch.setenv("STREAMCALL_CLIENT_KEY", "ck-from-env")
    assert main([*base, "--host", "0.0.0.0"]) == 0
    assert "warning" not in capsys.readouterr().err
    config = ServerConfig(upstream="http://u/v1", api_key="k")
    assert startup_warnings(config, "::1") == [] and startup_warnings(config, "localhost") == []
    assert startup_warnings(config, "192.168.1.7") and startup_warnings(config, "example.org")
    assert startup_warnings(ServerConfig(upstream="http://u/v1"), "0.0.0.0") == []


def test_client_key_from_the_environment(
    upstream: ServerThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}
    monkeypatch.setattr("streamcall.server.run", lambda config, **kw: seen.update(c=config))
    monkeypatch.setattr("streamcall.cli.serve.bind_error", lambda *a: None)  # 8000 may be busy
    monkeypatch.setenv("STREAMCALL_CLIENT_KEY", "ck-env-5")
    monkeypatch.setenv("STREAMCALL_API_KEY", "sk-env-6")
    assert main(["serve", "--upstream", f"{upstream.url}/v1", "--upstream-tools", "none"]) == 0
    config = seen["c"]
    assert (config.client_keys, config.api_key, config.upstream_tools) == (
        ["ck-env-5"],
        "sk-env-6",
        "none",
    )
    assert config.max_body == 16 << 20


# --- request bodies: too large, nested too deeply -----------------------------------------


def _raw_request(port: int, head: bytes, parts: list[bytes]) -> bytes:
    """Send ``head`` and ``parts`` (never the whole body) and read the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head)
        for part in parts:
            sock.sendall(part)
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            data = sock.recv(65536)
            if not data:
                break
            answer += data
        return answer


def test_a_body_over_the_limit_is_413_before_it_is_read(
    upstream: ServerThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(body_module, "_DRAIN_SECONDS", 0.3)
    proxy = _proxy(f"{upstream.url}/v1", max_body=100_000)
    try:
        head = (
            b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n"
            b"content-type: application/json\r\ncontent-length: 17000000\r\n"
        )
        # a client that waits for "100 Continue" never gets it: nothing of the body is read
        answer = _raw_request(proxy.port, head + b"expect: 100-continue\r\n\r\n", [])
        assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
        assert b"100 Continue" not in answer
        assert b"larger than this proxy accepts (100000 bytes" in answer
        # Content-Length says 17 MB, 20 bytes are ever sent: 413 all the same
        answer = _raw_request(proxy.port, head + b"\r\n", [b'{"messages": [{"ro'])
        assert answer.startswith(b"HTTP/1.1 413 ")
        # chunked, no length: refused once 100 KB have come, with the body still open
        head = (
            b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n"
            b"content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n"
        )
        piece = b"[" * 30_000
        chunk = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
        answer = _raw_request(proxy.port, head, [chunk] * 4)  # 120 KB, no final 0-chunk
        assert answer.startswith(b"HTTP/1.1 413 ")
        # the openai SDK sending 200 KB and 3 MB gets the 413 (not a reset connection)
        client = _client(proxy)
        for size in (200_000, 3_000_000):
            with pytest.raises(openai.APIStatusError) as info:
                client.chat.completions.create(
                    model=HERMES, messages=[{"role": "user", "content": "x" * size}]
                )
            assert info.value.status_code == 413
        # under the limit, the same proxy answers as usual
        assert client.chat.completions.create(model=HERMES, messages=MESSAGES).choices
        assert httpx.get(f"{proxy.url}/health").json()["counters"]["bad_requests"] == 5
    finally:
        proxy.stop()


@pytest.mark.parametrize(
    "raw",
    [
        b'{"messages": ' + b"[" * 100_000,
        b'{"messages": ' + b"[" * 5_000 + b"]" * 5_000 + b"}",
        b"[" * 10**6,
        b'{"messages": [{"role": "user", "content": '
        + b'{"a": ' * 50_000
        + b"1"
        + b"}" * 50_000
        + b"}]}",
    ],
    ids=["open-arrays", "closed-arrays", "a-million-brackets", "nested-objects"],
)
def test_a_deeply_nested_body_is_a_400(upstream: ServerThread, raw: bytes) -> None:
    proxy = _proxy(f"{upstream.url}/v1")
    try:
        r = httpx.post(
            f"{proxy.url}/v1/chat/completions",
            content=raw,
            headers={"content-type": "application/json"},
            timeout=20,
        )
        assert r.status_code == 400, r.text
        error = r.json()["error"]
        assert error["type"] == "invalid_request_error"
        assert "nested too deeply" in error["message"] or "not valid JSON" in error["message"]
        # and the proxy is fine afterwards
        assert _client(proxy).chat.completions.create(model=HERMES, messages=MESSAGES).choices
        assert httpx.get(f"{proxy.url}/health").json()["counters"]["bad_requests"] == 1
    finally:
        proxy.stop()


# --- a parser that raises mid-stream, an upstream stream that is cut ----------------------


class _Exploding(StreamParser):
    """A parser that fails on its 12th chunk, as a bug in a format would."""

    def feed(self, data: bytes) -> list[Any]:
        events = super().feed(data)
        self.fed = getattr(self, "fed", 0) + 1
        if self.fed == 12:
            raise ValueError("injected parser failure")
        return events


def test_a_parser_that_raises_ends_the_stream_like_an_upstream_failure(
    upstream: ServerThread, monkeypatch: pytest.MonkeyPatch, records: _Records
) -> None:
    monkeypatch.setattr(parsers_module, "StreamParser", _Exploding)
    proxy = _proxy(f"{upstream.url}/v1")
    try:
        chunks: list[Any] = []
        with pytest.raises(openai.APIError) as info:
            for chunk in _client(proxy).chat.completions.create(
                model=HERMES, messages=MESSAGES, stream=True
            ):
                chunks.append(chunk)
        assert "streamcall failed while parsing" in info.value.message
        assert "injected parser failure" in info.value.message
        got = _collect(chunks)
        # what was parsed before the failure reached the client (3-char upstream chunks)
        assert got["content"] and TEXT.startswith(got["content"])
        assert got["finish"] is None
        # on the wire: the error event, then [DONE]
        body = {"model": HERMES, "messages": MESSAGES, "stream": True}
        with httpx.stream("POST", f"{proxy.url}/v1/chat/completions", json=body) as r:
            wire = b"".join(r.iter_bytes()).decode()
        events = [e for e in wire.split("\n\n") if e]
        assert events[-1] == "data: [DONE]"
        error = json.loads(events[-2].removeprefix("data: "))["error"]
        assert error["type"] == "server_error" and error["code"] == 500
        # without a stream: a 500, not a traceback
        with pytest.raises(openai.InternalServerError):
            monkeypatch.setattr(_Exploding, "finish", _raise)
            _client(proxy).chat.completions.create(model=HERMES, messages=MESSAGES)
        counters = httpx.get(f"{proxy.url}/health").json()["counters"]
        assert counters["parser_errors"] == 3
        assert any("parser failed mid-stream" in line for line in records.lines)
    finally:
        proxy.stop()


def _raise(self: StreamParser) -> list[Any]:
    raise RuntimeError("injected finish failure")


def test_an_upstream_stream_cut_without_finish_or_done(upstream: ServerThread) -> None:
    proxy = _proxy(f"{upstream.url}/v1", format="hermes")
    try:
        chunks: list[Any] = []
        with pytest.raises(openai.APIError) as info:
            for chunk in _client(proxy).chat.completions.create(
                model="test/cut", messages=MESSAGES, stream=True
            ):
                chunks.append(chunk)
        assert "ended early" in info.value.message
        got = _collect(chunks)
        assert got["content"] == "Let me look that up for you, one moment.\n"
        # the open call ends as the model wrote it (the parser's closing is not sent): its
        # arguments do not load, so no client runs it
        assert [(name, args) for _, name, args in got["calls"]] == [("get_weather", '{"city')]
        assert got["finish"] is None  # not "stop": nothing said it ended
        assert httpx.get(f"{proxy.url}/health").json()["counters"]["upstream_disconnects"] == 1
    finally:
        proxy.stop()


# --- the replay upstream ------------------------------------------------------------------


def test_replay_upstream_answers_404_for_a_model_it_does_not_have() -> None:
    replay = ServerThread(replay_app(delay=0)).start()
    proxy = _proxy(f"{replay.url}/v1")
    try:
        client = _client(proxy)
        for stream in (True, False):
            with pytest.raises(openai.NotFoundError) as info:
                client.chat.completions.create(
                    model="acme/unknown-model", messages=MESSAGES, stream=stream
                )
            message = str(info.value)
            assert "acme/unknown-model" in message
            assert "ibm-granite/granite-4.0-h-small" in message  # its models are listed
        direct = httpx.post(f"{replay.url}/v1/chat/completions", json={"messages": MESSAGES})
        assert direct.status_code == 400 and "'model' is required" in direct.text
    finally:
        proxy.stop()
        replay.stop()


def test_parse_size() -> None:
    assert parse_size("16MB", "--max-body") == 16 << 20
    assert parse_size("512kb", "--max-body") == 512 << 10
    assert parse_size("1048576", "--max-body") == 1 << 20
    assert parse_size("2 GiB", "--max-body") == 2 << 30
    for bad in ("", "0", "-5", "12 parsecs", "1.5MB"):
        with pytest.raises(CLIError, match="--max-body must be a positive size"):
            parse_size(bad, "--max-body")
