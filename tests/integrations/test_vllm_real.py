"""The vLLM plugin inside real vLLM 0.33.0 and 0.34.0, compared with vLLM's own parsers.

Every test drives vLLM's ``OpenAIServingChat`` (``create_chat_completion``: its request
handling, ``adjust_request``, the chat template, the streaming generator and the
non-streaming path) with a scripted engine (``vllm_harness``), once with
``--tool-call-parser streamcall_<format>`` and once with vLLM's parser of that name, and
compares what a client receives. The tokenizer is a small byte-level BPE trained here with
the model family's markers as special tokens (none can be downloaded); see
``vllm_harness``. Outputs stream at 1 and at 4 tokens per delta.

What is compared: the stream folded as a client reads it (``fold``: the reasoning and
content runs, each call's name and arguments, the finish reason) and the non-streaming
message, and, chunk for chunk, the text that comes before the first call. Folding is what
lets In vLLM, items 1 and 2 through (where a call's pieces are cut, ``"content": null``).
Call ids are random on both sides, so they are checked for presence and uniqueness, not
compared. Every other difference the tests allow is one of the numbered
items of docs/formats.md, section "In vLLM" (cited as "In vLLM, item N"), or a per-format
row of that file's table.

Run them with ``scripts/test-vllm 0.33.0`` or ``scripts/test-vllm 0.34.0`` (each makes or
reuses a venv with that vLLM).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from support import function_tool

try:
    _VLLM = importlib.metadata.version("vllm")
except importlib.metadata.PackageNotFoundError:
    _VLLM = None
if _VLLM is None or not _VLLM.startswith(("0.33.", "0.34.")):
    pytest.skip(
        f"needs vLLM 0.33 or 0.34 (found {_VLLM or 'none'}): run scripts/test-vllm 0.33.0 "
        "(or 0.34.0), which makes a venv with that vLLM and runs these tests",
        allow_module_level=True,
    )
os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")  # the PyPI wheel does not say "cpu"

from vllm_harness import (
    PLUGIN_FILE,
    ScriptedEngine,
    chat,
    make_serving,
    make_tokenizer,
    model_config,
)

# vLLM's own serving code reads the request's deprecated max_tokens member
pytestmark = pytest.mark.filterwarnings("ignore:max_tokens is deprecated:DeprecationWarning")

WEATHER = {"city": {"type": "string"}, "days": {"type": "integer"}}
TOOLS = [
    function_tool("get_weather", WEATHER),
    function_tool("search", {"query": {"type": "string"}}),
]
LONG = 'a long query about the weather, with \\"quotes\\" and 東京 ' * 3
HERMES_CALLS = (
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "東京", "days": 3}}\n</tool_call>\n'
    f'<tool_call>\n{{"name": "search", "arguments": {{"query": "{LONG}"}}}}\n</tool_call>'
)
QWEN_CODER_CALL = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\n東京\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
)
GEMMA_CALL = '<|tool_call>call:get_weather{city:<|"|>東京<|"|>,days:3}<tool_call|>'
GLM_CALL = (
    "<tool_call>get_weather<arg_key>city</arg_key><arg_value>東京</arg_value>"
    "<arg_key>days</arg_key><arg_value>3</arg_value></tool_call>"
)
GLM_INTERLEAVED = (
    f"<think>First thought.</think>Let me check.<think>Second thought.</think>{GLM_CALL}"
)
GEMMA_TOKENS = (
    "<|tool_call>",
    "<tool_call|>",
    '<|"|>',
    "<|channel>",
    "<channel|>",
    "<|turn>",
    "<turn|>",
    "<|tool_response>",
    "<tool_response|>",
)
QWEN_TOKENS = ("<tool_call>", "</tool_call>", "<think>", "</think>")
THINK = "<think>\nThe user wants the weather in 東京.\n</think>\n\n"
GEMMA_THOUGHT = "<|channel>thought\nThe user wants the weather in 東京.<channel|>"

#: formats whose arguments are converted to JSON from another syntax (In vLLM, item 3)
CONVERTED = frozenset({"qwen3_coder", "gemma4", "glm47"})


@dataclass(frozen=True)
class Model:
    """A model family: the directory (model id) its tokenizer is saved under, its markers."""

    name: str
    specials: tuple[str, ...]


HERMES = Model("Hermes-3-Llama-3.1-8B", ("<tool_call>", "</tool_call>"))
QWEN3 = Model("Qwen3-8B", QWEN_TOKENS)
QWEN3_CODER = Model("Qwen3-Coder-30B-A3B-Instruct", QWEN_TOKENS)
GRANITE4 = Model("granite-4.0-h-small", ("<tool_call>", "</tool_call>"))
GEMMA4 = Model("gemma-4-31b-it", GEMMA_TOKENS)
GLM47 = Model(
    "GLM-4.7",
    (
        *("<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>"),
        *("<arg_value>", "</arg_value>", "<think>", "</think>"),
    ),
)
LLAMA3 = Model("Llama-3.1-8B-Instruct", ("<|python_tag|>", "<|eot_id|>", "<|eom_id|>"))


@dataclass(frozen=True)
class Case:
    """One scripted output, run with vLLM's ``fmt`` parser and with ``streamcall_<fmt>``."""

    id: str
    fmt: str
    model: Model
    text: str
    reasoning: str = ""
    chat_template_kwargs: dict[str, Any] = field(default_factory=dict)
    #: vLLM's own non-streaming result disagrees with its streaming one (In vLLM, item 4)
    vllm_paths_disagree: bool = False


