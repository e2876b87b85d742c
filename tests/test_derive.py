"""Deriving a parser from a chat template no fingerprint knows (``streamcall.derive``).

Each renamed template (in every family the engines read) is a real template of the fixtures
with its markers renamed consistently (``<tool_call>`` becomes ``<fn_call>``, ``<think>``
becomes ``<reason>``, ...; for calls written with no marker, the keys or the words a
fingerprint knows them by), so that no fingerprint knows it while its grammar is one an
engine reads. Each one is
derived, then what the template itself renders for a call with reasoning, and for two
parallel calls, is parsed in every chunking. Templates that write calls as prose, write
none, fail to render or write a grammar beyond the engines are refused with the reason.
Every recognised template, derived with the fingerprint tables switched off, reads its own
rendering as its named format does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.cli import main as cli_main
from streamcall.derive import derive, probe_args_match, written_as_strings
from streamcall.derive.probes import ARGS, NAMES, REASONING, TOOLS, USER, Probes
from streamcall.detect import detect, detect_template, output_parser_for
from streamcall.formats.registry import parse_tool_calls
from streamcall.prompt.jinja import ChatTemplate
from support import random_chunkings

ROOT = Path(__file__).parent / "fixtures" / "chat_templates"


@dataclass(frozen=True)
class Renamed:
    """A fixture template with its markers renamed: ``renames`` are ``(old, new)`` pairs."""

    family: str
    file: str
    renames: tuple[tuple[str, str], ...]
    layout: str
    #: the markers the derived syntax must name (block or call), and the reasoning's
    markers: tuple[str, ...]
    reasoning: tuple[str, str] | None

    def text(self) -> str:
        text = (ROOT / self.file).read_text(encoding="utf-8")
        for old, new in self.renames:
            assert old in text, (self.file, old)
            text = text.replace(old, new)
        return text


_THINK = (("<think>", "<reason>"), ("</think>", "</reason>"))
# The renames of the key/value-tag family (GLM's and Poolside's templates share the markers)
KEY_VALUE_RENAMES = (
    ("<tool_call>", "<call>"),
    ("</tool_call>", "</call>"),
    ("<arg_key>", "<k>"),
    ("</arg_key>", "</k>"),
    ("<arg_value>", "<v>"),
    ("</arg_value>", "</v>"),
    ("<think>", "<mind>"),
    ("</think>", "</mind>"),
)

RENAMED = [
    Renamed(
        "JSON in tags (Hermes, Qwen3)",
        "llama.cpp/Qwen-Qwen3-0.6B.jinja",
        (("<tool_call>", "<fn_call>"), ("</tool_call>", "</fn_call>"), *_THINK),
        "json",
        ("<fn_call>", "</fn_call>"),
        ("<reason>", "</reason>"),
    ),
    Renamed(
        "JSON in a block (MiniMax-M1)",
        "llama.cpp/MiniMax-M1.jinja",
        (("<tool_calls>", "<calls>"), ("</tool_calls>", "</calls>")),
        "json",
        ("<calls>", "</calls>"),
        None,
    ),
    Renamed(
        "a JSON list after a token (Granite 3)",
        "vllm/tool_chat_template_granite.jinja",
        (("<|tool_call|>", "<|fn|>"),),
        "json",
        ("<|fn|>",),
        None,
    ),
    Renamed(
        "XML parameters (Qwen3.5, qwen3_coder)",
        "llama.cpp/Qwen3.5-4B.jinja",
        (
            ("<tool_call>", "<invoke_block>"),
            ("</tool_call>", "</invoke_block>"),
            ("<function=", "<fn="),
            ("</function>", "</fn>"),
            ("<parameter=", "<arg="),
            ("</parameter>", "</arg>"),
            ("<think>", "<ponder>"),
            ("</think>", "</ponder>"),
        ),
        "xml_params",
        ("<invoke_block>", "<fn=", "</fn>"),
        ("<ponder>", "</ponder>"),
    ),
    Renamed(
        "XML parameters with attributes (MiniMax-M2)",
        "llama.cpp/MiniMax-M2.jinja",
        (
            ("minimax:tool_call", "acme:call"),
            ("<invoke name=", "<op name="),
            ("</invoke>", "</op>"),
            ("<think>", "<reflect>"),
            ("</think>", "</reflect>"),
        ),
        "xml_params",
        ("<acme:call>", '<op name="', "</op>"),
        ("<reflect>", "</reflect>"),
    ),
    Renamed(
        "key/value tags (GLM-4.6)",
        "llama.cpp/GLM-4.6.jinja",
        KEY_VALUE_RENAMES,
        "xml_params",
        ("<call>", "</call>"),
        ("<mind>", "</mind>"),
    ),
    Renamed(
        "key/value tags, no newline after the name (GLM-4.7)",
        "llama.cpp/GLM-4.7-Flash.jinja",
        (
            ("<tool_call>", "<tc>"),
            ("</tool_call>", "</tc>"),
            ("<arg_key>", "<key>"),
            ("</arg_key>", "</key>"),
            ("<arg_value>", "<val>"),
            ("</arg_value>", "</val>"),
            ("<think>", "<thought>"),
            ("</think>", "</thought>"),
        ),
        "xml_params",
        ("<tc>", "</tc>"),
        ("<thought>", "</thought>"),
    ),
    Renamed(
        "special tokens (DeepSeek-V3.1)",
        "vllm/tool_chat_template_deepseekv31.jinja",
        (
            ("tool▁calls▁begin", "fn▁block▁open"),
            ("tool▁calls▁end", "fn▁block▁close"),
            ("tool▁call▁begin", "fn▁open"),
            ("tool▁call▁end", "fn▁close"),
            ("tool▁sep", "fn▁sep"),
            ("<think>", "<thought>"),
            ("</think>", "</thought>"),
        ),
        "header_json",
        ("<｜fn▁block▁open｜>", "<｜fn▁open｜>", "<｜fn▁close｜>"),
        ("<thought>", "</thought>"),
    ),
    Renamed(
        "a token, the name, a token, JSON (Ministral 3)",
        "llama.cpp/mistralai-Ministral-3-14B-Reasoning-2512.jinja",
        (("[TOOL_CALLS]", "[FN_CALLS]"), ("[ARGS]", "[FN_ARGS]")),
        "header_json",
        ("[FN_CALLS]",),
        None,
    ),
    Renamed(
        "pythonic lists (LFM2.5)",
        "llama.cpp/LFM2.5-8B-A1B.jinja",
        (("<|tool_call_start|>", "<|fn_start|>"), ("<|tool_call_end|>", "<|fn_end|>"), *_THINK),
        "pythonic",
        ("<|fn_start|>", "<|fn_end|>"),
        ("<reason>", "</reason>"),
    ),
    Renamed(
        "Gemma 4's call:NAME{...} with a quote token",
        "llama.cpp/google-gemma-4-31B-it.jinja",
        (("<|tool_call>", "<|invoke>"), ("<tool_call|>", "<invoke|>"), ('<|"|>', "<|q|>")),
        "gemma",
        ("<|invoke>", "<invoke|>"),
        None,
    ),
    Renamed(
        "XML parameters in suffixed tokens (Tencent HY3)",
        "llama.cpp/tencent-Hy3.jinja",
        (
            ("<tool_calls", "<fn_calls"),
            ("</tool_calls", "</fn_calls"),
            ("<tool_call", "<fn_call"),
            ("</tool_call", "</fn_call"),
            ("<arg_key", "<ak"),
            ("</arg_key", "</ak"),
            ("<arg_value", "<av"),
            ("</arg_value", "</av"),
            ("<think", "<muse"),
            ("</think", "</muse"),
        ),
        "xml_params",
        ("<fn_calls:opensource>", "<fn_call:opensource>"),
        ("<muse:opensource>", "</muse:opensource>"),
    ),
    Renamed(
        "JSON in tags (Qwen2.5)",
        "llama.cpp/Qwen-Qwen2.5-7B-Instruct.jinja",
        (("<tool_call>", "<act>"), ("</tool_call>", "</act>")),
        "json",
        ("<act>", "</act>"),
        None,
    ),
    Renamed(
        "JSON in tags in a Granite 4 template",
        "llama.cpp/ibm-granite-granite-4.0.jinja",
        (("<tool_call>", "<do>"), ("</tool_call>", "</do>")),
        "json",
        ("<do>", "</do>"),
        None,
    ),
    Renamed(
        "JSON after two tokens (InternLM 2)",
        "vllm/tool_chat_template_internlm2_tool.jinja",
        (
            ("<|action_start|>", "<|act_open|>"),
            ("<|action_end|>", "<|act_close|>"),
            ("<|plugin|>", "<|tool|>"),
        ),
        "json",
        ("<|act_open|><|tool|>", "<|act_close|>"),
        None,
    ),
    Renamed(
        "a JSON list in a block (Nemotron Nano v2)",
        "llama.cpp/NVIDIA-Nemotron-Nano-v2.jinja",
        (
            ("<TOOLCALL>", "<CALLS>"),
            ("</TOOLCALL>", "</CALLS>"),
            ("<think>", "<ponder>"),
            ("</think>", "</ponder>"),
        ),
        "json",
        ("<CALLS>", "</CALLS>"),
        ("<ponder>", "</ponder>"),
    ),
    Renamed(
        "XML parameters (Qwen3-Coder)",
        "vllm/tool_chat_template_qwen3coder.jinja",
        (
            ("<tool_call>", "<run>"),
            ("</tool_call>", "</run>"),
            ("<function=", "<fn="),
            ("</function>", "</fn>"),
            ("<parameter=", "<arg="),
            ("</parameter>", "</arg>"),
        ),
        "xml_params",
        ("<run>", "<fn=", "</fn>"),
        None,
    ),
    Renamed(
        "XML parameters with think tags (Nemotron 3)",
        "llama.cpp/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja",
        (
            ("<tool_call>", "<run>"),
            ("</tool_call>", "</run>"),
            ("<function=", "<fn="),
            ("</function>", "</fn>"),
            ("<parameter=", "<arg="),
            ("</parameter>", "</arg>"),
            ("<think>", "<ponder>"),
            ("</think>", "</ponder>"),
        ),
        "xml_params",
        ("<run>", "<fn=", "</fn>"),
        ("<ponder>", "</ponder>"),
    ),
    Renamed(
        "XML parameters in namespaced tags (Seed-OSS)",
        "llama.cpp/ByteDance-Seed-OSS.jinja",
        (
            ("seed:tool_call", "acme:call"),
            ("seed:think", "acme:think"),
            ("<function=", "<fn="),
            ("</function>", "</fn>"),
            ("<parameter=", "<p="),
            ("</parameter>", "</p>"),
        ),
        "xml_params",
        ("<acme:call>", "<fn=", "</fn>"),
        ("<acme:think>", "</acme:think>"),
    ),
    Renamed(
        "key/value tags (Poolside Laguna)",
        "llama.cpp/poolside-Laguna-XS.2.jinja",
        KEY_VALUE_RENAMES,
        "xml_params",
        ("<call>", "</call>"),
        ("<mind>", "</mind>"),
    ),
    Renamed(
        "special tokens with a fenced JSON body (DeepSeek-R1 distills)",
        "llama.cpp/deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja",
        (
            ("tool▁calls▁begin", "acts▁begin"),
            ("tool▁calls▁end", "acts▁end"),
            ("tool▁call▁begin", "act▁begin"),
            ("tool▁call▁end", "act▁end"),
            ("tool▁sep", "act▁sep"),
            ("<think>", "<ponder>"),
            ("</think>", "</ponder>"),
        ),
        "header_json",
        ("<｜acts▁begin｜>",),
        ("<ponder>", "</ponder>"),
    ),
    Renamed(
        "a tag with the name, then JSON (Functionary v3.1)",
        "llama.cpp/meetkai-functionary-medium-v3.1.jinja",
        (("<function=", "<invoke="), ("</function>", "</invoke>")),
        "header_json",
        ("<invoke=", "</invoke>"),
        None,
    ),
    # -- JSON with no marker: the keys renamed, so that no fingerprint knows the template ----
    Renamed(
        "bare JSON, one call a turn (Llama 3.1)",
        "llama.cpp/meta-llama-Llama-3.1-8B-Instruct.jinja",
        (('"parameters":', '"args":'),),
        "json",
        (),
        None,
    ),
    Renamed(
        "bare JSON objects (Llama 4 JSON)",
        "vllm/tool_chat_template_llama4_json.jinja",
        (('"parameters":', '"args":'),),
        "json",
        (),
        None,
    ),
    Renamed(
        "a bare JSON list (xLAM)",
        "vllm/tool_chat_template_xlam_llama.jinja",
        (('"arguments":', '"args":'),),
        "json",
        (),
        None,
    ),
    # the template writes every value between its string quotes (``"{{ value }}"``): the
    # parser reads back strings, the types are the template's loss
    Renamed(
        "a bare Python list, values written as strings (Llama 4 pythonic)",
        "vllm/tool_chat_template_llama4_pythonic.jinja",
        (("[func_name1(", "[fn_one("),),
        "pythonic",
        (),
        None,
    ),
    Renamed(
        "call:NAME{...} with an escape token, values as strings (FunctionGemma)",
        "vllm-0.33/tool_chat_template_functiongemma.jinja",
        (
            ("<start_function_call>", "<begin_call>"),
            ("<end_function_call>", "<end_call>"),
            ("<escape>", "<q>"),
        ),
        "gemma",
        ("<begin_call>", "<end_call>"),
        None,
    ),
    Renamed(
        "the name as the key, in a listed block (Apertus)",
        "vllm-0.33/tool_chat_template_apertus.jinja",
        (
            ("<|tools_prefix|>", "<|calls_open|>"),
            ("<|tools_suffix|>", "<|calls_close|>"),
            ("<|inner_prefix|>", "<|mind_open|>"),
            ("<|inner_suffix|>", "<|mind_close|>"),
        ),
        "json",
        ("<|calls_open|>", "<|calls_close|>"),
        None,
    ),
    Renamed(
        "JSON after a role header, the second call dropped (GigaChat 3)",
        "llama.cpp/GigaChat3-10B-A1.8B.jinja",
        (("function call", "tool invoke"),),
        "json",
        ("<|message_sep|>\n\ntool invoke<|role_sep|>",),
        None,
    ),
    Renamed(
        "a word before a JSON list (Firefunction v2)",
        "llama.cpp/fireworks-ai-llama-3-firefunction-v2.jinja",
        (("functools", "fn_calls"), ('[{"name": [function name]', '[{ "name": [function name]')),
        "json",
        ("fn_calls",),
        None,
    ),
]
_IDS = [r.family for r in RENAMED]
_DERIVED: dict[str, Any] = {}


def _found(case: Renamed) -> Any:
    if case.file not in _DERIVED:
        _DERIVED[case.file] = detect_template(case.text())
    return _DERIVED[case.file]


def _turn(case: Renamed, found: Any) -> str:
    """What the template renders for an assistant turn with reasoning and one call, from
    its reasoning's start (its call's start if it writes no reasoning) to the call's end."""
    rendered = Probes(ChatTemplate.from_string(case.text())).reasoning()
    assert rendered is not None
    derived = found.derived
    calls = derived.calls
    u = rendered.find(USER)
    first = rendered.find(NAMES[0], u)
    if derived.reasoning is not None and REASONING in rendered:
        start = rendered.rfind(derived.reasoning.start, u, rendered.find(REASONING, u))
    else:
        # with no marker, the calls open the turn: at their list's '[', or the object's '{'
        opener = calls.block[0] or calls.call[0] or ("[" if calls.listed else "{")
        start = rendered.rfind(opener, u, first)
    closer = calls.block[1] or calls.call[1]
    if closer:
        end = rendered.find(closer, first) + len(closer)
    else:  # the call ends where the turn's end token starts
        end = rendered.find("<", rendered.rfind("zqv"))
    return rendered[start:end]


