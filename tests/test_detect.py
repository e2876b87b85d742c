"""``streamcall.detect``: the formats a checkpoint writes, read off its chat template.

The real templates (``tests/fixtures/chat_templates``, with their manifest) are scored by
``chat_template_scores``: every outcome must match the manifest except the misses listed
here, each with the reason it is missed. A miss that starts passing fails too, so the list
and the counts stay true. ``python tests/chat_template_scores.py`` prints the table.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from chat_template_scores import ROOT, counts, manifest, outcomes, report
from streamcall import Detected, detect, formats, reasoning_formats
from streamcall.cli import main as cli_main
from streamcall.detect import (
    REASONING_FINGERPRINTS,
    SAME_SYNTAX,
    THINK_FAMILIES,
    THINK_FORMATS,
    TOOL_FINGERPRINTS,
    Fingerprint,
    detect_template,
)
from streamcall.formats.registry import parse_tool_calls, parser_class

_GLM_NOT_GLM = (
    "GLM's syntax in another family's template: the think tags are read as GLM's (glm45), "
    "the manifest has no reasoning format for the family"
)
_LING3 = (
    "Ling 3 writes GLM's syntax and think tags (the same parser group): alone, the template "
    "cannot say ling3 (the model id does)"
)
_POOLSIDE_TOOL = (
    "Poolside writes GLM's syntax (same parser group): alone, the template cannot say "
    "poolside_v1 (the model id does)"
)
_POOLSIDE_THINK = "think tags with GLM's tool syntax read as glm45; the model id says poolside"
KNOWN_MISSES: dict[tuple[str, str, str], str] = {
    ("llama.cpp/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja", "template", "reasoning"): (
        "Qwen3-Coder's tool syntax, so its think tags read as qwen3; only the model id says "
        "nemotron_v3"
    ),
    ("llama.cpp/Qwen-QwQ-32B.jinja", "template", "reasoning"): (
        "Hermes syntax with think tags: Qwen3, QwQ, Bielik and Reka share it and differ in "
        "their reasoning format. Rendered, the template's generation prompt closes an empty "
        "<think></think> unless thinking is switched on, as DeepSeek-V3.1's does: "
        "deepseek_v3; only the model id says deepseek_r1 (Qwen3's prompt, which leaves "
        "<think> to the model unless thinking is off, reads as qwen3)"
    ),
    ("llama.cpp/Spark2.5.jinja", "template", "tool"): (
        "whether a newline follows the name is decided by Jinja whitespace control "
        "('{{- ... }}'), which a text search does not evaluate"
    ),
    ("llama.cpp/Spark2.5.jinja", "checkpoint", "tool"): "the same, and the id routes nowhere",
    ("llama.cpp/Spark2.5.jinja", "template", "reasoning"): _GLM_NOT_GLM,
    ("llama.cpp/Spark2.5.jinja", "checkpoint", "reasoning"): _GLM_NOT_GLM,
    ("llama.cpp/StepFun3.5-Flash.jinja", "template", "tool"): (
        "Step-3.5 writes Qwen3-Coder's syntax exactly; only the model id says step3p5"
    ),
    ("llama.cpp/StepFun3.5-Flash.jinja", "template", "reasoning"): (
        "the same: think tags with Qwen3-Coder's syntax read as qwen3"
    ),
    ("llama.cpp/inclusionai-ling-3.0-flash.jinja", "template", "tool"): _LING3,
    ("llama.cpp/inclusionai-ling-3.0-flash.jinja", "template", "reasoning"): _LING3,
    ("llama.cpp/poolside-Laguna-S-2.1.jinja", "template", "tool"): _POOLSIDE_TOOL,
    ("llama.cpp/poolside-Laguna-S-2.1.jinja", "template", "reasoning"): _POOLSIDE_THINK,
    ("llama.cpp/poolside-Laguna-XS-2.1.jinja", "template", "tool"): _POOLSIDE_TOOL,
    ("llama.cpp/poolside-Laguna-XS-2.1.jinja", "template", "reasoning"): _POOLSIDE_THINK,
    ("llama.cpp/poolside-Laguna-XS.2.jinja", "template", "tool"): _POOLSIDE_TOOL,
    ("llama.cpp/poolside-Laguna-XS.2.jinja", "template", "reasoning"): _POOLSIDE_THINK,
}

# (source, mode, field) -> (right, total): what the misses above leave.
EXPECTED_COUNTS = {
    ("all", "template", "tool"): (102, 108),
    ("all", "template", "reasoning"): (100, 108),
    ("all", "checkpoint", "tool"): (107, 108),
    ("all", "checkpoint", "reasoning"): (107, 108),
    ("llama.cpp", "template", "tool"): (64, 70),
    ("llama.cpp", "template", "reasoning"): (62, 70),
    ("llama.cpp", "checkpoint", "tool"): (69, 70),
    ("llama.cpp", "checkpoint", "reasoning"): (69, 70),
    ("vllm", "template", "tool"): (23, 23),
    ("vllm", "template", "reasoning"): (23, 23),
    ("vllm", "checkpoint", "tool"): (23, 23),
    ("vllm", "checkpoint", "reasoning"): (23, 23),
    ("vllm-0.33", "template", "tool"): (14, 14),
    ("vllm-0.33", "template", "reasoning"): (14, 14),
    ("vllm-0.33", "checkpoint", "tool"): (14, 14),
    ("vllm-0.33", "checkpoint", "reasoning"): (14, 14),
}


@pytest.fixture(scope="module")
def scored() -> list[Any]:
    return outcomes()


# -- the collected templates ------------------------------------------------------------


def test_the_fixtures_are_the_files_the_manifest_describes() -> None:
    entries = manifest()["templates"]
    listed = {e["file"] for e in entries}
    on_disk = {str(p.relative_to(ROOT)) for p in ROOT.rglob("*.jinja")}
    assert listed == on_disk
    for e in entries:
        assert hashlib.sha256((ROOT / e["file"]).read_bytes()).hexdigest() == e["sha256"]
        assert e["file"].split("/", 1)[0] in manifest()["sources"]
        for key in ("tool_format", "model_tool_format"):
            if key in e:
                assert e[key] == "unknown" or e[key] in formats(), (e["file"], key)
        for key in ("reasoning_format", "model_reasoning_format"):
            if key in e:
                assert e[key] in ("unknown", "none") or e[key] in reasoning_formats()


def test_every_template_detects_as_its_manifest_says_but_the_listed_misses(
    scored: list[Any],
) -> None:
    misses = {(r.file, r.mode, r.field): r for r in scored if not r.right}
    unexpected = sorted(set(misses) - set(KNOWN_MISSES))
    fixed = sorted(set(KNOWN_MISSES) - set(misses))
    assert not unexpected, "\n".join(
        f"{k}: expected {misses[k].expected}, got {misses[k].got}\n  {misses[k].why}"
        for k in unexpected
    )
    assert not fixed, f"listed as misses but now right (take them off the list): {fixed}"


def test_the_counts_right(scored: list[Any]) -> None:
    table = counts(scored)
    assert {k: table[k] for k in EXPECTED_COUNTS} == EXPECTED_COUNTS
    assert "misses (16)" in report(scored)


def test_templates_with_no_tool_syntax_give_none_with_a_reason(scored: list[Any]) -> None:
    nones = [r for r in scored if r.mode == "template" and r.field == "tool" and r.got is None]
    assert len(nones) >= 14  # (17 since Solar Open, Nemotron, Functionary, Command R+ are read)
    for r in nones:
        assert (
            "no tool syntax in the chat template, and no model id" in r.why
            or "which no streamcall format reads" in r.why
        ), r.why


# -- the rule tables ------------------------------------------------------------------------


def _shadows(earlier: Fingerprint, later: Fingerprint) -> bool:
    """Any text holding all of ``later``'s markers holds all of ``earlier``'s."""
    return all(any(m in n for n in later.markers) for m in earlier.markers)


@pytest.mark.parametrize("table", [TOOL_FINGERPRINTS, REASONING_FINGERPRINTS])
def test_no_rule_shadows_a_later_one(table: tuple[Fingerprint, ...]) -> None:
    shadowed = [
        (a.format, a.markers, b.format, b.markers)
        for i, a in enumerate(table)
        for b in table[i + 1 :]
        if _shadows(a, b)
    ]
    assert shadowed == []


def test_the_shadow_check_catches_a_general_rule_first() -> None:
    general = Fingerprint("hermes", ("<tool_call>",), "")
    specific = Fingerprint("qwen3_coder", ("<tool_call>", "<function="), "")
    assert _shadows(general, specific)
    assert not _shadows(specific, general)


def test_every_name_in_the_tables_is_registered() -> None:
    tools, reasoning = set(formats()), set(reasoning_formats())
    assert {r.format for r in TOOL_FINGERPRINTS} - {None} <= tools
    assert {r.format for r in REASONING_FINGERPRINTS} - {None} <= reasoning
    assert {n for group in SAME_SYNTAX for n in group} <= tools
    assert set(THINK_FAMILIES) <= tools
    assert set(THINK_FAMILIES.values()) <= THINK_FORMATS <= reasoning
    assert len({n for group in SAME_SYNTAX for n in group}) == sum(map(len, SAME_SYNTAX))


# Formats that no chat template writes: the serving engine picks them.
ENGINE_CHOSEN = {
    "generic_json": "llama.cpp answers in its generic JSON for templates with no tool syntax",
}


def test_every_tool_format_is_reachable_from_a_fingerprint() -> None:
    # directly, or through a rule for another member of its syntax group (with a model id)
    direct = {r.format for r in TOOL_FINGERPRINTS}
    grouped = {n for group in SAME_SYNTAX if direct & set(group) for n in group}
    assert set(formats()) - direct - grouped == set(ENGINE_CHOSEN)


@pytest.mark.parametrize("group", SAME_SYNTAX, ids=lambda g: "/".join(g))
def test_formats_of_one_syntax_read_each_others_calls(group: tuple[str, ...]) -> None:
    calls = [("get_weather", {"city": "Boston", "days": 3}), ("ping", {})]
    for writer in group:
        text = parser_class(writer).render(calls)
        for reader in group:
            parsed = parse_tool_calls(text, reader)
            assert [(c.name, c.args) for c in parsed.tool_calls] == calls, (writer, reader)
            assert parsed.content.strip() == "", (writer, reader)


# -- deciding ---------------------------------------------------------------------------------

HERMES = (
    "{%- for m in messages %}{%- if m.tool_calls %}{%- for tc in m.tool_calls %}"
    '{{- \'<tool_call>\\n{"name": "\' + tc.name + \'", "arguments": \' }}'
    "{{- tc.arguments | tojson }}{{- '}\\n</tool_call>' }}{%- endfor %}{%- endif %}"
    "{%- endfor %}"
)
THINKING = "{%- if enable_thinking %}{{- '<think>\\n' }}{%- endif %}"


def test_escaped_markers_inside_string_literals_are_read_as_written() -> None:
    found = detect_template(HERMES)
    assert (found.format, found.reasoning, found.template) == ("hermes", None, None)
    assert 'writes <tool_call> with "arguments":' in found.why


def test_a_model_id_picks_the_member_of_a_syntax_group() -> None:
    assert detect_template(HERMES, model="ibm-granite/granite-4.0-h-small").format == "granite4"
    assert detect_template(HERMES, model="baidu/ERNIE-4.5-21B-A3B-PT").format == "ernie45"
    found = detect_template(HERMES, model="Qwen/Qwen2.5-7B-Instruct")  # routes to qwen3_xml
    assert found.format == "hermes"  # the template's syntax wins over a base family's route
    assert "routes to" not in found.why.split(";")[0]


def test_a_syntax_without_a_format_is_not_routed_by_a_base_familys_name() -> None:
    text = """{{- '<iquestcoder_tool_call>' }}{{ name }}"""
    found = detect_template(text, model="acme/Llama-3.1-8B-actions")
    assert found.format is None  # not llama3_json, which the id alone routes to
    assert "<iquestcoder_tool_call>" in found.why and "no streamcall format reads" in found.why


def test_command_r_plus_action_block_is_read() -> None:
    text = """{{- 'Action: ```json' }}[{"tool_name": "{{ name }}"}]"""
    found = detect_template(text, model="acme/Llama-3.1-8B-actions")
    assert found.format == "command_r_plus"  # the template's syntax, not the id's llama3_json


def test_the_templates_syntax_wins_over_a_base_familys_name() -> None:
    text = "{{- '<TOOLCALL>[' + calls | tojson + ']</TOOLCALL>' }}"
    found = detect_template(text, model="acme/Llama-3.1-8B-toolcall")
    assert found.format == "nemotron_toolcall"  # not llama3_json, which the id routes to


def test_no_tool_syntax_falls_back_to_the_model_id() -> None:
    found = detect_template("{{ messages[0].content }}", model="LiquidAI/LFM2-1.2B")
    assert found.format == "lfm2"
    assert "no tool syntax in the chat template; the model id" in found.why
    found = detect_template("{{ messages[0].content }}", model="tiiuae/falcon-7b")
    assert found.format is None and "routes to no format" in found.why


def test_think_tags_are_read_by_the_model_id_then_by_the_tool_family() -> None:
    assert detect_template(HERMES + THINKING, model="Qwen/Qwen3-8B").reasoning == "qwen3"
    assert detect_template(HERMES + THINKING, model="Qwen/QwQ-32B").reasoning == "deepseek_r1"
    assert detect_template(HERMES + THINKING).reasoning is None
    kimi = "{{- '<|tool_calls_section_begin|>' }}" + THINKING
    assert detect_template(kimi).reasoning == "kimi_k2"
    # an id that routes to a reasoning format of other markers does not read think tags
    found = detect_template(HERMES + THINKING, model="ibm-granite/granite-3.3-8b-instruct")
    assert found.reasoning is None
    assert "neither the model id nor the tool syntax" in found.why


def test_only_the_closer_of_a_prefilled_think_counts() -> None:
    text = "{{- '<｜tool▁calls▁begin｜>' + name + '```json' }}{{- content.split('</think>')[-1] }}"
    assert detect_template(text).reasoning == "deepseek_r1"


def test_distinct_reasoning_markers_win_over_the_model_id() -> None:
    found = detect_template("{{- '[THINK]' + t + '[/THINK]' }}", model="Qwen/Qwen3-8B")
    assert found.reasoning == "mistral"
    assert detect_template("{{ x }}", model="Qwen/Qwen3-8B").reasoning is None


@pytest.mark.parametrize(
    ("text", "reasoning"),
    [
        ("{{- '\u25c1think\u25b7' + t + '\u25c1/think\u25b7' }}", "kimi_vl"),
        ("{%- set b = '<mm:think>' -%}", "minimax_m3"),
        (
            "<|START_THINKING|>{{ t }}<|END_THINKING|><|START_TEXT|>{{ c }}<|END_TEXT|>",
            "cohere_command4",
        ),
        ("<|START_THINKING|>{{ t }}<|END_THINKING|><|START_RESPONSE|>{{ c }}", "cohere_command3"),
        ("{{ '<|inner_prefix|>' + t + '<|inner_suffix|>' }}", "apertus"),
        ("between <think></think> and ... between <response></response>", "granite"),
    ],
)
def test_the_reasoning_markers_of_issue_16(text: str, reasoning: str) -> None:
    assert detect_template(text).reasoning == reasoning


# -- sources ---------------------------------------------------------------------------------


def _write_json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


RESPONSE_TEMPLATE = {
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "reasoning_content": {"open": "<think>", "close": "</think>", "content": "text"},
        "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "content": "json"},
        "content": {"content": "text"},
    },
}


def test_a_response_template_wins(tmp_path: Path) -> None:
    config = {"chat_template": HERMES, "response_template": RESPONSE_TEMPLATE}
    _write_json(tmp_path / "m" / "tokenizer_config.json", config)
    found = detect(tmp_path / "m")
    assert found == Detected("hf", "hf", RESPONSE_TEMPLATE, found.why)
    assert "has a response_template, which decides" in found.why
    no_thinking = {**RESPONSE_TEMPLATE, "fields": {"content": {"content": "text"}}}
    path = _write_json(tmp_path / "n" / "tokenizer_config.json", {"response_template": no_thinking})
    assert (detect(path).format, detect(path).reasoning) == ("hf", None)


def test_a_model_directory_and_its_model_id(tmp_path: Path) -> None:
    d = tmp_path / "granite-4.0-h-tiny"
    _write_json(d / "tokenizer_config.json", {"chat_template": HERMES})
    assert detect(d).format == "granite4"  # the directory's name
    assert detect(d / "tokenizer_config.json").format == "granite4"  # read as its directory
    assert detect(str(d)).format == "granite4"
    # name_or_path wins over the directory's name, config.json's _name_or_path after it
    _write_json(
        d / "tokenizer_config.json", {"chat_template": HERMES, "name_or_path": "x/ernie-4.5"}
    )
    assert detect(d).format == "ernie45"
    _write_json(d / "tokenizer_config.json", {"chat_template": HERMES})
    _write_json(d / "config.json", {"_name_or_path": "NousResearch/Hermes-3-Llama-3.1-8B"})
    assert detect(d).format == "hermes"


def test_a_hugging_face_cache_snapshot_names_its_model(tmp_path: Path) -> None:
    snap = tmp_path / "models--ibm-granite--granite-4.0-micro" / "snapshots" / ("ab12" * 10)
    _write_json(snap / "tokenizer_config.json", {"chat_template": HERMES})
    found = detect(snap)
    assert found.format == "granite4"
    assert "'ibm-granite/granite-4.0-micro'" in found.why


def test_the_template_beside_the_config(tmp_path: Path) -> None:
    d = tmp_path / "m"
    _write_json(d / "tokenizer_config.json", {"eos_token": "<|im_end|>"})
    (d / "chat_template.jinja").write_text(HERMES, encoding="utf-8")
    assert detect(d).format == "hermes"
    e = tmp_path / "e"
    _write_json(e / "chat_template.json", {"chat_template": HERMES})
    assert detect(e).format == "hermes"
    f = tmp_path / "gemma-2-9b"
    f.mkdir()
    found = detect(f)
    assert found.format is None and found.why.startswith("tool calls: no chat template")


def test_named_chat_templates_are_all_read(tmp_path: Path) -> None:
    config = {
        "chat_template": [
            {"name": "default", "template": "{{ messages[0].content }}"},
            {"name": "tool_use", "template": HERMES},
        ]
    }
    assert detect(_write_json(tmp_path / "c.json", config)).format == "hermes"


def test_a_template_file_and_template_text(tmp_path: Path) -> None:
    path = tmp_path / "t.jinja"
    path.write_text(HERMES, encoding="utf-8")
    assert detect(path).format == "hermes"
    assert detect(HERMES).format == "hermes"
    assert detect(str(ROOT / "llama.cpp" / "Qwen3.5-4B.jinja")).format == "qwen3_coder"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object, got list"),
        ('{"chat_template": 3}', "chat_template must be a string or a list"),
        ('{"chat_template": [{"name": "x"}]}', "chat_template[0] must be an object"),
        ('{"response_template": "x"}', "response_template must be an object, got str"),
        ('{"name_or_path": 3}', "name_or_path must be a string"),
    ],
)
def test_bad_files_say_what_and_where(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "tokenizer_config.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        detect(path)
    assert str(path) in str(info.value)


def test_a_missing_path_is_not_read_as_a_template() -> None:
    with pytest.raises(FileNotFoundError, match="no such file or directory: 'no/such/dir'"):
        detect("no/such/dir")


def test_a_large_template_is_read_in_one_pass() -> None:
    big = HERMES + "{# " + "x" * 2_000_000 + " #}" + THINKING
    found = detect_template(big, model="Qwen/Qwen3-8B")
    assert (found.format, found.reasoning) == ("hermes", "qwen3")


# -- the command line --------------------------------------------------------------------------


def test_cli_detect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["detect", str(ROOT / "llama.cpp" / "Kimi-K2-Thinking.jinja")]) == 0
    out = capsys.readouterr().out
    assert "tool-call format:  kimi_k2\nreasoning format:  kimi_k2\n" in out
    assert "response template: no\nwhy: tool calls: the chat template writes" in out
    d = tmp_path / "m"
    _write_json(d / "tokenizer_config.json", {"response_template": RESPONSE_TEMPLATE})
    assert cli_main(["detect", str(d), "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert (row["format"], row["reasoning"], row["template"]) == ("hf", "hf", RESPONSE_TEMPLATE)
    assert cli_main(["detect", str(tmp_path / "nope")]) == 2
    assert "no such file or directory" in capsys.readouterr().err


def test_a_muse_template_follows_the_model_id_for_both_parsers() -> None:
    text = (ROOT / "vllm-0.33/tool_chat_template_muse_glimmer.jinja").read_text(encoding="utf-8")
    found = detect_template(text)
    assert (found.format, found.reasoning) == ("muse_glimmer", "muse_glimmer")
    found = detect_template(text, model="meta/muse-spark-1.2")  # one wire, Spark's channels
    assert (found.format, found.reasoning) == ("muse", "muse")
    assert "reads the same syntax" in found.why
