"""``streamcall serve``: the OpenAI-compatible proxy (needs the ``server`` extra).

- ``create_app(config)``: the proxy, an ASGI app (``app.py``).
- ``replay_app(delay)``: the built-in upstream replaying the bundled examples (``replay.py``).
- ``run(config, host, port, workers)``: both under uvicorn. With no ``config.upstream``
  the replay upstream is started in the same process on an ephemeral loopback port, and
  the proxy points at it. With ``workers > 1`` uvicorn forks workers that each build the
  app from the config (passed in the environment); each is stateless, so any number of
  them, on any number of hosts, can sit behind one load balancer.

Importing this package imports starlette, uvicorn and httpx; the core never does.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import socket
import sys

from streamcall.server.app import (
    CONFIG_ENV,
    ServerConfig,
    config_for_examples,
    create_app,
)
from streamcall.server.emit import ChunkEmitter, message_json
from streamcall.server.replay import replay_app

__all__ = ["ChunkEmitter", "ServerConfig", "create_app", "message_json", "replay_app", "run"]


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
        replay_task = asyncio.create_task(replay.serve(sockets=[sock]))
        try:
            await proxy.serve()
        finally:
            replay.should_exit = True
            await replay_task

    asyncio.run(serve_both())


def _banner(config: ServerConfig, host: str, port: int, workers: int, replay: bool) -> None:
    lines = [f"streamcall serve: http://{host}:{port}/v1 -> {config.upstream}"]
    if replay:
        lines.append(
            "  upstream: built-in replay of the bundled examples; models: "
            + ", ".join(config.models)
        )
    lines.append(
        f"  tool-call format: {config.format or 'routed from each request model'}; "
        f"reasoning: {config.reasoning or 'routed from each request model'}; workers: {workers}"
    )
    sys.stderr.write("\n".join(lines) + "\n")
    sys.stderr.flush()