def _check(
    items: list[testing.Item], calls: int, reasoning: bool, strings: frozenset[str] = frozenset()
) -> None:
    """``strings``: the keys the template writes as strings (``written_as_strings``)."""
    got = [v for k, v in items if k == "call"]
    assert [c.name for c in got] == list(NAMES[:calls])  # type: ignore[union-attr]
    for c in got:
        assert not c.incomplete and probe_args_match(json.loads(c.arguments), strings)  # type: ignore[union-attr]
    said = "".join(v for k, v in items if k == "reasoning" and isinstance(v, str))
    assert said.strip() == (REASONING if reasoning else "")
    assert not "".join(v for k, v in items if k == "text" and isinstance(v, str)).strip()


@pytest.mark.parametrize("case", RENAMED, ids=_IDS)
def test_a_renamed_template_gets_a_derived_parser(case: Renamed) -> None:
    text = case.text()
    for old, _new in case.renames:
        assert old not in text
    found = _found(case)
    assert (found.format, found.tool_syntax) == (None, "derived"), found.why
    syntax = found.derived.calls
    assert syntax.layout == case.layout
    named = set(syntax.block + syntax.call)
    assert set(case.markers) <= named, (syntax, case.markers)
    reasoning = found.derived.reasoning
    assert ((reasoning.start, reasoning.end) if reasoning else None) == case.reasoning
    assert "derived from it" in found.why


