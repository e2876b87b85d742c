"""The proxy against the floor of its own stack: ``python -m benchmarks relay``.

The floor is a bare relay on the same stack as the proxy (starlette under uvicorn, httpx
to the upstream) that forwards the upstream's bytes unchanged. Both stand in front of the
same paced upstream and carry the same load: ``STREAMS`` concurrent chat streams, each of
``CHUNKS_TEXT`` content chunks then a Hermes tool call of about 2 KB, 1 to 4 characters a
chunk, ``PACE`` seconds apart (every tenth text chunk carries the upstream's send time
instead, for latency). The proxy runs as ``streamcall serve --upstream-tools none`` does:
it parses every chunk and re-emits the call as ``tool_calls``.

Reported for each server: CPU per upstream chunk (user + system of the server process over
the load, divided by the chunks the upstream sent), the added latency (client receive time
minus the upstream's stamp, p50 and p99, minus the same for the upstream read directly),
and the proxy/relay CPU ratio. Each server runs under uvicorn's two stacks where they are
installed: the plain asyncio loop with h11, and uvloop with httptools (what uvicorn picks
by itself when they are installed: the ``server`` extra installs them). Not a test: the
figures are CPU and latency on a shared machine; read the ratios.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import random
import signal
import subprocess
import sys
import time
from typing import Any

from benchmarks.proxy import ROOT, _cpu_s, _free_port, _one, _pct, _wait_ready

STREAMS = 50
CHUNKS_TEXT = 60
PACE = 0.02
MODEL = "NousResearch/Hermes-3-Llama-3.1-8B"


def _pieces(seed: int) -> list[str]:
    """One stream's content: text (every tenth piece a stamp slot), then a ~2 KB call."""
    rng = random.Random(seed)
    args = {"city": "Paris", "notes": "x" * 1800, "days": [1, 2, 3]}
    call = f'<tool_call>\n{{"name": "get_weather", "arguments": {json.dumps(args)}}}\n</tool_call>'
    out: list[str] = []
    for n in range(CHUNKS_TEXT):
        out.append("" if n % 10 == 0 else "word "[: rng.randint(1, 4)])
    i = 0
    while i < len(call):
        step = rng.randint(1, 4)
        out.append(call[i : i + step])
        i += step
    return out


def chunks_per_stream() -> int:
    return len(_pieces(0)) + 2  # the finish chunk and [DONE]


# --- the upstream and the relay (each in its own process) --------------------------------


def _upstream_app() -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import StreamingResponse
    from starlette.routing import Route

    def chunk(content: str | None, finish: str | None = None) -> bytes:
        delta = {} if content is None else {"content": content}
        data = {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": MODEL,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return b"data: " + json.dumps(data).encode() + b"\n\n"

    counter = iter(range(1 << 30))

    async def chat(request: Request) -> StreamingResponse:
        await request.body()
        pieces = _pieces(next(counter))

        async def gen() -> Any:
            for n, piece in enumerate(pieces):
                await asyncio.sleep(PACE)
                yield chunk(piece or f"w{n}@{time.perf_counter_ns()} ")
            yield chunk(None, "stop")
            yield b"data: [DONE]\n\n"

        return StreamingResponse(gen(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])


def _relay_app(upstream: str) -> Any:
    import httpx
    from starlette.applications import Starlette
    from starlette.background import BackgroundTask
    from starlette.requests import Request
    from starlette.responses import StreamingResponse
    from starlette.routing import Route

    client = httpx.AsyncClient(
        timeout=60.0, limits=httpx.Limits(max_connections=None, max_keepalive_connections=None)
    )

    async def chat(request: Request) -> StreamingResponse:
        body = await request.body()
        req = client.build_request(
            "POST", upstream, content=body, headers={"content-type": "application/json"}
        )
        resp = await client.send(req, stream=True)
        return StreamingResponse(
            resp.aiter_raw(),
            status_code=resp.status_code,
            media_type="text/event-stream",
            background=BackgroundTask(resp.aclose),
        )

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])


