"""``streamcall parse --model-dir DIR`` and ``--response-template FILE``: the formats read
off the checkpoint (``streamcall.detect``), and ``detect``'s reason on stderr.

Model directories are built from real chat templates (``tests/fixtures/chat_templates``).
The tests that parse with a response template need the ``hf`` format
(``tool_parser("hf", template=...)``, ``streamcall.response_parser``); they are skipped,
saying so, where it is not there yet.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import streamcall
from streamcall import testing
from streamcall.cli import main
from streamcall.detect import Detected, output_parser_for, stream_parser_for
from streamcall.response_templates import response_template_for

TEMPLATES = Path(__file__).resolve().parents[1] / "fixtures" / "chat_templates" / "llama.cpp"
HAS_HF = hasattr(streamcall, "response_parser")
needs_hf = pytest.mark.skipif(
    not HAS_HF, reason="needs the hf format (streamcall.response_parser, issue 17's stream part)"
)

GLM_TEXT = (
    "<think>The user wants Paris.</think>Checking.<tool_call>get_weather\n"
    "<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>"
)
HERMES_TEXT = (
    'Sure.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
)


def _model_dir(root: Path, template: str | None, model: str | None = None, **config: Any) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    if template is not None:
        (root / "chat_template.jinja").write_text(
            (TEMPLATES / template).read_text(encoding="utf-8"), encoding="utf-8"
        )
    if model is not None:
        config["name_or_path"] = model
    (root / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return root


def _parse(
    capsys: pytest.CaptureFixture[str], stdin: str, monkeypatch: pytest.MonkeyPatch, *argv: str
) -> tuple[int, str, str]:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    code = main(["parse", "-", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_model_dir_uses_the_formats_its_chat_template_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a GLM-4.6 chat template, in a directory whose name routes to nothing
    model_dir = _model_dir(tmp_path / "mystery", "GLM-4.6.jinja")
    code, out, err = _parse(
        capsys, GLM_TEXT, monkeypatch, "--model-dir", str(model_dir), "--message"
    )
    assert code == 0, err
    message = json.loads(out)
    assert message["reasoning_content"] == "The user wants Paris."
    assert message["content"] == "Checking."
    assert [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message["tool_calls"]
    ] == [("get_weather", {"city": "Paris"})]
    assert "--model-dir: tool-call format glm45, reasoning glm45" in err
    assert "the chat template writes" in err
    # the same as naming both formats
    code, named, _ = _parse(
        capsys, GLM_TEXT, monkeypatch, "--format", "glm45", "--reasoning", "glm45", "--message"
    )
    assert code == 0 and json.loads(named) == message
    # and in any chunking
    code, chunked, _ = _parse(
        capsys, GLM_TEXT, monkeypatch, "--model-dir", str(model_dir), "--message", "--chunk", "3"
    )
    assert json.loads(chunked) == message


def test_model_dir_of_an_sse_capture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model_dir = _model_dir(tmp_path / "coder", "Qwen3-Coder.jinja")
    capture = tmp_path / "capture.sse"
    text = "On it.<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"
    chunks = [text[i : i + 9] for i in range(0, len(text), 9)]
    capture.write_text(
        "".join(
            "data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": c}}]}) + "\n\n"
            for c in chunks
        )
        + "data: [DONE]\n\n"
    )
    assert main(["parse", str(capture), "--model-dir", str(model_dir), "--message"]) == 0
    out = capsys.readouterr()
    message = json.loads(out.out)
    assert message["content"] == "On it."
    assert [c["function"]["name"] for c in message["tool_calls"]] == ["get_weather"]
    assert "--model-dir: tool-call format qwen3_coder" in out.err


def test_model_dir_with_nothing_found_sniffs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    model_dir = _model_dir(tmp_path / "nothing-here", None)
    code, out, err = _parse(
        capsys, HERMES_TEXT, monkeypatch, "--model-dir", str(model_dir), "--message"
    )
    assert code == 0, err
    assert [c["function"]["name"] for c in json.loads(out)["tool_calls"]] == ["get_weather"]
    assert "tool-call format none found (sniffed from the text)" in err
    assert "--model-dir: the format sniffed from the text is hermes" in err


def test_model_dir_routes_by_its_model_id_when_the_template_says_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    model_dir = _model_dir(tmp_path / "m", None, model="ibm-granite/granite-4.0-h-small")
    code, out, err = _parse(
        capsys, HERMES_TEXT, monkeypatch, "--model-dir", str(model_dir), "--message"
    )
    assert code == 0, err
    assert "--model-dir: tool-call format granite4" in err
    assert [c["function"]["name"] for c in json.loads(out)["tool_calls"]] == ["get_weather"]


def test_reasoning_given_beside_a_model_dir_wins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    model_dir = _model_dir(tmp_path / "mystery", "GLM-4.6.jinja")
    code, out, _ = _parse(
        capsys,
        GLM_TEXT,
        monkeypatch,
        "--model-dir",
        str(model_dir),
        "--reasoning",
        "none",
        "--message",
    )
    assert code == 0
    assert json.loads(out)["reasoning_content"] is None


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["--model-dir", "DIR", "--format", "hermes"],
            "--model-dir decides the formats: drop --format",
        ),
        (["--model-dir", "DIR", "--model", "x/y"], "drop --model"),
        (["--model-dir", "DIR", "--response-template", "T"], "drop --response-template"),
        (["--model-dir", "MISSING"], "cannot read --model-dir"),
        (["--model-dir", "T"], "not a directory"),
        (["--response-template", "T", "--format", "hermes"], "drop --format"),
        (["--response-template", "T", "--reasoning", "qwen3"], "drop --reasoning"),
        (["--response-template", "MISSING"], "--response-template"),
        (["--response-template", "BAD"], "--response-template"),
        (["--response-template", "NONE"], "--response-template"),
    ],
)
def test_bad_checkpoint_options_are_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    said: str,
) -> None:
    model_dir = _model_dir(tmp_path / "d", "GLM-4.6.jinja")
    template = tmp_path / "t.json"
    template.write_text(json.dumps(response_template_for("hermes")))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"fields": {"content": {"open": 3}}}))
    none = tmp_path / "none.json"
    none.write_text(json.dumps({"chat_template": "x"}))
    paths = {
        "DIR": str(model_dir),
        "MISSING": str(tmp_path / "missing"),
        "T": str(template),
        "BAD": str(bad),
        "NONE": str(none),
    }
    code, out, err = _parse(capsys, "hi", monkeypatch, *[paths.get(a, a) for a in argv])
    assert code == 2
    assert out == ""
    assert err.startswith("streamcall: error:") and said in err
    assert err.count("\n") == 1


# -- with a response template: the hf format ---------------------------------------------------


def test_a_model_dir_with_a_response_template_is_read_by_hf(tmp_path: Path) -> None:
    template = response_template_for("hermes")
    assert template is not None
    found = streamcall.detect(
        _model_dir(tmp_path / "m", "GLM-4.6.jinja", response_template=template)
    )
    # the response template decides, over the chat template's GLM markers
    assert (found.format, found.template) == ("hf", template)


@needs_hf
def test_parse_with_a_model_dir_holding_a_response_template(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    template = response_template_for("hermes")
    model_dir = _model_dir(tmp_path / "m", None, response_template=template)
    code, out, err = _parse(
        capsys, HERMES_TEXT, monkeypatch, "--model-dir", str(model_dir), "--message"
    )
    assert code == 0, err
    message = json.loads(out)
    assert message["content"] == "Sure."
    assert [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message["tool_calls"]
    ] == [("get_weather", {"city": "Paris"})]
    assert "--model-dir: tool-call format hf" in err


@needs_hf
@pytest.mark.parametrize("chunk", [None, "1", "7"])
def test_parse_with_a_response_template_file(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    chunk: str | None,
) -> None:
    path = tmp_path / "template.json"
    path.write_text(json.dumps(response_template_for("hermes")))
    argv = ["--response-template", str(path), "--message"] + (["--chunk", chunk] if chunk else [])
    code, out, err = _parse(capsys, HERMES_TEXT, monkeypatch, *argv)
    assert code == 0, err
    message = json.loads(out)
    assert message["content"] == "Sure."
    assert [c["function"]["name"] for c in message["tool_calls"]] == ["get_weather"]


@needs_hf
def test_output_and_stream_parsers_for_a_template() -> None:
    template = response_template_for("hermes")
    assert template is not None
    found = Detected("hf", None, template, "test")
    parsed = testing.coalesce(testing.run(output_parser_for(found), [HERMES_TEXT]))
    assert parsed[0] == ("text", "Sure.")
    sse = (
        "data: "
        + json.dumps({"choices": [{"index": 0, "delta": {"content": HERMES_TEXT}}]})
        + "\n\ndata: [DONE]\n\n"
    )
    stream = stream_parser_for(found)
    stream.feed(sse.encode())
    stream.finish()
    assert [c.name for c in stream.message.tool_calls] == ["get_weather"]


def test_output_parser_for_what_was_found() -> None:
    found = Detected("glm45", "glm45", None, "test")
    items = testing.coalesce(testing.run(output_parser_for(found), [GLM_TEXT]))
    assert items[0] == ("reasoning", "The user wants Paris.")
    # nothing found: sniffed, or (fallback None) no calls parsed
    nothing = Detected(None, None, None, "test")
    sniffed = streamcall.parse_output(HERMES_TEXT, tool_format="auto")
    got = testing.coalesce(testing.run(output_parser_for(nothing), [HERMES_TEXT]))
    assert [k for k, _ in got] == ["text", "call"] and sniffed.tool_calls
    plain = output_parser_for(nothing, fallback=None)
    assert testing.coalesce(testing.run(plain, [HERMES_TEXT])) == [("text", HERMES_TEXT)]