@pytest.mark.parametrize("case", RENAMED, ids=_IDS)
@given(data=st.data())
def test_a_derived_parser_reads_what_its_template_renders_in_every_chunking(
    case: Renamed, data: st.DataObject
) -> None:
    found = _found(case)
    # the turn as the history renders it starts outside reasoning (a reasoning block in it
    # opens with its own marker): the prompt before it is one that closed reasoning
    derived = found.derived.reasoning
    closed = f"\n{derived.end}\n\n" if derived is not None and found.reasoning is None else None

    def make() -> Any:
        return output_parser_for(found, tools=TOOLS, generation_prompt=closed)

    turn = _turn(case, found)
    # the two parallel calls, read by the call parser alone (the sample has no reasoning,
    # and a template whose prompt opens reasoning would have the output start inside it)
    sample = found.derived.sample
    strings = written_as_strings(sample)
    items = testing.check_chunkings(make, turn, random_chunkings(data, turn))
    _check(items, 1, REASONING in turn, strings)

    def calls() -> Any:
        return found.derived.tool_parser(TOOLS)

    n = 1 if found.derived.calls.single else 2  # a template that renders one call a turn
    items = testing.check_chunkings(calls, sample, random_chunkings(data, sample))
    _check(items, n, False, strings)


@pytest.mark.parametrize("case", [c for c in RENAMED if c.reasoning], ids=lambda c: c.family)
def test_a_prompt_that_opens_reasoning_starts_the_parser_inside_it(case: Renamed) -> None:
    found = _found(case)
    turn = _turn(case, found)
    start = found.derived.reasoning.start
    if REASONING not in turn:
        # a template that drops reasoning from its history: the markers were read off the
        # generation prompt it writes with thinking on
        assert found.derived.reasoning_sample == ""
        assert found.derived.reasoning.opens_thinking
        return
    assert turn.startswith(start)
    parser = output_parser_for(found, tools=TOOLS, generation_prompt=f"assistant\n{start}\n")
    items = testing.coalesce(testing.run(parser, testing.chunk_every(turn[len(start) :], 3)))
    _check(items, 1, True)


