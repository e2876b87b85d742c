"""The README's examples, run as a user runs them on a fresh clone, offline: the two opening
commands' main job, every ``streamcall parse examples/...`` line, and every Python block
that talks to the proxy at ``127.0.0.1:8000`` (run against ``streamcall serve`` with no
``--upstream``, the built-in replay of the bundled examples; only the port is the test's
own). Examples that need something this machine does not have (a vLLM server, a checkpoint
directory, an agent from npm) say so where they stand and are not run here."""

from __future__ import annotations

import re
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

README = (Path(__file__).parent.parent.parent / "README.md").read_text()
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", README, re.S)
STREAMCALL = [sys.executable, "-m", "streamcall.cli"]


def _parse_lines() -> list[str]:
    lines = []
    for lang, body in BLOCKS:
        for line in body.splitlines():
            command = line.split("#", 1)[0].strip()
            if lang == "sh" and command.startswith("streamcall parse examples/"):
                lines.append(command)
    # the first command's main job, without its install step
    first = re.search(r"&& \.venv/bin/(streamcall parse [^\n`]+)", README)
    assert first is not None
    return [first.group(1), *lines]


PARSE = _parse_lines()
PROXY_BLOCKS = [body for lang, body in BLOCKS if lang == "python" and "127.0.0.1:8000" in body]


def test_the_readme_has_what_this_runs() -> None:
    assert len(PARSE) >= 4 and len(PROXY_BLOCKS) >= 2


@pytest.mark.parametrize("command", PARSE)
def test_parse_examples_run_as_written(command: str, tmp_path: Path) -> None:
    argv = shlex.split(command)
    assert argv[0] == "streamcall"
    done = subprocess.run(
        [*STREAMCALL, *argv[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() and "Traceback" not in done.stderr


@pytest.fixture(scope="module")
def proxy_port() -> object:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [*STREAMCALL, "serve", "--port", str(port), "--replay-delay", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        yield port
    finally:
        proc.terminate()
        proc.wait(30)


@pytest.mark.parametrize("block", PROXY_BLOCKS, ids=lambda b: b.splitlines()[0][:40])
def test_proxy_examples_run_as_written(block: str, proxy_port: int, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(block.replace("127.0.0.1:8000", f"127.0.0.1:{proxy_port}"))
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
