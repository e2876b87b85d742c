"""The command line: ``--thinking on|off``, the note when nothing picks a format, routes
shown as "no routing", and an SSE capture that was cut reported as cut, not as ``stop``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from streamcall.cli import main

BIN = Path(sys.executable).parent / "streamcall"


def _parse(text: str, *argv: str) -> tuple[int, str, str]:
    proc = subprocess.run(
        [str(BIN), "parse", "-", *argv], input=text.encode(), capture_output=True, timeout=60
    )
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def test_thinking_off_reads_a_qwen3_answer_as_content() -> None:
    """The issue's command: ``printf 'Hello!' | streamcall parse - --model Qwen/Qwen3-8B``."""
    code, out, err = _parse("Hello!", "--model", "Qwen/Qwen3-8B", "--message", "--thinking", "off")
    assert code == 0, err
    message = json.loads(out)
    assert (message["content"], message["reasoning_content"]) == ("Hello!", None)
    # without the switch, Qwen3's default (the prompt opened <think>) holds
    _, out, _ = _parse("Hello!", "--model", "Qwen/Qwen3-8B", "--message")
    assert (json.loads(out)["content"], json.loads(out)["reasoning_content"]) == (None, "Hello!")
    # on, for a format whose template pre-fills the marker: reasoning until </think>
    _, out, _ = _parse("plan</think>Hi", "--reasoning", "qwen3", "--message", "--thinking", "on")
    message = json.loads(out)
    assert (message["reasoning_content"], message["content"]) == ("plan", "Hi")


def test_thinking_off_for_an_sse_capture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chunks = [{"choices": [{"index": 0, "delta": {"content": "Hello!"}, "finish_reason": "stop"}]}]
    path = tmp_path / "qwen.sse"
    path.write_text("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n")
    argv = ["parse", str(path), "--model", "Qwen/Qwen3-8B", "--message"]
    assert main([*argv, "--thinking", "off"]) == 0
    assert json.loads(capsys.readouterr().out)["content"] == "Hello!"
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["reasoning_content"] == "Hello!"


def test_no_format_and_no_model_says_the_text_passes_through() -> None:
    # with no marker in it, nothing is sniffed: the text passes through, and that is said
    text = "Just an answer, no calls: a < b and [x]."
    code, out, err = _parse(text, "--message")
    assert code == 0
    assert json.loads(out)["content"] == text
    assert "no --format or --model: the text passes through unparsed" in err
    assert "--format NAME" in err and "--model ID" in err and "streamcall formats" in err
    # with a format, nothing is said
    code, _, err = _parse(text, "--format", "hermes", "--message")
    assert code == 0 and err == ""


def test_no_format_and_no_model_sniffs_the_format_and_says_which() -> None:
    text = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    code, out, err = _parse(text, "--message")
    assert code == 0
    message = json.loads(out)
    assert message["content"] is None
    assert [c["function"]["name"] for c in message["tool_calls"]] == ["f"]
    assert "the format sniffed from the text is hermes" in err
    assert "--format NAME" in err and "--model ID" in err and "streamcall formats" in err
    # the same in any chunking, and said once
    code, out2, err = _parse(text, "--message", "--chunk", "1")
    assert code == 0 and json.loads(out2) == message
    assert err.count("sniffed") == 1
    # with a format, nothing is said
    code, _, err = _parse(text, "--format", "hermes", "--message")
    assert code == 0 and err == ""


def test_an_sse_capture_is_sniffed_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _capture(
        tmp_path,
        [
            _content("Let me look. <tool_call>\n<function=get>\n<parameter=q>\nx\n"),
            _content("</parameter>\n</function>\n</tool_call>"),
            "[DONE]",
        ],
    )
    assert main(["parse", path, "--message"]) == 0
    captured = capsys.readouterr()
    message = json.loads(captured.out)
    assert message["content"] == "Let me look. "
    assert [(c["function"]["name"], c["function"]["arguments"]) for c in message["tool_calls"]] == [
        ("get", '{"q":"x"}')
    ]
    assert "the format sniffed from the text is qwen3_coder" in captured.err


def test_formats_says_no_routing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["formats"]) == 0
    out = capsys.readouterr().out
    assert "no routing: no model id picks it; give --format cohere_command3" in out
    assert "give --reasoning " in out  # a reasoning format without a route
    assert "\n                   -\n" not in out and ": -" not in out


def _capture(tmp_path: Path, events: list[str]) -> str:
    path = tmp_path / "capture.sse"
    path.write_text("".join(f"data: {e}\n\n" for e in events))
    return str(path)


def _content(text: str) -> str:
    return json.dumps({"choices": [{"index": 0, "delta": {"content": text}}]})


def test_a_cut_sse_capture_is_reported_as_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _capture(
        tmp_path,
        [_content("Let me check. "), _content('<tool_call>{"name": "f", "arguments": {"a": 1')],
    )
    assert main(["parse", path, "--format", "hermes", "--message"]) == 0
    message = json.loads(capsys.readouterr().out)
    assert message["finish_reason"] is None
    assert [e["where"] for e in message["errors"]] == ["end of stream"]
    assert "the stream ended early" in message["errors"][0]["message"]
    assert message["tool_calls"][0]["incomplete"] is True
    assert json.loads(message["tool_calls"][0]["function"]["arguments"]) == {"a": 1}
    # as JSON lines: an error event, and no finish event
    assert main(["parse", path, "--format", "hermes"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events[-1]["type"] == "error" and "ended early" in events[-1]["message"]
    assert "finish" not in {e["type"] for e in events}


@pytest.mark.parametrize(
    "ending",
    [
        ['{"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}'],
        ["[DONE]"],
    ],
    ids=["finish_reason-only", "done-only"],
)
def test_a_capture_that_ends_is_not_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ending: list[str]
) -> None:
    path = _capture(tmp_path, [_content("Hi there."), *ending])
    assert main(["parse", path, "--message"]) == 0
    message = json.loads(capsys.readouterr().out)
    assert message["finish_reason"] == "stop"
    assert "errors" not in message
