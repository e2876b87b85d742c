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
# DeepSeek's DSML templates build every tag from one token, and flag string parameters
DSML_RENAMES = (
    ("｜DSML｜", "｜ACME｜"),
    ('string="', 'raw="'),
    ("'<think>'", "'<ponder>'"),
    ("'</think>'", "'</ponder>'"),
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
        ("<|channel>", "<channel|>"),  # (reasoning: a marker, then the word ``thought``)
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
    Renamed(
        "a header with the call's index (Kimi K2 Thinking)",
        "llama.cpp/Kimi-K2-Thinking.jinja",
        (
            ("<|tool_calls_section_begin|>", "<|fn_section|>"),
            ("<|tool_calls_section_end|>", "<|fn_section_end|>"),
            ("<|tool_call_begin|>", "<|fn_begin|>"),
            ("<|tool_call_argument_begin|>", "<|fn_args|>"),
            ("<|tool_call_end|>", "<|fn_end|>"),
            *_THINK,
        ),
        "header_json",
        ("<|fn_section|>", "<|fn_end|>"),
        ("<reason>", "</reason>"),
    ),
    Renamed(
        "a header with the model's call id (Mistral Small 3.2)",
        "llama.cpp/Mistral-Small-3.2-24B-Instruct-2506.jinja",
        (("[TOOL_CALLS]", "[FN_CALLS]"), ("[CALL_ID]", "[FN_ID]"), ("[ARGS]", "[FN_ARGS]")),
        "header_json",
        ("[FN_CALLS]",),
        None,
    ),
    Renamed(
        "a JSON list with the model's call ids (Mistral Nemo)",
        "llama.cpp/mistralai-Mistral-Nemo-Instruct-2407.jinja",
        (("[TOOL_CALLS]", "[FN_CALLS]"),),
        "json",
        ("[FN_CALLS]",),
        None,
    ),
    Renamed(
        "the model's call id before the name (Solar Open)",
        "llama.cpp/upstage-Solar-Open-100B.jinja",
        (("<|tool_call:", "<|fn:"), ("<|tool_calls|>", "<|fns|>"), ("<|calls|>", "<|fns_end|>")),
        "header_json",
        ("<|fns|>", "<|fn:begin|>", "<|fn:end|>"),
        None,
    ),
    Renamed(
        "a JSON list with call ids in action tokens (Cohere Command A)",
        "llama.cpp/Cohere2MoE.jinja",
        (
            ("<|START_ACTION|>", "<|BEGIN_CALLS|>"),
            ("<|END_ACTION|>", "<|END_CALLS|>"),
            ("<|START_THINKING|>", "<|BEGIN_THOUGHT|>"),
            ("<|END_THINKING|>", "<|END_THOUGHT|>"),
        ),
        "json",
        ("<|BEGIN_CALLS|>", "<|END_CALLS|>"),
        # no reasoning: the answer after it is framed too (<|START_RESPONSE|>), which the
        # derived parsers would leave in the text (derive's answer check)
        None,
    ),
    Renamed(
        "a JSON list in a code fence after a word (Command R+)",
        "llama.cpp/CohereForAI-c4ai-command-r-plus-tool_use.jinja",
        (("Action:", "Invoke:"),),
        "json",
        ("Invoke:\n```json", "```"),
        None,
    ),
    Renamed(
        "XML parameters with a string flag (DeepSeek-V3.2 DSML)",
        "llama.cpp/deepseek-ai-DeepSeek-V3.2.jinja",
        DSML_RENAMES,
        "xml_params",
        ("<｜ACME｜function_calls>", '<｜ACME｜invoke name="', "</｜ACME｜invoke>"),
        ("<ponder>", "</ponder>"),
    ),
    Renamed(
        "XML parameters with a string flag, a tool_calls block (DeepSeek-V4 DSML)",
        "llama.cpp/deepseek-ai-DeepSeek-V4.jinja",
        DSML_RENAMES,
        "xml_params",
        ("<｜ACME｜tool_calls>", '<｜ACME｜invoke name="', "</｜ACME｜invoke>"),
        ("<ponder>", "</ponder>"),
    ),
    Renamed(
        "Gemma 4's calls, reasoning after a marker and a word (<|channel>thought)",
        "vllm-0.33/tool_chat_template_gemma4.jinja",
        (
            ("<|tool_call>", "<|invoke>"),
            ("<tool_call|>", "<invoke|>"),
            ('<|"|>', "<|q|>"),
            ("<|channel>thought", "<|lane>musing"),
            ("<|channel>", "<|lane>"),
            ("<channel|>", "<lane|>"),
        ),
        "gemma",
        ("<|invoke>", "<invoke|>"),
        ("<|lane>", "<lane|>"),
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
    # every tag closes on one token (<|sep|>), the call's header writes its index after the
    # name, and a type attribute names each value's JSON type; its answer is framed in a
    # response tag, so its reasoning is not derived (derive's answer check)
    Renamed(
        "XML tags closed on a shared token, a type attribute (Kimi K3)",
        "llama.cpp/Kimi-K3.jinja",
        (("<|open|>", "<|tag|>"), ("<|close|>", "<|untag|>"), ("<|sep|>", "<|end_tag|>")),
        "xml_params",
        ("<|tag|>tools<|end_tag|>", '<|tag|>call tool="', "<|untag|>call<|end_tag|>"),
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
    # (a marker with a word after it, Gemma 4's ``<|channel>thought``, opens with both)
    opener = start + found.derived.reasoning.start_prefix
    assert turn.startswith(opener)
    parser = output_parser_for(found, tools=TOOLS, generation_prompt=f"assistant\n{opener}\n")
    items = testing.coalesce(testing.run(parser, testing.chunk_every(turn[len(opener) :], 3)))
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
    # Muse Glimmer's calls write the name twice (the message's recipient, then the invoke's
    # name): a grammar no engine reads
    text = (ROOT / "llama.cpp/muse-glimmer.jinja").read_text(encoding="utf-8")
    return text.replace("atem:", "acme:")


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
        (_beyond(), "refused", "beyond", "name twice"),
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


@pytest.mark.parametrize(
    ("file", "said"),
    [
        # Harmony renders only the first call of a turn (one call per message), and its
        # answer is a message of its own after the analysis message's <|end|>: markers
        # around the analysis would hand that message's header on as the answer's text
        ("llama.cpp/openai-gpt-oss-120b.jinja", "one call of two parallel ones"),
        # MiniMax-M3 names each parameter's element by its key (its closer too), with
        # nested elements for lists and objects
        ("llama.cpp/MiniMax-M3.jinja", "elements named by their key"),
        # Muse Glimmer writes each call as a message addressed to the tool (the name in its
        # header), the call in its body: the muse formats' framing, which no engine takes
        (
            "llama.cpp/muse-glimmer.jinja",
            "name twice (after '<|start|>assistant to=', then after '<atem:invoke name=\"')",
        ),
    ],
)
def test_a_recognised_template_beyond_the_configurable_engines_is_refused_with_fingerprints_off(
    file: str, said: str
) -> None:
    text = (ROOT / file).read_text(encoding="utf-8")
    found = detect_template(text, fingerprints=False)
    assert found.tool_syntax == "refused" and found.derived.refusal.kind == "beyond"
    assert said in found.derived.refusal.why
    if "gpt-oss" in file:
        assert found.derived.reasoning is None and found.reasoning is None


def test_a_string_flag_is_said_and_not_exported() -> None:
    case = next(c for c in RENAMED if "DeepSeek-V3.2" in c.family)
    derived = _found(case).derived
    assert derived.calls.type_flag == ('" raw="', "true", "false")
    assert "type flag: '\" raw=\"' then 'true' (a string, raw) or 'false'" in derived.describe()
    assert derived.response_template() is None


def test_a_type_attribute_types_each_value_as_the_model_wrote_it() -> None:
    # Kimi K3's ``type="number"``: with no schema, the written type decides; 'string' is
    # the raw text, whatever it looks like
    derived = _found(next(c for c in RENAMED if "Kimi K3" in c.family)).derived
    assert derived.calls.type_attr == ('" type="', '"<|end_tag|>')
    assert derived.calls.header == ("", '" index="{index}')
    said = derived.describe()
    assert "type attribute: '\" type=\"' TYPE '\"<|end_tag|>'" in said
    assert "header: NAME '\" index=\"{index}'" in said
    assert derived.response_template() is None

    def arg(key: str, kind: str, value: str) -> str:
        return f'<|tag|>argument key="{key}" type="{kind}"<|end_tag|>{value}<|untag|>argument<|end_tag|>'

    def call(header: str) -> str:
        body = arg("n", "number", "7") + arg("s", "string", "12") + arg("l", "array", "[1]")
        return f'<|tag|>tools<|end_tag|><|tag|>call tool="get" {header}<|end_tag|>{body}' + (
            "<|untag|>call<|end_tag|><|untag|>tools<|end_tag|>"
        )

    items = testing.check_chunkings(lambda: derived.tool_parser(), call('index="3"'))
    calls = [c for k, c in items if k == "call"]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [  # type: ignore[union-attr]
        ("get", {"n": 7, "s": "12", "l": [1]})
    ]
    assert not "".join(v for k, v in items if k == "text" and isinstance(v, str)).strip()
    # the index is the call's number: another header is not the derived one
    items = testing.coalesce(testing.run(derived.tool_parser(), [call('index="x"')]))
    assert not [c for k, c in items if k == "call"]


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


# -- call ids and indices ----------------------------------------------------------------------

_WEATHER = '{"city": "Paris"}'


@pytest.mark.parametrize(
    ("family", "output", "call_id"),
    [
        (
            "a header with the model's call id (Mistral Small 3.2)",
            f"[FN_CALLS]get_weather[FN_ID]abc123XYZ[FN_ARGS]{_WEATHER}",
            "abc123XYZ",
        ),
        (
            "the model's call id before the name (Solar Open)",
            "<|fns|><|fn:begin|>a1b2c3d4e5<|fn:name|>get_weather<|fn:args|>"
            f"{_WEATHER}<|fn:end|><|fns_end|>",
            "a1b2c3d4e5",
        ),
        (
            "a JSON list with the model's call ids (Mistral Nemo)",
            f'[FN_CALLS][{{"name": "get_weather", "id": "abc123XYZ", "arguments": {_WEATHER}}}]',
            "abc123XYZ",
        ),
        (
            # an id after the arguments comes too late: the call started with its own
            "a JSON list with the model's call ids (Mistral Nemo)",
            f'[FN_CALLS][{{"name": "get_weather", "arguments": {_WEATHER}, "id": "abc123XYZ"}}]',
            "call_0",
        ),
        (
            "a JSON list with call ids in action tokens (Cohere Command A)",
            '<|BEGIN_CALLS|>[{"tool_call_id": "7", "tool_name": "get_weather", '
            f'"parameters": {_WEATHER}}}]<|END_CALLS|>',
            "7",
        ),
        (
            "a header with the call's index (Kimi K2 Thinking)",
            "<|fn_section|><|fn_begin|>functions.get_weather:3<|fn_args|>"
            f"{_WEATHER}<|fn_end|><|fn_section_end|>",
            "call_0",
        ),
    ],
)
def test_a_derived_parser_takes_the_call_id_the_model_writes(
    family: str, output: str, call_id: str
) -> None:
    found = _found(next(c for c in RENAMED if c.family == family))

    def make() -> Any:
        return found.derived.tool_parser()

    items = testing.check_chunkings(make, output)
    calls = [c for k, c in items if k == "call"]
    assert [(c.name, c.id, json.loads(c.arguments)) for c in calls] == [  # type: ignore[union-attr]
        ("get_weather", call_id, {"city": "Paris"})
    ]
    assert not "".join(v for k, v in items if k == "text" and isinstance(v, str)).strip()


# a header with the model's id before the name and the call's number after it
_SLOTTED = """{%- for m in messages -%}
{%- if m.role == 'user' %}<|u|>{{ m.content }}<|eot|>
{%- elif m.role == 'assistant' %}<|a|>
{%- if m.tool_calls %}<|calls|>{% for c in m.tool_calls %}<|c|>{{ c.id }}<|n|>\
{{ c.function.name }}:{{ loop.index0 }}<|args|>{{ c.function.arguments | tojson }}<|e|>\
{% endfor %}<|calls_end|><|eot|>
{%- else %}{{ m.content }}<|eot|>{% endif %}
{%- elif m.role == 'tool' %}<|t|>{{ m.content }}<|eot|>{% endif %}
{%- endfor %}{% if add_generation_prompt %}<|a|>{% endif %}"""


def test_a_header_holds_an_id_before_the_name_and_an_index_after_it() -> None:
    derived = derive(_SLOTTED)
    calls = derived.calls
    assert calls is not None, derived.refusal
    assert (calls.block, calls.call) == (("<|calls|>", "<|calls_end|>"), ("<|c|>", "<|e|>"))
    assert (calls.header, calls.name_end) == (("{id}<|n|>", ":{index}"), "<|args|>")
    assert "header: '{id}<|n|>' NAME ':{index}'" in derived.describe()
    assert derived.response_template() is None  # the shapes hold no id in a header
    output = f"<|calls|><|c|>X9<|n|>get_weather:4<|args|>{_WEATHER}<|e|><|calls_end|>"
    items = testing.check_chunkings(lambda: derived.tool_parser(), output)
    got = [(c.id, c.name, c.arguments) for k, c in items if k == "call"]  # type: ignore[union-attr]
    assert got == [("X9", "get_weather", _WEATHER)]
    assert not [v for k, v in items if k == "text"]


def test_a_header_that_is_not_the_derived_one_is_text() -> None:
    # Kimi K2's header must be the name and its index: another header is not a call
    found = _found(next(c for c in RENAMED if "Kimi K2" in c.family))
    output = f"<|fn_section|><|fn_begin|>functions.get_weather:x<|fn_args|>{_WEATHER}<|fn_end|>"
    items = testing.coalesce(testing.run(found.derived.tool_parser(), [output]))
    assert not [c for k, c in items if k == "call"]


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
    assert len(derived) >= 81, len(derived)


@pytest.mark.parametrize(
    ("file", "reasoning"),
    [
        # thinking on by default, the model writing <think>; off pre-fills a closed block
        ("llama.cpp/Qwen-Qwen3-0.6B.jinja", "qwen3"),
        # no thinking switch; the model writes <think> itself
        ("llama.cpp/LFM2.5-8B-A1B.jinja", "deepseek_v3"),
        # a prompt that closes the block unless thinking is switched on: DeepSeek-V3.1's
        # evidence too, so deepseek_v3; only QwQ's model id says deepseek_r1
        ("llama.cpp/Qwen-QwQ-32B.jinja", "deepseek_v3"),
    ],
)
def test_a_template_that_writes_think_gets_a_reasoning_format_without_a_model_id(
    file: str, reasoning: str
) -> None:
    text = (ROOT / file).read_text(encoding="utf-8")
    found = detect_template(text)
    assert found.format is not None and found.reasoning == reasoning, found.why
    assert "generation prompt" in found.why
    assert detect(ROOT / file).reasoning == reasoning
    rendered = Probes(ChatTemplate.from_string(text)).reasoning()
    assert rendered is not None
    if REASONING not in rendered:  # (QwQ's template drops reasoning from the history)
        return
    u = rendered.find(USER)
    turn = rendered[rendered.find("<think>", u) :]
    items = testing.check_chunkings(lambda: output_parser_for(found, tools=TOOLS), turn)
    assert "".join(v for k, v in items if k == "reasoning").strip() == REASONING  # type: ignore[misc]
    calls = [c for k, c in items if k == "call"]
    assert [c.name for c in calls][:1] == [NAMES[0]]  # type: ignore[union-attr]
    assert json.loads(calls[0].arguments)["zq_str"] == ARGS["zq_str"]  # type: ignore[union-attr]


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
    "a JSON list with the model's call ids (Mistral Nemo)",
    "a JSON list with call ids in action tokens (Cohere Command A)",
    "a JSON list in a code fence after a word (Command R+)",
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
