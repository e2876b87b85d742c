"""`streamcall render`: the prompt the proxy would send, from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parent.parent / "fixtures" / "chat_templates" / "llama.cpp"
REQUEST = {
    "model": "Qwen/Qwen3-8B",
    "messages": [{"role": "user", "content": "weather in Paris?"}],
    "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}],
}


def _run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "streamcall.cli", "render", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_render_with_the_family_of_the_model(tmp_path: Path) -> None:
    path = tmp_path / "req.json"
    path.write_text(json.dumps(REQUEST))
    got = _run(str(path), "--json", "--kwarg", "enable_thinking=false")
    assert got.returncode == 0, got.stderr
    row = json.loads(got.stdout)
    assert row["stop"] == ["<|im_end|>"]
    assert row["template"] == "streamcall's chatml_hermes template"
    assert '"name": "get_weather"' in row["prompt"]
    assert row["prompt"].endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")


def test_render_with_a_checkpoint_template_from_stdin(tmp_path: Path) -> None:
    (tmp_path / "chat_template.jinja").write_text(
        (TEMPLATES / "Qwen-Qwen3-0.6B.jinja").read_text(encoding="utf-8"), encoding="utf-8"
    )
    got = _run("-", "--model-dir", str(tmp_path), stdin=json.dumps(REQUEST["messages"]))
    assert got.returncode == 0, got.stderr
    assert got.stdout.startswith("<|im_start|>user\nweather in Paris?<|im_end|>\n")


def test_render_errors_are_one_line(tmp_path: Path) -> None:
    got = _run("-", "--format", "gemma4", stdin=json.dumps(REQUEST))
    assert got.returncode == 2
    assert "ships no chat template for 'gemma4'" in got.stderr
    assert "Traceback" not in got.stderr
    (tmp_path / "chat_template.jinja").write_text("{% if %}")
    got = _run("-", "--template", str(tmp_path / "chat_template.jinja"), stdin=json.dumps(REQUEST))
    assert got.returncode == 2
    assert "line 1: syntax error" in got.stderr