CASES = [
    Case("hermes", "hermes", HERMES, f"Let me check both.\n{HERMES_CALLS}"),
    Case("hermes-qwen3-thinking", "hermes", QWEN3, THINK + HERMES_CALLS, reasoning="qwen3"),
    Case(
        "qwen3_coder",
        "qwen3_coder",
        QWEN3_CODER,
        f"Let me check.\n{QWEN_CODER_CALL}",
        vllm_paths_disagree=True,
    ),
    Case(
        "qwen3_coder-qwen3-thinking",
        "qwen3_coder",
        QWEN3,
        THINK + "Checking.\n" + QWEN_CODER_CALL,
        reasoning="qwen3",
        vllm_paths_disagree=True,
    ),
    Case(
        "granite4",
        "granite4",
        GRANITE4,
        'Let me check.<tool_call>{"name": "get_weather", "arguments": {"city": "東京", '
        '"days": 3}}</tool_call>',
    ),
    Case("gemma4", "gemma4", GEMMA4, f"Let me check.{GEMMA_CALL}"),
    # Gemma 4 thinks although the prompt left reasoning closed: read in the tool phase
    # (In vLLM, item 7)
    Case(
        "gemma4-thought-in-tool-phase",
        "gemma4",
        GEMMA4,
        f"{GEMMA_THOUGHT}Let me check.{GEMMA_CALL}",
        reasoning="gemma4",
    ),
    # ... and with thinking on, where vLLM's reasoning parser reads the thought first
    Case(
        "gemma4-thinking-on",
        "gemma4",
        GEMMA4,
        f"{GEMMA_THOUGHT}Let me check.{GEMMA_CALL}",
        reasoning="gemma4",
        chat_template_kwargs={"enable_thinking": True},
    ),
    # GLM's interleaved thinking: a second block in the tool phase (In vLLM, item 7), read
    # while the request's thinking switch is not off
    Case("glm47-interleaved", "glm47", GLM47, GLM_INTERLEAVED, reasoning="glm45"),
    Case(
        "glm47-interleaved-thinking-on",
        "glm47",
        GLM47,
        GLM_INTERLEAVED,
        reasoning="glm45",
        chat_template_kwargs={"thinking": True},
    ),
    Case(
        "llama3_json",
        "llama3_json",
        LLAMA3,
        '{"name": "get_weather", "parameters": {"city": "東京", "days": 3}}',
    ),
]


# --- what a client reads ------------------------------------------------------------------


def fold(chunks: list[dict[str, Any]]) -> list[list[Any]]:
    """The stream as a client accumulates it, in order: ``["reasoning", text]``,
    ``["content", text]``, ``["call", index, name, arguments]``, ``["finish", reason]``.
    Also checks what every chunk must carry, and that call ids are present and unique."""
    items: list[list[Any]] = []
    ids: list[str] = []
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    for chunk in chunks[1:]:
        assert chunk["object"] == "chat.completion.chunk"
        (choice,) = chunk["choices"]
        delta = choice["delta"]
        for kind in ("reasoning", "content"):
            if delta.get(kind):
                if items and items[-1][0] == kind:
                    items[-1][1] += delta[kind]
                else:
                    items.append([kind, delta[kind]])
        for call in delta.get("tool_calls") or []:
            function = call["function"]
            if call.get("id"):
                ids.append(call["id"])
                assert call["type"] == "function" and function["name"]
                items.append(["call", call["index"], function["name"], ""])
            else:
                assert "name" not in function
            (open_call,) = [i for i in items if i[0] == "call" and i[1] == call["index"]]
            open_call[3] += function.get("arguments") or ""
        if choice["finish_reason"] is not None:
            items.append(["finish", choice["finish_reason"]])
    assert len(set(ids)) == len(ids), ids
    return items


