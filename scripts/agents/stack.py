"""The servers ``scripts/test-agents`` runs the clients against, all on 127.0.0.1.

``Stack`` starts, as child processes: the scripted upstream (``upstream.py``), one
``streamcall serve`` per proxy mode in front of it, one recorder (``recorder.py``) in front
of each proxy (the clients are pointed at the recorders), and, inside the run's network
namespace, the DNS sink (``dnssink.py``). ``Stack.mark()`` and
``Stack.since(mark)`` cut the three logs (client requests and answers, upstream requests,
DNS look-ups) into what one client did.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MODES = ("render", "none")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_http(url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                resp.read()
                return
        except Exception:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not come up") from None
            time.sleep(0.1)


def read_lines(path: Path, start: int) -> tuple[list[dict[str, Any]], int]:
    if not path.exists():
        return [], start
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read()
    out = []
    for line in data.splitlines():
        with contextlib.suppress(ValueError):
            out.append(json.loads(line))
    return out, start + len(data)


@dataclass
class Slice:
    client: list[dict[str, Any]] = field(default_factory=list)  # recorder lines
    upstream: list[dict[str, Any]] = field(default_factory=list)
    dns: list[dict[str, Any]] = field(default_factory=list)

    def requests(self) -> list[dict[str, Any]]:
        return [r for r in self.client if r.get("kind") == "request"]

    def responses(self) -> dict[int, dict[str, Any]]:
        return {r["n"]: r for r in self.client if r.get("kind") == "response"}

    def notes(self) -> list[dict[str, Any]]:
        return [u["note"] for u in self.upstream]


class Stack:
    def __init__(
        self, out: Path, streamcall: str, dns_log: Path | None, workarounds: bool = False
    ) -> None:
        self.out = out
        self.workarounds = workarounds
        self.procs: list[subprocess.Popen[bytes]] = []
        self.upstream_log = out / "upstream.jsonl"
        self.client_log = {m: out / f"client-{m}.jsonl" for m in MODES}
        self.dns_log = dns_log
        self.urls: dict[str, str] = {}
        self.proxy_urls: dict[str, str] = {}
        self.streamcall = streamcall

    def _spawn(self, name: str, argv: list[str]) -> None:
        with open(self.out / f"{name}.log", "ab") as log:
            proc = subprocess.Popen(
                argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        self.procs.append(proc)

    def start(self) -> Stack:
        py = sys.executable
        if self.dns_log is not None:
            self._spawn("dns", [py, str(HERE / "dnssink.py"), "--log", str(self.dns_log)])
        port = free_port()
        self._spawn(
            "upstream",
            [py, str(HERE / "upstream.py"), "--port", str(port), "--log", str(self.upstream_log)],
        )
        upstream = f"http://127.0.0.1:{port}/v1"
        wait_http(f"{upstream}/models")
        for mode in MODES:
            pport, rport = free_port(), free_port()
            self._spawn(
                f"proxy-{mode}",
                [
                    self.streamcall,
                    "serve",
                    "--upstream",
                    upstream,
                    "--upstream-tools",
                    mode,
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(pport),
                    "--timeout",
                    "120",
                    "--log-level",
                    "info",
                ],
            )
            self.proxy_urls[mode] = f"http://127.0.0.1:{pport}"
            wait_http(f"{self.proxy_urls[mode]}/health")
            self._spawn(
                f"recorder-{mode}",
                [
                    py,
                    str(HERE / "recorder.py"),
                    "--port",
                    str(rport),
                    "--target",
                    self.proxy_urls[mode],
                    "--log",
                    str(self.client_log[mode]),
                    *(["--workarounds"] if self.workarounds else []),
                ],
            )
            self.urls[mode] = f"http://127.0.0.1:{rport}"
            wait_http(f"{self.urls[mode]}/health")
        # the health probes are not a client's
        self.mark()
        return self

    def mark(self) -> dict[str, int]:
        marks = {}
        for mode, path in self.client_log.items():
            marks[mode] = path.stat().st_size if path.exists() else 0
        for key, path in (("upstream", self.upstream_log), ("dns", self.dns_log)):
            marks[key] = path.stat().st_size if path is not None and path.exists() else 0
        return marks

    def since(self, marks: dict[str, int], mode: str) -> Slice:
        out = Slice()
        out.client, _ = read_lines(self.client_log[mode], marks[mode])
        out.upstream, _ = read_lines(self.upstream_log, marks["upstream"])
        if self.dns_log is not None:
            out.dns, _ = read_lines(self.dns_log, marks["dns"])
        return out

    def stop(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
        for proc in reversed(self.procs):
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


def env_base() -> dict[str, str]:
    """The environment every client starts from: no proxies, no telemetry."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    return env
