"""The command line: parse (text, SSE, stdin, --message, --chunk, --live plain), formats,
examples, bench --list, and clear errors with exit codes instead of tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from streamcall.bundled import example_dir
from streamcall.cli import looks_like_sse, main

EXAMPLES = example_dir()
BIN = Path(sys.executable).parent / "streamcall"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _events(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def _calls(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    names = {e["index"]: e["name"] for e in events if e["type"] == "tool_call_start"}
    args: dict[int, list[str]] = {}
    for e in events:
        if e["type"] == "tool_call_args":
            args.setdefault(e["index"], []).append(e["delta"])
    ends = {e["index"]: e["arguments"] for e in events if e["type"] == "tool_call_end"}
    for i, parts in args.items():
        assert "".join(parts) == ends[i]
    return [(names[i], ends[i]) for i in sorted(ends)]


def test_parse_model_text_to_events(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(
        capsys,
        "parse",
        str(EXAMPLES / "granite4_weather.txt"),
        "--model",
        "ibm-granite/granite-4.0-h-small",
    )
    assert code == 0, err
    calls = _calls(_events(out))
    assert [name for name, _ in calls] == ["get_weather", "get_weather", "convert_currency"]
    assert json.loads(calls[0][1])["note"] == "café terrace 🌤 at 5pm"


def test_bundled_example_by_name_uses_its_formats(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "parse", "examples/hermes_think.txt")
    assert code == 0
    events = _events(out)
    assert events[0]["type"] == "reasoning"
    assert [name for name, _ in _calls(events)] == ["search_docs", "get_weather"]


def test_parse_sse_capture_detected(capsys: pytest.CaptureFixture[str]) -> None:
    path = EXAMPLES / "llamacpp_hermes_raw.sse"
    assert looks_like_sse(path.read_bytes())
    code, out, _ = _run(capsys, "parse", str(path), "--format", "hermes")
    assert code == 0
    events = _events(out)
    types = [e["type"] for e in events]
    assert "usage" in types
    assert [e["reason"] for e in events if e["type"] == "finish"] == ["tool_calls"]
    assert [name for name, _ in _calls(events)] == ["get_weather", "get_weather"]


def test_message_is_the_same_for_every_chunking(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / "gemma4_flights.txt")
    code, whole, _ = _run(capsys, "parse", path, "--format", "gemma4", "--message")
    assert code == 0
    message = json.loads(whole)
    assert message["finish_reason"] == "tool_calls"
    assert [c["function"]["name"] for c in message["tool_calls"]] == [
        "search_flights",
        "get_weather",
    ]
    for size in ("1", "7"):
        code, out, _ = _run(
            capsys, "parse", path, "--format", "gemma4", "--message", "--chunk", size
        )
        assert code == 0 and json.loads(out) == message


def test_sse_message_and_byte_chunks(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / "llamacpp_hermes_raw.sse")
    _, whole, _ = _run(
        capsys, "parse", path, "--sse", "--model", "Hermes-3-Llama-3.1-8B", "--message"
    )
    _, cut, _ = _run(
        capsys, "parse", path, "--model", "Hermes-3-Llama-3.1-8B", "--message", "--chunk", "3"
    )
    message = json.loads(whole)
    assert json.loads(cut) == message
    assert message["usage"] == {"prompt_tokens": 412, "completion_tokens": 71, "total_tokens": 483}
    assert (
        json.loads(message["tool_calls"][1]["function"]["arguments"])["note"]
        == 'line one\nline "two"'
    )


def test_tools_file_and_stdin_via_subprocess() -> None:
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>'
    proc = subprocess.run(
        [
            str(BIN),
            "parse",
            "-",
            "--format",
            "hermes",
            "--tools",
            str(EXAMPLES / "tools.json"),
            "--message",
        ],
        input=text.encode(),
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    message = json.loads(proc.stdout)
    assert message["content"] is None
    assert json.loads(message["tool_calls"][0]["function"]["arguments"]) == {"city": "Rome"}


def test_live_plain_fallback(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "parse", "examples/hermes_think.txt", "--live", "--delay", "0")
    assert code == 0
    assert out.startswith("[reasoning] ")
    assert '[call 0 search_docs] {"query": "streaming tool calls over SSE"' in out
    assert "[call 1 get_weather]" in out


def test_formats_lists_names_families_and_routes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "formats")
    assert code == 0
    assert "granite4" in out and "IBM Granite 4.0" in out and "granite-4" in out
    code, out, _ = _run(capsys, "formats", "--json")
    data = json.loads(out)
    rows = {r["name"]: r for r in data["tool_call"]}
    assert rows["gemma4"]["routes"] == ["gemma4", "gemma-4"]
    assert any(r["name"] == "qwen3" for r in data["reasoning"])


def test_examples_and_bench_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "examples", "--json")
    assert code == 0
    assert {e["file"] for e in json.loads(out)} >= {
        "granite4_weather.txt",
        "llamacpp_hermes_raw.sse",
    }
    code, out, _ = _run(capsys, "bench", "--list")
    assert code == 0 and "sse" in out.split()


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["parse", "no/such/file.txt"], "no such file"),
        (["parse", "examples/nope.txt"], "bundled examples:"),
        (["parse", "examples/hermes_think.txt", "--format", "nope"], "unknown tool-call format"),
        (["parse", "examples/hermes_think.txt", "--chunk", "0"], "--chunk"),
        (
            ["parse", "examples/hermes_think.txt", "--tools", "examples/hermes_think.txt"],
            "not valid JSON",
        ),
        (["bench", "nope"], "unknown benchmark"),
        (["serve", "--workers", "2"], "--workers needs --upstream"),
    ],
)
def test_bad_input_is_one_clear_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    code, _out, err = _run(capsys, *argv)
    assert code == 2
    assert needle in err and "Traceback" not in err
    assert err.startswith("streamcall: error: ")


def test_help_lists_the_commands() -> None:
    proc = subprocess.run([str(BIN), "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    for command in ("parse", "formats", "serve", "bench"):
        assert command in proc.stdout


def test_pipe_closed_early_is_not_an_error() -> None:
    proc = subprocess.run(
        f"'{BIN}' parse examples/llamacpp_hermes_raw.sse --chunk 1 | head -n 1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0
    assert "Traceback" not in proc.stderr


def test_message_keeps_the_usage_details(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    usage = {
        "prompt_tokens": 9,
        "completion_tokens": 4,
        "total_tokens": 13,
        "prompt_tokens_details": {"cached_tokens": 8},
        "completion_tokens_details": {"reasoning_tokens": 2},
    }
    chunks = [
        {"choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]},
        {"choices": [], "usage": usage},
    ]
    path = tmp_path / "usage.sse"
    path.write_text("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n")
    code, out, _ = _run(capsys, "parse", str(path), "--sse", "--message")
    assert code == 0
    message = json.loads(out)
    assert message["content"] == "hi"
    assert message["usage"] == usage