def message(body: dict[str, Any]) -> list[list[Any]]:
    """The non-streaming response in ``fold``'s terms."""
    (choice,) = body["choices"]
    msg = choice["message"]
    items: list[list[Any]] = []
    if msg.get("reasoning"):
        items.append(["reasoning", msg["reasoning"]])
    if msg.get("content"):
        items.append(["content", msg["content"]])
    calls = msg.get("tool_calls") or []
    assert len({c["id"] for c in calls}) == len(calls)
    for i, call in enumerate(calls):
        items.append(["call", i, call["function"]["name"], call["function"]["arguments"]])
    items.append(["finish", choice["finish_reason"]])
    return items


def joined(items: list[list[Any]]) -> list[list[Any]]:
    """The stream as the non-streaming message would carry it: the reasoning runs and the
    content runs each joined, in front of the calls, and whitespace-only content dropped when there are calls (vLLM's
    serving layer does that to the non-streaming message, whatever the parser)."""
    reasoning = "".join(i[1] for i in items if i[0] == "reasoning")
    content = "".join(i[1] for i in items if i[0] == "content")
    rest = [i for i in items if i[0] not in ("reasoning", "content")]
    if not content.strip() and any(i[0] == "call" for i in rest):
        content = ""
    return [
        *([["reasoning", reasoning]] if reasoning else []),
        *([["content", content]] if content else []),
        *rest,
    ]


def as_vllm_writes(fmt: str, items: list[list[Any]]) -> list[list[Any]]:
    """Our arguments with vLLM's ``json.dumps`` spacing where we write compact JSON (In
    vLLM, item 3), after checking that ours are the compact form of the same object."""
    if fmt not in CONVERTED:
        return items
    out = []
    for item in items:
        if item[0] == "call":
            value = json.loads(item[3])
            assert item[3] == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            item = [*item[:3], json.dumps(value, ensure_ascii=False)]
        out.append(item)
    return out


# --- fixtures -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def engines(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, ScriptedEngine]]:
    """One scripted engine per model family, its tokenizer trained on every scripted text."""
    corpus = [c.text for c in CASES] + ["The marker is <tool", "Hello! How can I help?"]
    root = tmp_path_factory.mktemp("models")
    out = {}
    for model in (HERMES, QWEN3, QWEN3_CODER, GRANITE4, GEMMA4, GLM47, LLAMA3):
        directory = make_tokenizer(root / model.name, model.specials, corpus * 4)
        out[model.name] = ScriptedEngine(model_config(directory))
    yield out


#: the SSE chunks of the last streamed ``run``
LAST_CHUNKS: list[dict[str, Any]] = []