def test_the_derived_syntax_is_printed_and_parsed_with(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = RENAMED[0]
    model = tmp_path / "acme-7b"
    model.mkdir()
    (model / "tokenizer_config.json").write_text(json.dumps({"chat_template": case.text()}))
    assert cli_main(["detect", str(model)]) == 0
    out = capsys.readouterr().out
    assert "tool-call format:  derived\nreasoning format:  derived\n" in out
    assert "tool syntax:       derived\n" in out
    assert "call markers: '<fn_call>' … '</fn_call>'" in out
    assert "reasoning markers: '<reason>' … '</reason>'" in out
    assert cli_main(["detect", "--json", str(model)]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["derived"]["calls"]["call"] == ["<fn_call>", "</fn_call>"]
    answer = tmp_path / "answer.txt"
    answer.write_text(
        '<reason>hm</reason>\n\nSure.<fn_call>\n{"name": "f", "arguments": {"x": 1}}\n</fn_call>'
    )
    assert cli_main(["parse", "--model-dir", str(model), "--message", str(answer)]) == 0
    message = json.loads(capsys.readouterr().out)
    assert (message["content"], message["reasoning_content"]) == ("Sure.", "hm")
    assert message["tool_calls"][0]["function"]["name"] == "f"


def test_serve_with_a_model_dir_parses_with_the_derived_syntax(tmp_path: Path) -> None:
    from streamcall.server.config import ServerConfig, config_with_model_dir
    from streamcall.server.parsers import parser_for

    (tmp_path / "tokenizer_config.json").write_text(
        json.dumps({"chat_template": RENAMED[3].text()})
    )
    config = config_with_model_dir(ServerConfig(upstream="http://up/v1"), tmp_path)
    assert (config.format, config.reasoning) == ("derived", "derived")
    parser = parser_for(config, {"model": "acme", "tools": TOOLS}, "call_")
    text = "<ponder>\nhm\n</ponder>\n\n<invoke_block>\n<fn=f>\n<arg=x>\n1\n</arg>\n</fn>\n</invoke_block>"
    chunks = [
        b"data: "
        + json.dumps({"choices": [{"index": 0, "delta": {"content": text[i : i + 4]}}]}).encode()
        + b"\n\n"
        for i in range(0, len(text), 4)
    ]
    for chunk in chunks:
        parser.feed(chunk)
    parser.feed(b"data: [DONE]\n\n")
    parser.finish()
    message = parser.message
    assert message.reasoning.strip() == "hm"
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == [("f", {"x": 1})]


# -- refusals -------------------------------------------------------------------------------

_PROSE = """{%- for m in messages -%}
{{- m.role }}: {{ m.content }}
{%- if m.tool_calls %}{% for c in m.tool_calls %}I will call {{ c.function.name }} with \
{% for k, v in c.function.arguments.items() %}{{ k }} set to {{ v }}, {% endfor %}then wait.
{% endfor %}{% endif %}
{% endfor -%}
{%- if add_generation_prompt %}assistant: {% endif -%}"""
_FAILS = "{{ raise_exception('this template renders nothing') }}"


def _beyond() -> str:
    # Solar Open's calls carry the model's own id in their markup: a grammar no engine reads
    text = (ROOT / "llama.cpp/upstage-Solar-Open-100B.jinja").read_text(encoding="utf-8")
    return text.replace("<|tool_call:", "<|fn:")


@pytest.mark.parametrize(
    ("text", "syntax", "kind", "said"),
    [
        (_PROSE, "refused", "prose", "prose"),
        (
            (ROOT / "vllm-0.33/template_chatml.jinja").read_text(),
            "none",
            "no-tools",
            "does not render tool calls",
        ),
        (_FAILS, "unknown", "unknown", "fails to render"),
        (_beyond(), "refused", "beyond", "as text"),
    ],
    ids=["prose", "no tool support", "cannot tell", "beyond the engines"],
)
def test_a_template_no_engine_reads_is_refused_with_the_reason(
    text: str, syntax: str, kind: str, said: str
) -> None:
    found = detect_template(text)
    assert (found.format, found.tool_syntax) == (None, syntax), found.why
    assert found.derived.calls is None
    assert found.derived.refusal.kind == kind
    assert said in found.derived.refusal.why
    assert said in found.why or found.derived.refusal.why in found.why


@pytest.mark.parametrize("text", ["", "{{", "{% for %}", "{{ messages[99].content.x() }}", "\x00"])
def test_derive_never_raises_on_a_template(text: str) -> None:
    found = derive(text)
    assert found.calls is None and found.refusal is not None


@pytest.mark.parametrize("case", RENAMED, ids=_IDS)
def test_malformed_output_never_raises(case: Renamed) -> None:
    found = _found(case)
    sample = found.derived.sample
    for cut in range(0, len(sample), max(1, len(sample) // 40)):
        for tail in ("", "}", "<", "\n{", ">", "]]"):
            testing.coalesce(testing.run(output_parser_for(found), [sample[:cut] + tail]))


# -- recognised templates ---------------------------------------------------------------------


def _manifest() -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads((ROOT / "manifest.json").read_text())["templates"]
    return entries


_RECOGNISED = [
    e["file"]
    for e in _manifest()
    if detect_template((ROOT / e["file"]).read_text(encoding="utf-8")).format is not None
]


@pytest.mark.parametrize("file", _RECOGNISED)
def test_derived_with_the_fingerprints_off_a_recognised_template_agrees_with_its_format(
    file: str,
) -> None:
    text = (ROOT / file).read_text(encoding="utf-8")
    named = detect_template(text).format
    found = detect_template(text, fingerprints=False)
    derived = found.derived
    assert derived is not None
    if derived.calls is None:
        # refused: never a parser that disagrees (the reason is said)
        assert found.tool_syntax in ("refused", "unknown", "none") and derived.refusal
        return
    assert found.tool_syntax == "derived"
    parsed = parse_tool_calls(derived.sample, named, tools=TOOLS)
    assert not parsed.content.strip()
    by_format = [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls]
    items = testing.coalesce(testing.run(derived.tool_parser(TOOLS), [derived.sample]))
    by_derived = [(c.name, json.loads(c.arguments)) for k, c in items if k == "call"]  # type: ignore[union-attr]
    assert by_derived == by_format
    assert [n for n, _ in by_format] == list(NAMES[: 1 if derived.calls.single else 2])


def test_most_recognised_templates_are_derived_too() -> None:
    derived = [
        f
        for f in _RECOGNISED
        if detect_template((ROOT / f).read_text(encoding="utf-8"), fingerprints=False).tool_syntax
        == "derived"
    ]
    assert len(derived) >= 63, len(derived)


@pytest.mark.parametrize(
    ("file", "opened"),
    [("llama.cpp/Qwen-Qwen3-0.6B.jinja", False), ("llama.cpp/LFM2.5-8B-A1B.jinja", False)],
)
def test_a_template_that_writes_think_gets_a_reasoning_format_without_a_model_id(
    file: str, opened: bool
) -> None:
    text = (ROOT / file).read_text(encoding="utf-8")
    found = detect_template(text)
    assert found.format is not None and found.reasoning == "deepseek_v3", found.why
    assert "generation prompt" in found.why
    rendered = Probes(ChatTemplate.from_string(text)).reasoning()
    assert rendered is not None
    u = rendered.find(USER)
    turn = rendered[rendered.find("<think>", u) :]
    items = testing.check_chunkings(lambda: output_parser_for(found, tools=TOOLS), turn)
    assert "".join(v for k, v in items if k == "reasoning").strip() == REASONING  # type: ignore[misc]
    calls = [c for k, c in items if k == "call"]
    assert [c.name for c in calls][:1] == [NAMES[0]]  # type: ignore[union-attr]
    assert json.loads(calls[0].arguments)["zq_str"] == ARGS["zq_str"]  # type: ignore[union-attr]
    assert detect(ROOT / file).reasoning == "deepseek_v3"


@pytest.mark.parametrize(
    ("family", "request_body", "output", "reasoning", "text"),
    [
        ("XML parameters (Qwen3.5, qwen3_coder)", None, "hm\n</ponder>\n\nHello", "hm", "Hello"),
        (
            "XML parameters (Qwen3.5, qwen3_coder)",
            {"chat_template_kwargs": {"enable_thinking": False}},
            "Hello",
            "",
            "Hello",
        ),
        ("special tokens (DeepSeek-V3.1)", None, "Hello", "", "Hello"),
        (
            "special tokens (DeepSeek-V3.1)",
            {"chat_template_kwargs": {"thinking": True}},
            "hm</thought>Hello",
            "hm",
            "Hello",
        ),
    ],
)
def test_the_thinking_switch_decides_where_derived_reasoning_starts(
    family: str, request_body: Any, output: str, reasoning: str, text: str
) -> None:
    found = _found(next(c for c in RENAMED if c.family == family))
    parser = output_parser_for(found, request=request_body)
    items = testing.check_chunkings(lambda: output_parser_for(found, request=request_body), output)
    assert testing.coalesce(testing.run(parser, [output])) == items
    said = "".join(v for k, v in items if k == "reasoning" and isinstance(v, str))
    shown = "".join(v for k, v in items if k == "text" and isinstance(v, str))
    assert (said.strip(), shown.strip()) == (reasoning, text)


# -- the derived syntax as a response template --------------------------------------------

#: the renamed templates whose syntax a response template's shapes express
EXPORTABLE = {
    "JSON in tags (Qwen2.5)",
    "JSON in tags in a Granite 4 template",
    "JSON after two tokens (InternLM 2)",
    "a JSON list in a block (Nemotron Nano v2)",
    "XML parameters (Qwen3-Coder)",
    "XML parameters with think tags (Nemotron 3)",
    "XML parameters in namespaced tags (Seed-OSS)",
    "key/value tags (Poolside Laguna)",
    "JSON in tags (Hermes, Qwen3)",
    "a JSON list after a token (Granite 3)",
    "XML parameters (Qwen3.5, qwen3_coder)",
    "XML parameters with attributes (MiniMax-M2)",
    "key/value tags (GLM-4.6)",
    "key/value tags, no newline after the name (GLM-4.7)",
    "special tokens (DeepSeek-V3.1)",
    "pythonic lists (LFM2.5)",
    "XML parameters in suffixed tokens (Tencent HY3)",
    "a word before a JSON list (Firefunction v2)",
}


@pytest.mark.parametrize("case", RENAMED, ids=_IDS)
def test_a_derived_syntax_exports_as_a_response_template_where_the_shapes_allow(
    case: Renamed,
) -> None:
    from streamcall.response_templates import parse_response

    found = _found(case)
    template = found.derived.response_template()
    if case.family not in EXPORTABLE:
        assert template is None
        return
    assert template is not None
    turn = _turn(case, found)
    prompt = Probes(ChatTemplate.from_string(case.text())).opening(False) or ""
    opener = found.derived.reasoning.start if found.derived.reasoning else ""
    if opener and prompt.rstrip().endswith(opener):
        if turn.startswith(opener):
            turn = turn[len(opener) :]  # the prompt opened reasoning: the output starts inside
        else:  # the turn has no reasoning: the prompt's block closed at once
            prompt += found.derived.reasoning.end
    message = parse_response(turn, template, prefix=prompt, tools=TOOLS)
    calls = message["tool_calls"]
    assert [c["function"]["name"] for c in calls] == [NAMES[0]]
    arguments = calls[0]["function"]["arguments"]
    assert (arguments["zq_str"], arguments["zq_int"]) == ("zqstring", 4217)
    if REASONING in turn:
        assert message["thinking"].strip() == REASONING
    assert not (message.get("content") or "").strip()
