"""The command line as a user types it, run in a fresh folder: every fault is the one
``streamcall: error:`` line the README promises (no traceback, no usage block, no banner
first), worded the same by every verb; numbers are checked where they are read; a bundled
example is reached only through ``examples/NAME``."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

_SRC = str(Path(__file__).resolve().parents[2] / "src")


def _streamcall(
    cwd: Path, *argv: str, stdin: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``streamcall ARGV...`` typed in ``cwd`` (this checkout's source, whatever is installed)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_SRC, env.get("PYTHONPATH")) if p)
    return subprocess.run(
        [sys.executable, "-m", "streamcall.cli", *argv],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _one_line(proc: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """The error line, after checking it is the only thing on stderr and stdout is empty."""
    assert proc.returncode == code, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.startswith("streamcall: error: "), proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.endswith("\n"), proc.stderr
    return proc.stderr


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        # a value that would have reached time.sleep (ValueError) or a socket (OverflowError)
        (["parse", "examples/granite4_weather.txt", "--delay", "-1"], "argument --delay"),
        (["serve", "--port", "99999"], "argument --port: must be a port number from 1 to 65535"),
        (["serve", "--port", "0"], "argument --port"),
        # accepted before, then every request failed as "upstream unreachable"
        (["serve", "--timeout", "-5"], "argument --timeout: must be a number of seconds above 0"),
        (["serve", "--timeout", "inf"], "argument --timeout"),
        (["serve", "--replay-delay", "-0.5"], "argument --replay-delay"),
        (["serve", "--workers", "0"], "argument --workers"),
        (["serve", "--max-body", "0"], "--max-body must be a positive size"),
        (["parse", "examples/hermes_think.txt", "--chunk", "0"], "argument --chunk"),
    ],
)
def test_bad_numbers_are_one_line(tmp_path: Path, argv: list[str], said: str) -> None:
    err = _one_line(_streamcall(tmp_path, *argv))
    assert said in err
    assert "streamcall serve:" not in err  # no banner before it


@pytest.mark.parametrize(
    ("argv", "verb"),
    [
        (["parse", "examples/hermes_think.txt", "--chunk", "abc"], "parse"),
        (["parse", "examples/hermes_think.txt", "--nope"], "parse"),
        (["parse", "examples/hermes_think.txt", "--message", "--live"], "parse"),
        (["serve", "--upstream-tools", "maybe"], "serve"),
        (["render"], "render"),
        (["nope"], ""),
    ],
)
def test_argparse_errors_are_one_line_with_the_verbs_help(
    tmp_path: Path, argv: list[str], verb: str
) -> None:
    err = _one_line(_streamcall(tmp_path, *argv))
    assert "usage:" not in err
    assert err.rstrip().endswith(f"see '{' '.join(filter(None, ['streamcall', verb]))} --help'")


def test_the_same_fault_is_worded_the_same_by_every_verb(tmp_path: Path) -> None:
    (tmp_path / "req.json").write_text(json.dumps({"messages": []}))
    said = [
        _one_line(_streamcall(tmp_path, *argv))
        for argv in (
            ["parse", "nope.txt"],
            ["render", "nope.txt"],
            ["detect", "nope.txt"],
            ["parse", "-", "--tools", "nope.txt"],
            ["render", "req.json", "--tools", "nope.txt"],
        )
    ]
    pattern = (
        r"streamcall: error: cannot read (tools file )?'nope.txt': no such file or directory\n"
    )
    for line in said:
        assert re.fullmatch(pattern, line), line
    for argv, what in (
        (["parse", "-", "--model-dir", "nope"], "--model-dir"),
        (["parse", "-", "--response-template", "nope"], "--response-template"),
        (["render", "req.json", "--template", "nope"], "--template"),
        (["render", "req.json", "--model-dir", "nope"], "--model-dir"),
        (["serve", "--model-dir", "nope"], "--model-dir"),
    ):
        line = _one_line(_streamcall(tmp_path, *argv, stdin=""))
        assert line == f"streamcall: error: cannot read {what} 'nope': no such file or directory\n"
    for argv in (["parse", "."], ["render", "."]):
        assert _one_line(_streamcall(tmp_path, *argv)).endswith(": it is a directory\n")


def test_a_bare_name_is_not_the_bundled_example(tmp_path: Path) -> None:
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>'
    argv = ["parse", "-", "--format", "hermes", "--message"]
    err = _one_line(_streamcall(tmp_path, *argv, "--tools", "tools.json", stdin=text))
    assert "cannot read tools file 'tools.json': no such file or directory" in err
    assert "(the bundled copy is examples/tools.json)" in err
    err = _one_line(_streamcall(tmp_path, "parse", "hermes_think.txt"))
    assert "the bundled copy is examples/hermes_think.txt" in err
    # examples/NAME reaches the bundled copy from any folder, as the README says
    proc = _streamcall(tmp_path, *argv, "--tools", "examples/tools.json", stdin=text)
    assert proc.returncode == 0, proc.stderr
    # and a tools.json in the current folder is that one, not the bundled one
    (tmp_path / "tools.json").write_text("[]")
    proc = _streamcall(tmp_path, *argv, "--tools", "tools.json", stdin=text)
    assert proc.returncode == 0, proc.stderr


def test_the_readme_first_command_from_an_empty_folder(tmp_path: Path) -> None:
    argv = ["parse", "examples/granite4_weather.txt", "--model", "ibm-granite/granite-4.0-h-small"]
    proc = _streamcall(tmp_path, *argv, "--chunk", "7")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [e["name"] for e in events if e["type"] == "tool_call_start"] == [
        "get_weather",
        "get_weather",
        "convert_currency",
    ]


@pytest.mark.parametrize("value", ["False", "True", "None", "high", "{'a': 1}"])
def test_a_kwarg_that_is_not_json_is_an_error(tmp_path: Path, value: str) -> None:
    request = {"model": "Qwen/Qwen3-8B", "messages": [{"role": "user", "content": "hi"}]}
    (tmp_path / "req.json").write_text(json.dumps(request))
    err = _one_line(
        _streamcall(tmp_path, "render", "req.json", "--kwarg", f"enable_thinking={value}")
    )
    assert f"--kwarg {'enable_thinking=' + value!r}: the value must be JSON" in err
    if value == "False":
        assert "enable_thinking=false, not False" in err
    proc = _streamcall(tmp_path, "render", "req.json", "--kwarg", "enable_thinking=false")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")


@pytest.mark.skipif(importlib.util.find_spec("uvicorn") is None, reason="needs the server extra")
def test_serve_on_a_port_in_use_is_one_line_and_no_banner(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = _streamcall(tmp_path, "serve", "--port", str(port))
    err = _one_line(proc, code=1)
    assert err == f"streamcall: error: cannot serve on 127.0.0.1:{port}: address already in use\n"


@pytest.mark.skipif(importlib.util.find_spec("uvicorn") is None, reason="needs the server extra")
def test_serve_on_a_host_that_does_not_resolve_is_one_line(tmp_path: Path) -> None:
    err = _one_line(_streamcall(tmp_path, "serve", "--host", "no-such-host.invalid"), code=1)
    assert err.startswith("streamcall: error: cannot serve on no-such-host.invalid:8000: ")
