"""A recording pass-through in front of the proxy, for ``scripts/test-agents`` (loopback).

Every request a client sends is appended to ``--log`` as one JSON line (time, method,
path, query, the request headers, the body as JSON when it is JSON), then forwarded to
``--target`` as it came; the answer streams back unchanged. The status, the response's
content type and its first 64 KB are added as a second line (``"kind": "response"``) once
the answer has been sent, so that a client's failure can be read next to the request
that caused it.

``--workarounds`` (off by default; never used for a PASS/FAIL verdict) edits two kinds of
request on their way to the proxy, so that the requests a client sends later in its loop
can be recorded while the proxy still refuses its first one: on ``/v1/messages``,
``role: "system"`` entries of ``messages`` are moved to the end of ``system``; on
``/v1/responses``, ``namespace`` tools are replaced by the function tools they hold and
tools of other types than ``function`` and ``custom`` are dropped. The log keeps the
request as the client sent it, and adds a line ``{"kind": "patched", "n": ...}`` when it was edited.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import AsyncIterator
from itertools import count
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

KEEP = 64 * 1024
HOP = {"host", "content-length", "connection", "transfer-encoding", "accept-encoding"}


def _text_blocks(system: Any) -> list[Any]:
    if system is None:
        return []
    if isinstance(system, str):
        return [{"type": "text", "text": system}]
    return list(system)


def patch(path: str, body: Any) -> Any:
    """The request with the known refusals worked around (see the module's docstring), or
    None when nothing needed a change."""
    if not isinstance(body, dict):
        return None
    if path.endswith("/messages") and isinstance(body.get("messages"), list):
        moved = [m for m in body["messages"] if isinstance(m, dict) and m.get("role") == "system"]
        if not moved:
            return None
        out = dict(body)
        out["messages"] = [m for m in body["messages"] if m not in moved]
        system = _text_blocks(body.get("system"))
        for m in moved:
            system.extend(_text_blocks(m.get("content")))
        out["system"] = system
        return out
    if path.endswith("/responses") and isinstance(body.get("tools"), list):
        tools: list[Any] = []
        for tool in body["tools"]:
            kind = tool.get("type") if isinstance(tool, dict) else None
            if kind == "namespace":
                tools.extend(t for t in tool.get("tools") or [] if t.get("type") == "function")
            elif kind in ("function", "custom"):
                tools.append(tool)
        if tools == body["tools"]:
            return None
        return {**body, "tools": tools}
    return None


def build(target: str, log: str, workarounds: bool = False) -> Starlette:
    client = httpx.AsyncClient(base_url=target, timeout=httpx.Timeout(300.0, connect=5.0))
    ids = count(1)

    def write(line: dict[str, Any]) -> None:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")

    async def forward(request: Request) -> Response:
        n = next(ids)
        raw = await request.body()
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        write(
            {
                "kind": "request",
                "n": n,
                "t": time.time(),
                "method": request.method,
                "path": request.url.path,
                "query": request.url.query,
                "headers": dict(request.headers),
                "body": body,
            }
        )
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP}
        patched = patch(request.url.path, body) if workarounds else None
        if patched is not None:
            raw = json.dumps(patched).encode()
            write({"kind": "patched", "n": n, "path": request.url.path})
        upstream = client.build_request(
            request.method,
            request.url.path,
            params=request.url.query or None,
            headers=headers,
            content=raw,
        )
        try:
            resp = await client.send(upstream, stream=True)
        except httpx.HTTPError as exc:
            write({"kind": "response", "n": n, "status": 502, "error": repr(exc)})
            return Response(f"recorder: proxy unreachable: {exc!r}", status_code=502)
        kept = bytearray()

        async def body_iter() -> AsyncIterator[bytes]:
            async for data in resp.aiter_raw():
                if len(kept) < KEEP:
                    kept.extend(data[: KEEP - len(kept)])
                yield data

        async def done() -> None:
            await resp.aclose()
            write(
                {
                    "kind": "response",
                    "n": n,
                    "t": time.time(),
                    "status": resp.status_code,
                    "content_type": resp.headers.get("content-type"),
                    "head": kept.decode("utf-8", "replace"),
                }
            )

        out_headers = {k: v for k, v in resp.headers.items() if k.lower() not in HOP}
        return StreamingResponse(
            body_iter(),
            status_code=resp.status_code,
            headers=out_headers,
            background=BackgroundTask(done),
        )

    methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]
    return Starlette(routes=[Route("/{path:path}", forward, methods=methods)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--target", required=True, help="the proxy's base URL")
    parser.add_argument("--log", required=True)
    parser.add_argument("--workarounds", action="store_true", help="see the docstring")
    args = parser.parse_args()
    import uvicorn

    uvicorn.run(
        build(args.target, args.log, args.workarounds),
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