def serve(kind: str, port: int, upstream: str, loop: str, http: str) -> None:
    """Run one server in this process: the upstream, the relay or the proxy."""
    import uvicorn

    if kind == "upstream":
        app = _upstream_app()
    elif kind == "relay":
        app = _relay_app(upstream + "/chat/completions")
    else:
        from streamcall.server.app import create_app
        from streamcall.server.config import ServerConfig

        app = create_app(ServerConfig(upstream=upstream, upstream_tools="none"))
    uvicorn.run(
        app, host="127.0.0.1", port=port, log_level="warning", loop=loop, http=http, backlog=1024
    )


# --- the client ---------------------------------------------------------------------------


async def _load(url: str) -> tuple[list[int], int]:
    import httpx

    latencies: list[int] = []
    calls: list[int] = []  # (one per stream that carried a structured call)
    limits = httpx.Limits(max_connections=STREAMS + 10, max_keepalive_connections=STREAMS)
    async with httpx.AsyncClient(limits=limits, timeout=120.0) as client:
        await asyncio.gather(*(_one(client, url, latencies, calls) for _ in range(STREAMS)))
    return latencies, len(calls)


def _start(kind: str, port: int, upstream: str, loop: str, http: str) -> subprocess.Popen[bytes]:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    code = f"from benchmarks.relay import serve; serve({kind!r}, {port}, {upstream!r}, {loop!r}, {http!r})"
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env)


def _stop(*procs: subprocess.Popen[bytes]) -> None:
    for proc in procs:
        proc.send_signal(signal.SIGINT)
    for proc in procs:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def stacks() -> list[tuple[str, str]]:
    out = [("asyncio", "h11")]
    if importlib.util.find_spec("uvloop") and importlib.util.find_spec("httptools"):
        out.append(("uvloop", "httptools"))
    return out


def main() -> None:
    import httpx  # noqa: F401  (the server stack: missing, it is one line)
    import starlette  # noqa: F401
    import uvicorn  # noqa: F401

    from benchmarks._util import table

    up_port = _free_port()
    upstream = _start("upstream", up_port, "", "asyncio", "h11")
    up_url = f"http://127.0.0.1:{up_port}/v1"
    per_stream = chunks_per_stream()
    rows: list[list[object]] = []
    try:
        _wait_ready(up_url + "/chat/completions", upstream)
        direct, _ = asyncio.run(_load(up_url + "/chat/completions"))
        cpu: dict[tuple[str, str], float] = {}
        for loop, http in stacks():
            for kind in ("relay", "proxy"):
                port = _free_port()
                server = _start(kind, port, up_url, loop, http)
                try:
                    url = f"http://127.0.0.1:{port}/v1/chat/completions"
                    _wait_ready(url, server)
                    asyncio.run(_load(url))  # warm-up: imports, pools
                    before = _cpu_s(server.pid)
                    lat, calls = asyncio.run(_load(url))
                    used = _cpu_s(server.pid) - before
                finally:
                    _stop(server)
                per_chunk = used / (STREAMS * per_stream) * 1e3
                cpu[(kind, loop)] = per_chunk
                ratio = f"{per_chunk / cpu[('relay', loop)]:.2f}x" if kind == "proxy" else "1.00x"
                rows.append([
                    f"{kind} ({loop}+{http})", per_chunk, ratio,
                    _pct(lat, 0.5) - _pct(direct, 0.5), _pct(lat, 0.99) - _pct(direct, 0.99),
                    f"{calls}/{STREAMS}" if kind == "proxy" else "-",
                ])  # fmt: skip
                print(f"  measured {kind} on {loop}+{http}", file=sys.stderr)
    finally:
        _stop(upstream)
    print(
        f"\nrelay: {STREAMS} concurrent streams x {per_stream} chunks of 1-4 characters, "
        f"{PACE * 1e3:.0f} ms apart, a ~2 KB Hermes call in each; loopback, {os.cpu_count()} "
        f"cores, load average {os.getloadavg()[0]:.1f}"
    )
    print(table(
        ["server (loop+http)", "CPU ms/chunk", "vs relay", "added p50 ms", "added p99 ms",
         "tool_calls"],
        rows,
    ))  # fmt: skip
    if len(stacks()) == 1:
        print("uvloop and httptools are not installed: only the asyncio+h11 stack was measured")


if __name__ == "__main__":
    main()
