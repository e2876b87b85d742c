"""The proxy under load: 200 concurrent streaming requests on loopback, proxy vs direct.

Three processes, all on 127.0.0.1: a paced raw-text upstream (uvicorn), the real proxy
(``streamcall serve --upstream ...``), and this client (asyncio + httpx). Each stream
carries ``TOKENS`` content chunks, each stamped with the upstream's send time
(``time.perf_counter_ns``, CLOCK_MONOTONIC, comparable across processes on Linux), then a
Hermes tool call, so the proxy does its real work (the hermes parser, the re-emission).

Per chunk latency = client receive time - upstream send time. The figure is the proxy's
added latency: proxied p50/p99 minus direct p50/p99, measured in the same run. Peak memory
is the proxy process's peak RSS (VmHWM) against its RSS before the load; CPU is the proxy
process's user + system time over the proxied load (``/proc/PID/stat``), per chunk
received. Bounded: fixed
request count, a global timeout, servers stopped at the end. Not a test.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CONCURRENCY = 200
TOKENS = 40
PACE = 0.1  # seconds between upstream chunks: 10 tokens/s per stream, 2000/s in all
TIMEOUT = 180.0  # the whole benchmark
ROOT = Path(__file__).resolve().parent.parent
_STAMP = re.compile(r"w(\d+)@(\d+) ")


# --- the upstream (runs in its own process) ----------------------------------------------


def _upstream_app() -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import StreamingResponse
    from starlette.routing import Route

    call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>'

    def chunk(content: str | None, finish: str | None = None) -> bytes:
        delta = {} if content is None else {"content": content}
        data = {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "NousResearch/Hermes-3-Llama-3.1-8B",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return b"data: " + json.dumps(data).encode() + b"\n\n"

    async def chat(request: Request) -> StreamingResponse:
        await request.body()

        async def gen() -> Any:
            for n in range(TOKENS):
                await asyncio.sleep(PACE)
                yield chunk(f"w{n}@{time.perf_counter_ns()} ")
            for i in range(0, len(call), 6):
                yield chunk(call[i : i + 6])
            yield chunk(None, "stop")
            yield b"data: [DONE]\n\n"

        return StreamingResponse(gen(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])


def serve_upstream(port: int) -> None:
    import uvicorn

    uvicorn.run(_upstream_app(), host="127.0.0.1", port=port, log_level="warning", backlog=1024)


# --- the client --------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_ready(url: str, proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            httpx.post(url, json={}, timeout=1.0)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} not ready")


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) the process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


async def _one(client: Any, url: str, latencies: list[int], calls: list[int]) -> None:
    from streamcall.sse import SSEDecoder

    body = {
        "model": "NousResearch/Hermes-3-Llama-3.1-8B",
        "messages": [{"role": "user", "content": "go"}],
        "stream": True,
    }
    decoder = SSEDecoder()
    seen_call = False
    async with client.stream("POST", url, json=body) as resp:
        resp.raise_for_status()
        async for data in resp.aiter_raw():
            now = time.perf_counter_ns()
            for ev in decoder.feed(data):
                if ev.data == "[DONE]":
                    continue
                chunk = json.loads(ev.data)
                for choice in chunk.get("choices", ()):
                    delta = choice.get("delta", {})
                    content = delta.get("content")
                    if content:
                        for m in _STAMP.finditer(content):
                            latencies.append(now - int(m.group(2)))
                    if delta.get("tool_calls") and not seen_call:
                        seen_call = True
                        calls.append(1)


async def _load(url: str) -> tuple[list[int], int, float]:
    import httpx

    latencies: list[int] = []
    calls: list[int] = []
    limits = httpx.Limits(max_connections=CONCURRENCY + 10, max_keepalive_connections=CONCURRENCY)
    async with httpx.AsyncClient(limits=limits, timeout=60.0) as client:
        start = time.perf_counter()
        await asyncio.wait_for(
            asyncio.gather(*(_one(client, url, latencies, calls) for _ in range(CONCURRENCY))),
            TIMEOUT / 3,
        )
        elapsed = time.perf_counter() - start
    return latencies, len(calls), elapsed


def _pct(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1e6  # ms


def main() -> None:
    # the server stack, here rather than in the two processes started below (the upstream
    # would die on it while this one waits for it to answer): missing, it is one line
    import httpx  # noqa: F401
    import starlette  # noqa: F401
    import uvicorn  # noqa: F401

    from benchmarks._util import table

    up_port, proxy_port = _free_port(), _free_port()
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    upstream = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"from benchmarks.proxy import serve_upstream; serve_upstream({up_port})",
        ],
        cwd=ROOT,
        env=env,
    )
    proxy = subprocess.Popen(
        [sys.executable, "-m", "streamcall.cli", "serve", "--upstream",
         f"http://127.0.0.1:{up_port}/v1", "--port", str(proxy_port), "--log-level", "warning"],
        cwd=ROOT,
        env=env,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        direct_url = f"http://127.0.0.1:{up_port}/v1/chat/completions"
        proxy_url = f"http://127.0.0.1:{proxy_port}/v1/chat/completions"
        _wait_ready(direct_url, upstream)
        _wait_ready(proxy_url, proxy)
        rss_before = _rss_kb(proxy.pid, "VmRSS")
        asyncio.run(_load(proxy_url))  # warm-up (imports, connection pools)
        direct, _, t_direct = asyncio.run(_load(direct_url))
        cpu_before = _cpu_s(proxy.pid)
        proxied, calls, t_proxy = asyncio.run(_load(proxy_url))
        cpu = _cpu_s(proxy.pid) - cpu_before
        peak = _rss_kb(proxy.pid, "VmHWM")
    finally:
        for proc in (proxy, upstream):
            proc.send_signal(signal.SIGINT)
        for proc in (proxy, upstream):
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()

    expected = CONCURRENCY * TOKENS
    load = os.getloadavg()[0]
    print(
        f"\nproxy: {CONCURRENCY} concurrent streams x {TOKENS} stamped chunks, loopback "
        f"({os.cpu_count()} cores, load average {load:.1f}: absolute times are noise here)"
    )
    print(f"chunks received: direct {len(direct)}/{expected}, proxied {len(proxied)}/{expected}; "
          f"streams with a structured tool call: {calls}/{CONCURRENCY}")  # fmt: skip
    rows = [
        ["direct to upstream", _pct(direct, 0.5), _pct(direct, 0.99), t_direct],
        ["through the proxy", _pct(proxied, 0.5), _pct(proxied, 0.99), t_proxy],
        [
            "added by the proxy",
            _pct(proxied, 0.5) - _pct(direct, 0.5),
            _pct(proxied, 0.99) - _pct(direct, 0.99),
            t_proxy - t_direct,
        ],
    ]
    print(table(["per-chunk latency (ms)", "p50", "p99", "wall (s)"], rows))
    # every upstream chunk of the proxied load: the stamped ones, the call's and the ends
    per_chunk = cpu / max(len(proxied), 1) * 1e6
    print(f"proxy CPU: {cpu:.2f} s for the proxied load, {per_chunk:.0f} us per content chunk "
          "(user + system, all of the proxy's work over the load divided by the chunks)")  # fmt: skip
    print(f"proxy memory: RSS {rss_before / 1024:.1f} MB idle, peak {peak / 1024:.1f} MB "
          f"(+{(peak - rss_before) / 1024:.1f} MB for {CONCURRENCY} concurrent streams)")  # fmt: skip


if __name__ == "__main__":
    main()