def text_chunks(chunks: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The reasoning and content deltas, one per chunk, up to the first tool-call delta:
    how promptly text reaches the client."""
    out = []
    for chunk in chunks[1:]:
        delta = chunk["choices"][0]["delta"]
        if delta.get("tool_calls"):
            break
        out.extend((k, delta[k]) for k in ("reasoning", "content") if delta.get(k))
    return out


def whitespace_held(chunks: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The chunks as they would be if each whitespace-only content delta were held until
    the next content delta: vLLM's parsers hold whitespace that may precede a call; ours
    send it at once, since whitespace before the first call is text, not markup (README,
    "Malformed output and the end of the stream")."""
    out: list[tuple[str, str]] = []
    held = ""
    for kind, text in chunks:
        if kind == "content" and not text.strip():
            held += text
            continue
        if kind == "content":
            text, held = held + text, ""
        out.append((kind, text))
    if held:
        out.append(("content", held))
    return out


def run(
    engine: ScriptedEngine,
    parser: str,
    text: str,
    *,
    reasoning: str = "",
    n: int = 1,
    max_tokens: int | None = None,
    **body: Any,
) -> tuple[list[list[Any]], list[list[Any]]]:
    """The scripted ``text`` through vLLM with ``parser``: (streamed fold, message)."""
    engine.text, engine.tokens_per_delta, engine.max_tokens = text, n, max_tokens
    serving = make_serving(engine, tool_parser=parser, reasoning_parser=reasoning)
    request = {
        "model": engine.mock.model_config.model,
        "messages": [{"role": "user", "content": "What is the weather in Tokyo?"}],
        "tools": TOOLS,
        **body,
    }
    chunks = chat(serving, {**request, "stream": True})
    LAST_CHUNKS[:] = chunks
    streamed = fold(chunks)
    if parser.startswith("streamcall"):  # the markers' special tokens stay in the text
        assert engine.sampling_params.skip_special_tokens is (body.get("tool_choice") == "none")
    return streamed, message(chat(serving, {**request, "stream": False}))


# --- the plugin as vLLM loads it ----------------------------------------------------------

_STARTUP = """
import sys
from vllm.utils.argparse_utils import FlexibleArgumentParser
from vllm.entrypoints.common.cli_args import (
    init_parser_plugin, make_arg_parser, validate_api_server_args)
from vllm.parser import ParserManager
from vllm.tokenizers import get_tokenizer
from vllm.tool_parsers import ToolParserManager

model, plugin = sys.argv[1:3]
for name in ("streamcall_hermes", "streamcall"):
    args = make_arg_parser(FlexibleArgumentParser()).parse_args(
        ["--model", model, "--enable-auto-tool-choice",
         "--tool-parser-plugin", plugin, "--tool-call-parser", name])
    init_parser_plugin(args)       # what `vllm serve` runs first ...
    validate_api_server_args(args) # ... then this, before the engine starts
tokenizer = get_tokenizer(model)
names = [n for n in ToolParserManager.list_registered() if n.startswith("streamcall")]
refused = []
for name in names:  # as OpenAIServingChat does at startup: compose, build with the tokenizer
    try:
        ParserManager.get_parser(tool_parser_name=name, enable_auto_tools=True,
                                 model_name=model, tokenizer=tokenizer)
    except Exception as exc:  # the template readers, on a tokenizer without a template
        if "response template" not in str(exc):
            raise
        refused.append(name)
print(" ".join(sorted(names)))
print(" ".join(sorted(refused)))
"""


def test_every_vllm_parser_name_is_a_streamcall_format() -> None:
    """Issue 16's and 38's bar, against vLLM itself (0.33 and 0.34): every tool-call parser
    name the installed vLLM registers is a streamcall format, and every reasoning parser
    name a streamcall reasoning format, but ``hf``, the name of the response-template
    reading itself (``beam`` is that reading under Beam's name, built with the template)."""
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    import streamcall
    from streamcall.reasoning import reasoning_formats

    def theirs(manager: Any) -> set[str]:
        return {n for n in manager.list_registered() if not n.startswith("streamcall")}

    tools = theirs(ToolParserManager)
    assert len(tools) > 50, sorted(tools)
    from streamcall.formats.hf import TEMPLATE_FORMATS

    # beam reads a checkpoint's response template as hf does (formats/hf.py): a streamcall
    # format name, built with the template (tool_parser("beam", template=...))
    assert tools - {"hf"} - set(streamcall.formats()) - set(TEMPLATE_FORMATS) == set()
    reasoning = theirs(ReasoningParserManager)
    assert len(reasoning) > 30, sorted(reasoning)
    assert reasoning - {"hf"} - set(reasoning_formats()) - set(TEMPLATE_FORMATS) == set()


def test_every_name_loads_through_vllm_startup(engines: dict[str, ScriptedEngine]) -> None:
    """A fresh interpreter: vLLM's own ``vllm serve`` argument parser, plugin import and
    validation, then every ``streamcall*`` name composed and built against the tokenizer
    the way ``OpenAIServingChat`` checks parsers at startup."""
    import streamcall
    from streamcall.formats.hf import TEMPLATE_FORMATS

    model = engines[HERMES.name].mock.model_config.model
    done = subprocess.run(
        [sys.executable, "-c", _STARTUP, model, PLUGIN_FILE],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "VLLM_TARGET_DEVICE": "cpu", "HF_HUB_OFFLINE": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    names, refused = (line.split() for line in done.stdout.splitlines()[-2:])
    formats = [*streamcall.formats(), *TEMPLATE_FORMATS]
    assert names == sorted(["streamcall", *(f"streamcall_{f}" for f in formats)])
    # this tokenizer has no response template: the two names that need one stop at startup
    assert refused == sorted(f"streamcall_{f}" for f in TEMPLATE_FORMATS)


# --- the same as vLLM's parser, on the wire -----------------------------------------------


@pytest.mark.parametrize("n", [1, 4], ids=["1-token", "4-tokens"])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_same_on_the_wire_as_vllms_parser(
    engines: dict[str, ScriptedEngine], case: Case, n: int
) -> None:
    engine = engines[case.model.name]
    kwargs: dict[str, Any] = {"reasoning": case.reasoning, "n": n}
    if case.chat_template_kwargs:
        kwargs["chat_template_kwargs"] = case.chat_template_kwargs
    ours, ours_full = run(engine, f"streamcall_{case.fmt}", case.text, **kwargs)
    ours_text = text_chunks(LAST_CHUNKS)
    theirs, theirs_full = run(engine, case.fmt, case.text, **kwargs)
    assert any(i[0] == "call" for i in theirs), theirs  # the case exercises calls
    assert as_vllm_writes(case.fmt, ours) == theirs
    # the text before the first call reaches the client in the same chunks (whitespace
    # before a possible call sooner: see whitespace_held)
    assert whitespace_held(ours_text) == whitespace_held(text_chunks(LAST_CHUNKS))
    # ours: the non-streaming message is the stream, joined
    assert ours_full == joined(ours)
    if case.vllm_paths_disagree:
        assert theirs_full != joined(theirs)  # vLLM's own two paths (In vLLM, item 4)
    else:
        assert as_vllm_writes(case.fmt, ours_full) == theirs_full


def test_arguments_stream_while_written(engines: dict[str, ScriptedEngine]) -> None:
    """A long argument arrives in many chunks, not at the end (In vLLM, item 1, is only
    about where the pieces are cut)."""
    engine = engines[HERMES.name]
    engine.text, engine.tokens_per_delta, engine.max_tokens = HERMES_CALLS, 1, None
    serving = make_serving(engine, tool_parser="streamcall_hermes")
    chunks = chat(
        serving,
        {
            "model": engine.mock.model_config.model,
            "messages": [{"role": "user", "content": "hi"}],
            "tools": TOOLS,
            "stream": True,
        },
    )
    pieces = [
        tc["function"]["arguments"]
        for c in chunks[1:]
        for tc in c["choices"][0]["delta"].get("tool_calls") or []
        if tc["index"] == 1 and tc["function"].get("arguments")
    ]
    assert len(pieces) > 10 and json.loads("".join(pieces)) == {"query": LONG.replace("\\", "")}


# --- the deliberate differences -----------------------------------------------------------


def test_text_after_the_calls_is_kept(engines: dict[str, ScriptedEngine]) -> None:
    """The ``hermes`` row of docs/formats.md: streamcall keeps text between and after
    calls; vLLM's hermes drops it, in both paths."""
    text = f"Checking.\n{HERMES_CALLS}\nDone."
    engine = engines[HERMES.name]
    ours, ours_full = run(engine, "streamcall_hermes", text)
    theirs, theirs_full = run(engine, "hermes", text)
    assert ours[-2:] == [["content", "\nDone."], ["finish", "tool_calls"]]
    assert ours[:-2] == theirs[:-1] and theirs_full == joined(theirs)
    assert ours_full == joined(ours)


@pytest.mark.parametrize("n", [1, 4], ids=["1-token", "4-tokens"])
def test_held_back_text_is_flushed_at_the_end(engines: dict[str, ScriptedEngine], n: int) -> None:
    """In vLLM, item 5: ``finish_streaming`` releases a possible marker that never came."""
    text = "The marker is <tool"
    engine = engines[HERMES.name]
    ours, ours_full = run(engine, "streamcall_hermes", text, n=n)
    theirs, theirs_full = run(engine, "hermes", text, n=n)
    assert ours == ours_full == theirs_full == [["content", text], ["finish", "stop"]]
    assert theirs == [["content", "The marker is "], ["finish", "stop"]]


@pytest.mark.parametrize("n", [1, 4], ids=["1-token", "4-tokens"])
def test_a_call_cut_by_max_tokens_is_reported_closed(
    engines: dict[str, ScriptedEngine], n: int
) -> None:
    """In vLLM, item 5: the cut call comes out in both paths, its arguments closed."""
    engine = engines[HERMES.name]
    text = f"Checking.\n{HERMES_CALLS}"
    engine.text = text
    cut = len(engine.output_token_ids()) - 20  # inside the second call's long query
    ours, ours_full = run(engine, "streamcall_hermes", text, n=n, max_tokens=cut)
    theirs, theirs_full = run(engine, "hermes", text, n=n, max_tokens=cut)
    assert ours_full == joined(ours)
    assert [i[0] for i in ours] == ["content", "call", "call", "finish"]
    assert ours[-1] == ["finish", "length"]
    query = json.loads(ours[2][3])["query"]
    assert query and LONG.replace("\\", "").startswith(query)
    # vLLM streams the second call's arguments as far as they got ...
    assert theirs[:2] == ours[:2] and theirs[2][3] != ours[2][3]
    with pytest.raises(json.JSONDecodeError):
        json.loads(theirs[2][3])
    # ... and its non-streaming result has no call at all: the markup is the content
    assert theirs_full == [
        ["content", engine.tokenizer.decode(engine.output_token_ids()[:cut])],
        ["finish", "length"],
    ]


@pytest.mark.parametrize("fmt, model, text", [
    ("hermes", HERMES, f"Checking.\n{HERMES_CALLS}\nDone."),
    ("qwen3_coder", QWEN3_CODER, f"Checking.\n{QWEN_CODER_CALL}\nDone."),
])  # fmt: skip
def test_tool_choice_none_passes_the_text_through(
    engines: dict[str, ScriptedEngine], fmt: str, model: Model, text: str
) -> None:
    """In vLLM, item 6. vLLM leaves the markers' special tokens out (``skip_special_tokens``
    stays on when no tool is to be called); the rest of the text is the content."""
    engine = engines[model.name]
    ours, ours_full = run(engine, f"streamcall_{fmt}", text, tool_choice="none")
    theirs, theirs_full = run(engine, fmt, text, tool_choice="none")
    shown = engine.tokenizer.decode(engine.output_token_ids(), skip_special_tokens=True)
    assert ours == ours_full == [["content", shown], ["finish", "stop"]]
    if fmt == "hermes":
        assert theirs == theirs_full == ours
    else:  # vLLM's engine parser drops the markup and everything after it
        assert theirs == [["content", "Checking.\n\n"], ["finish", "stop"]]


def test_a_repeated_think_end_in_the_tool_phase_is_text(
    engines: dict[str, ScriptedEngine],
) -> None:
    """In vLLM, item 7: vLLM's Qwen3 engine parser drops a second ``</think>`` while
    streaming; streamcall's keeps it. Without streaming, vLLM's reasoning parser has
    dropped it from the whole output before the tool parser sees the content."""
    engine = engines[QWEN3.name]
    text = THINK + "Answer.</think> More."
    ours, ours_full = run(engine, "streamcall_qwen3_coder", text, reasoning="qwen3")
    theirs, theirs_full = run(engine, "qwen3_coder", text, reasoning="qwen3")
    assert ours[1] == ["content", "\n\nAnswer.</think> More."]
    assert theirs[1] == ["content", "\n\nAnswer. More."]
    assert ours_full == theirs_full == theirs


def test_special_tokens_the_format_does_not_use_stay_in_the_text(
    engines: dict[str, ScriptedEngine],
) -> None:
    """In vLLM, items 7 and 8: with GLM's thinking switched off, neither parser reads
    ``<think>`` as reasoning; vLLM's engine reads markers by token id and lets the
    detokenizer drop every special token, streamcall reads them as text and keeps what
    is not its format's."""
    engine = engines[GLM47.name]
    switch = {"chat_template_kwargs": {"enable_thinking": False}}
    ours, ours_full = run(engine, "streamcall_glm47", GLM_INTERLEAVED, reasoning="glm45", **switch)
    theirs, theirs_full = run(engine, "glm47", GLM_INTERLEAVED, reasoning="glm45", **switch)
    before = GLM_INTERLEAVED[: GLM_INTERLEAVED.index("<tool_call>")]
    assert ours[0] == ["content", before]
    assert theirs[0] == ["content", "First thought.Let me check.Second thought."]
    assert as_vllm_writes("glm47", ours[1:]) == theirs[1:]
    assert ours_full == joined(ours) and theirs_full == joined(theirs)


# --- the request's thinking switches ------------------------------------------------------


@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder"])
@pytest.mark.parametrize(
    "where", ["request", "server default"], ids=["per-request", "default-chat-template-kwargs"]
)
@pytest.mark.parametrize("thinking", [True, False], ids=["thinking-on", "thinking-off"])
def test_thinking_switch_decides_reasoning_as_in_vllm(
    engines: dict[str, ScriptedEngine], fmt: str, where: str, thinking: bool
) -> None:
    """vLLM's qwen3 reasoning parser reads ``enable_thinking`` (from the request, or the
    server's ``--default-chat-template-kwargs``) and the tool parser sees what it leaves:
    a plain answer is content with thinking off and reasoning with it on, for streamcall's
    parsers exactly as for vLLM's."""
    engine = engines[QWEN3.name]
    text = "Hello! How can I help?"
    switch = {"enable_thinking": thinking}
    results = []
    for parser in (f"streamcall_{fmt}", fmt):
        engine.text, engine.tokens_per_delta, engine.max_tokens = text, 1, None
        if where == "request":
            serving = make_serving(engine, tool_parser=parser, reasoning_parser="qwen3")
            extra: dict[str, Any] = {"chat_template_kwargs": switch}
        else:
            serving = make_serving(
                engine,
                tool_parser=parser,
                reasoning_parser="qwen3",
                default_chat_template_kwargs=switch,
            )
            extra = {}
        request = {
            "model": engine.mock.model_config.model,
            "messages": [{"role": "user", "content": "hi"}],
            "tools": TOOLS,
            **extra,
        }
        streamed = fold(chat(serving, {**request, "stream": True}))
        # the switch reached the chat template: an empty think block closes the prompt
        prompt = engine.tokenizer.decode(engine.prompt_token_ids)
        assert prompt.endswith("<think>\n\n</think>\n\n") is not thinking
        results.append((streamed, message(chat(serving, {**request, "stream": False}))))
    kind = "reasoning" if thinking else "content"
    expected = [[kind, text], ["finish", "stop"]]
    assert results[0] == results[1] == (expected, expected)


# --- the routing name ---------------------------------------------------------------------


def test_routing_name_follows_the_checkpoint_not_the_served_alias(
    engines: dict[str, ScriptedEngine],
) -> None:
    """``streamcall`` routes from the tokenizer (the checkpoint vLLM loaded), so a served
    alias that routes nowhere changes nothing."""
    engine = engines[GEMMA4.name]
    text = f"Let me check.{GEMMA_CALL}"
    for n in (1, 4):
        engine.text, engine.tokens_per_delta, engine.max_tokens = text, n, None
        outs = []
        for parser in ("streamcall", "streamcall_gemma4"):
            serving = make_serving(engine, tool_parser=parser, served_name="my-assistant")
            request = {
                "model": "my-assistant",
                "messages": [{"role": "user", "content": "hi"}],
                "tools": TOOLS,
            }
            outs.append(
                (
                    fold(chat(serving, {**request, "stream": True})),
                    message(chat(serving, {**request, "stream": False})),
                )
            )
        assert outs[0] == outs[1]
        assert outs[0][0][1][2] == "get_weather"


def test_routing_name_that_routes_nowhere_stops_the_server_at_startup(
    tmp_path: Path,
) -> None:
    """A local path that names no known model: vLLM's startup check (building the parser
    with the tokenizer) fails, naming the flag and the ``streamcall_<format>`` fix; no
    request is ever served with a parser that cannot parse."""
    directory = make_tokenizer(tmp_path / "my-finetune-v2", HERMES.specials, [HERMES_CALLS])
    engine = ScriptedEngine(model_config(directory))
    with pytest.raises(TypeError) as info:
        make_serving(engine, tool_parser="streamcall")
    message_ = str(info.value)
    assert "--tool-call-parser streamcall cannot be used" in message_
    assert "my-finetune-v2" in message_
    assert "--tool-call-parser streamcall_<format>" in message_ and "hermes" in message_


def _with_response_template(directory: Path, template: Any) -> Path:
    config = directory / "tokenizer_config.json"
    values = json.loads(config.read_text())
    values["response_template"] = template
    config.write_text(json.dumps(values))
    return directory


def test_routing_name_with_a_broken_response_template_stops_the_server_at_startup(
    tmp_path: Path,
) -> None:
    """The tokenizer's response template is what ``streamcall`` reads first: an invalid one
    stops the server when vLLM builds the parser, naming the problem."""
    directory = _with_response_template(
        make_tokenizer(tmp_path / "Hermes-3-Llama-3.1-8B", HERMES.specials, [HERMES_CALLS]),
        {"fields": {}},
    )
    engine = ScriptedEngine(model_config(directory))
    with pytest.raises(TypeError) as info:
        make_serving(engine, tool_parser="streamcall")
    assert "response_template is not valid" in str(info.value)


@pytest.mark.skipif(
    not hasattr(__import__("streamcall"), "response_parser"),
    reason="needs the hf format (streamcall.response_parser, issue 17's stream part)",
)
@pytest.mark.parametrize("n", [1, 4])
def test_routing_name_reads_the_tokenizers_response_template(tmp_path: Path, n: int) -> None:
    """A checkpoint whose name routes nowhere but whose tokenizer has a response template:
    ``streamcall`` parses with the hf format built from it, as ``streamcall_hermes`` parses
    the same Hermes output."""
    from streamcall.response_templates import response_template_for

    directory = _with_response_template(
        make_tokenizer(tmp_path / "my-finetune-v2", HERMES.specials, [HERMES_CALLS]),
        response_template_for("hermes"),
    )
    engine = ScriptedEngine(model_config(directory))
    text = f"Let me check.\n{HERMES_CALLS}"
    engine.text, engine.tokens_per_delta, engine.max_tokens = text, n, None
    outs = []
    for parser in ("streamcall", "streamcall_hermes"):
        serving = make_serving(engine, tool_parser=parser)
        request = {
            "model": engine.mock.model_config.model,
            "messages": [{"role": "user", "content": "hi"}],
            "tools": TOOLS,
        }
        outs.append(
            (
                fold(chat(serving, {**request, "stream": True})),
                message(chat(serving, {**request, "stream": False})),
            )
        )

    def calls(items: list[list[Any]]) -> list[tuple[str, Any]]:
        return [(c[2], json.loads(c[3])) for c in items if c[0] == "call"]

    for hf, hermes in ((outs[0][0], outs[1][0]), (outs[0][1], outs[1][1])):  # streamed, message
        assert calls(hf) == calls(hermes) and len(calls(hf)) == 2
        assert [c[1].strip() for c in hf if c[0] == "content"] == ["Let me check."]


@pytest.mark.parametrize("n", [1, 4])
@pytest.mark.parametrize("name", ["hf", "beam"])
def test_template_names_read_the_tokenizers_response_template_as_vllm_does(
    tmp_path: Path, name: str, n: int
) -> None:
    """``streamcall_hf`` and ``streamcall_beam`` on a checkpoint with a response template
    give the client what vLLM's ``hf`` and ``beam`` give on the same output: the text
    before the calls and the calls (Beam's request grammar is a sampling constraint,
    which the scripted engine does not apply; the parsing is what is compared)."""
    from streamcall.response_templates import response_template_for

    template = response_template_for("hermes")
    # vLLM's serving refuses a content field with a join (it streams content as it comes)
    del template["fields"]["content"]["join"]
    directory = _with_response_template(
        make_tokenizer(tmp_path / "beam-checkpoint", HERMES.specials, [HERMES_CALLS]), template
    )
    engine = ScriptedEngine(model_config(directory))
    engine.text, engine.tokens_per_delta, engine.max_tokens = (
        f"Let me check.\n{HERMES_CALLS}",
        n,
        None,
    )
    request = {
        "model": engine.mock.model_config.model,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": TOOLS,
    }
    outs = []
    for parser in (f"streamcall_{name}", name):
        serving = make_serving(engine, tool_parser=parser)
        outs.append(
            (
                fold(chat(serving, {**request, "stream": True})),
                message(chat(serving, {**request, "stream": False})),
            )
        )

    def calls(items: list[list[Any]]) -> list[tuple[str, Any]]:
        return [(c[2], json.loads(c[3])) for c in items if c[0] == "call"]

    def content(items: list[list[Any]]) -> str:
        return "".join(c[1] for c in items if c[0] == "content").strip()

    for ours, theirs in zip(outs[0], outs[1], strict=True):  # streamed, then the message
        assert calls(ours) == calls(theirs) and len(calls(ours)) == 2
        assert content(ours) == content(theirs) == "Let me check."
