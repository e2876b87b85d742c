"""``streamcall serve``: the OpenAI-compatible proxy (needs the ``server`` extra).

- ``create_app(config)``: the proxy, an ASGI app (``app.py``): chat completions, and the
  Responses and Messages APIs over the same upstream path (``responses.py``,
  ``messages.py``, ``api.py``).
- ``replay_app(delay)``: the built-in upstream replaying the bundled examples (``replay.py``).
- ``run(config, host, port, workers)``: both under uvicorn. With no ``config.upstream``
  the replay upstream is started in the same process on an ephemeral loopback port, and
  the proxy points at it. With ``workers > 1`` uvicorn forks workers that each build the
  app from the config (passed in the environment); each is stateless, so any number of
  them, on any number of hosts, can sit behind one load balancer.

At startup a banner goes to stderr, and a warning when the proxy listens beyond loopback
with an upstream key and no client key (``startup_warnings``): then anyone who reaches the
port spends that key. Neither ever shows a key.

Importing this package imports starlette, uvicorn and httpx; the core never does.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import ipaddress
import json
import logging
import os
import socket
import sys
from collections.abc import Coroutine
from typing import Any

from streamcall.server.app import (
    CONFIG_ENV,
    ServerConfig,
    config_for_examples,
    create_app,
    public_url,
)
from streamcall.server.emit import ChunkEmitter, message_json
from streamcall.server.replay import replay_app

__all__ = [
    "ChunkEmitter",
    "ServerConfig",
    "create_app",
    "is_loopback",
    "message_json",
    "replay_app",
    "run",
    "startup_warnings",
]


def _loopback_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    sock.setblocking(False)
    return sock


def run(
    config: ServerConfig,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    log_level: str = "info",
) -> None:
    """Serve the proxy until interrupted (and the replay upstream when none is given)."""
    import uvicorn

    if workers > 1:
        if config.upstream is None:
            raise ValueError("several workers need an --upstream")
        os.environ[CONFIG_ENV] = json.dumps(dataclasses.asdict(config))
        _banner(config, host, port, workers, replay=False)
        uvicorn.run(
            "streamcall.server.app:app_from_env",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            log_level=log_level,
        )
        return
    if config.upstream is not None:
        _banner(config, host, port, 1, replay=False)
        uvicorn.run(create_app(config), host=host, port=port, log_level=log_level)
        return

    sock = _loopback_socket()
    config.upstream = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    config = config_for_examples(config)
    _banner(config, host, port, 1, replay=True)

    async def serve_both() -> None:
        replay = uvicorn.Server(
            uvicorn.Config(replay_app(config.replay_delay), log_level="warning", lifespan="off")
        )
        proxy = uvicorn.Server(
            uvicorn.Config(create_app(config), host=host, port=port, log_level=log_level)
        )
        replay_task = asyncio.create_task(_quietly(replay.serve(sockets=[sock])))
        try:
            await proxy.serve()
        finally:
            replay.should_exit = True
            await replay_task

    asyncio.run(serve_both())


# uvicorn's loggers are shared by every server in the process: the replay upstream's own
# info lines ("Started server process", ...) would repeat the proxy's. Records logged from the
# replay's task, below warning, are dropped.
_IN_REPLAY: contextvars.ContextVar[bool] = contextvars.ContextVar("in_replay", default=False)


class _QuietReplay(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or not _IN_REPLAY.get()


async def _quietly(serving: Coroutine[Any, Any, None]) -> None:
    _IN_REPLAY.set(True)  # this task's context only
    for name in ("uvicorn.error", "uvicorn.access", "uvicorn"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _QuietReplay) for f in logger.filters):
            logger.addFilter(_QuietReplay())
    await serving


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or a name) only listens on this machine."""
    if host.strip().lower() in ("localhost", "localhost.localdomain", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve beyond loopback


def startup_warnings(config: ServerConfig, host: str) -> list[str]:
    """What an operator must hear before the proxy accepts requests."""
    out: list[str] = []
    if config.api_key and not config.client_keys and not is_loopback(host):
        out.append(
            f"streamcall serve: warning: listening on {host} with an upstream API key "
            "(--api-key) and no client key: anyone who can reach this port spends that "
            "key. Give --client-key KEY (or set STREAMCALL_CLIENT_KEY), or bind 127.0.0.1."
        )
    return out


def _banner(config: ServerConfig, host: str, port: int, workers: int, replay: bool) -> None:
    lines = [
        f"streamcall serve: http://{host}:{port}/v1 -> {public_url(config.upstream)}",
        "  POST /v1/chat/completions, /v1/responses (OpenAI Responses), "
        "/v1/messages (Anthropic Messages)",
    ]
    if replay:
        lines.append(
            "  upstream: built-in replay of the bundled examples; models: "
            + ", ".join(config.models)
        )
    fmt = config.format or "routed from each request model"
    if config.response_template is not None:
        fmt += " (the checkpoint's response template)"
    elif config.format == "auto":
        fmt += " (sniffed from each answer)"
    elif config.format == "derived":
        fmt += " (read off the checkpoint's chat template by rendering it)"
    lines.append(
        f"  tool-call format: {fmt}; "
        f"reasoning: {config.reasoning or 'routed from each request model'}; workers: {workers}"
    )
    lines.append(
        f"  upstream tools: {config.upstream_tools}; unknown calls: {config.unknown_calls}; "
        f"client key: "
        f"{'required' if config.client_keys else 'not required'}; "
        f"max body: {config.max_body} bytes"
    )
    lines.extend(startup_warnings(config, host))
    sys.stderr.write("\n".join(lines) + "\n")
    sys.stderr.flush()
