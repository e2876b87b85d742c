"""The README's examples, run as a user runs them on a fresh clone, offline: the two opening
commands' main job, every ``streamcall parse examples/...`` line, and every Python block
that talks to the proxy at ``127.0.0.1:8000`` (run against ``streamcall serve`` with no
``--upstream``, the built-in replay of the bundled examples; only the port is the test's
own), and every other Python block, the library's, with what it prints or names checked.
Examples that need something this machine does not have (a vLLM server, a checkpoint
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
# the command lines that need nothing but the package: the bundled examples, the listings,
# and text piped in from printf (a user's own files, servers and benchmarks are not run)
OFFLINE = ("streamcall parse examples/", "streamcall formats", "streamcall examples", "printf ")


def _parse_lines() -> list[str]:
    lines = []
    for lang, body in BLOCKS:
        for line in body.splitlines():
            command = line.split("#", 1)[0].strip()
            if lang == "sh" and command.startswith(OFFLINE):
                lines.append(command)
    # the first command's main job, without its install step
    first = re.search(r"&& \.venv/bin/(streamcall parse [^\n`]+)", README)
    assert first is not None
    return [first.group(1), *lines]


PARSE = _parse_lines()
PROXY_BLOCKS = [body for lang, body in BLOCKS if lang == "python" and "127.0.0.1:8000" in body]


def test_the_readme_has_what_this_runs() -> None:
    assert len(PARSE) >= 7 and len(PROXY_BLOCKS) >= 2


@pytest.mark.parametrize("command", PARSE)
def test_parse_examples_run_as_written(command: str, tmp_path: Path) -> None:
    stdin = None
    if command.startswith("printf "):
        piped, command = command.split(" | ", 1)
        stdin = shlex.split(piped)[1]
    argv = shlex.split(command)
    assert argv[0] == "streamcall"
    done = subprocess.run(
        [*STREAMCALL, *argv[1:]],
        cwd=tmp_path,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
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
    if "MessagesStreamParser" in block:  # the client-side parser found the replay's call
        assert (
            "ToolCallEnd(" in done.stdout and "MessageToolCall(index=0, id='toolu_" in done.stdout
        )


# The library's own examples: every other Python block, run as written in a fresh process.
# Where a block ends in the output it prints (comment lines after the last statement), the
# output must be exactly that; where it names values in comments, the check below reads
# them back from the objects the block made.
LIBRARY_BLOCKS = [body for lang, body in BLOCKS if lang == "python" and "127.0.0.1:" not in body]
CHECKS = {
    "parser.message.usage": (
        "assert (u.prompt_tokens, u.completion_tokens, u.total_tokens) == (2000, 600, 2600)\n"
        "assert (u.cached_tokens, u.reasoning_tokens) == (1920, 512)\n"
        "assert u.prompt_tokens_details == {'cached_tokens': 1920, 'audio_tokens': 0}\n"
        "assert u.extra == {'cost': 0.0021}\n"
        "assert u.to_dict()['prompt_tokens_details']['cached_tokens'] == 1920\n"
    ),
    "streamcall.output_parser(": (
        "kinds = [type(e).__name__ for e in events]\n"
        "assert kinds[0] == 'Reasoning' and kinds[-1] == 'ToolCallEnd', kinds\n"
        "assert events[-1].arguments == '{}' and not events[-1].incomplete\n"
    ),
    "streamcall.parse_output(": (
        "_p = streamcall.parse_output(' to=functions.f<|channel|>commentary <|constrain|>json"
        "<|message|>{\"a\": 1}<|call|>', model='openai/gpt-oss-20b',"
        " generation_prompt='<|start|>assistant')\n"
        "assert (_p.content, _p.reasoning) == ('', '')\n"
        "assert [(c.name, c.arguments) for c in _p.tool_calls] == [('f', '{\"a\": 1}')]\n"
    ),
    "streamcall.render_prompt(": (
        "assert prompt.endswith('<|im_start|>assistant\\n<think>\\n\\n</think>\\n\\n'), prompt\n"
        'assert \'"name": "get_weather"\' in prompt\n'
    ),
}


def _printed(block: str) -> list[str] | None:
    """The output a block shows after its last statement, or None if it shows none."""
    lines = block.rstrip("\n").splitlines()
    tail: list[str] = []
    while lines and lines[-1].startswith("# "):
        tail.insert(0, lines.pop()[2:])
    return tail if tail and "print(" in block else None


def test_every_library_block_is_run() -> None:
    assert len(LIBRARY_BLOCKS) >= 5
    for key in CHECKS:
        assert sum(key in block for block in LIBRARY_BLOCKS) == 1, key


@pytest.mark.parametrize("block", LIBRARY_BLOCKS, ids=lambda b: b.splitlines()[-1][:40])
def test_library_examples_run_as_written(block: str, tmp_path: Path) -> None:
    checks = "".join(check for key, check in CHECKS.items() if key in block)
    script = tmp_path / "example.py"
    script.write_text(block + "\n" + checks)
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    printed = _printed(block)
    if printed is not None:
        assert done.stdout.splitlines() == printed
