"""Which formats a checkpoint writes, read off the checkpoint: ``detect(source)``.

``source`` is a model directory, a ``tokenizer_config.json`` (read as its directory), any
other JSON file holding a ``chat_template`` or ``response_template``, a chat template file
(``.jinja``, read as text), or a chat template's text. The answer, a ``Detected``, names
the tool-call format and the reasoning format to parse the model's output with, and says
what evidence decided them. The order:

1. A response template (``response_template`` in ``tokenizer_config.json``) decides both:
   the format is ``hf``, and the reasoning is ``hf`` when the template has a thinking field
   (``reasoning_content`` or ``thinking``), else None.
2. Else the chat template's fingerprints. ``TOOL_FINGERPRINTS`` and
   ``REASONING_FINGERPRINTS`` are ordered tables, most specific first: the first rule
   whose markers all occur in the template wins. A marker is what the template writes when
   it renders an assistant turn with tool calls or reasoning (``<tool_call>`` with
   ``"arguments":``, ``<function=`` with ``<parameter=``, ``[TOOL_CALLS]``, ...), or in the
   instructions it gives the model about that syntax. A few formats write the same syntax
   in different families (Llama 3 and Llama 4 JSON, Granite 4 and Hermes); their rules add
   a token of the family's own template (``<|start_of_role|>``, ``<|header_start|>``). A
   rule with no format is a syntax that no streamcall format reads (IQuest-Coder's tags):
   it decides too, so that no base family's name is
   routed to a parser for a syntax the checkpoint does not write.

   Formats of one syntax (``SAME_SYNTAX``: ``glm45``/``glm47``/``poolside_v1``,
   ``qwen3_coder``/``step3p5``, ...) cannot be told apart by what the template writes;
   when the model id routes to another member of the rule's group, that name is taken.

   Generic think tags (``<think>``) belong to many reasoning formats that differ in their
   defaults: the model id picks one when it routes to a think-tag format; else the family
   the tool syntax names (``THINK_FAMILIES``); else None, said in ``why``.
3. Else (no tool syntax in the template, or no template) the model id, through
   ``format_for_model`` and ``reasoning_format_for_model``. The model id is
   ``name_or_path`` in ``tokenizer_config.json``, else ``_name_or_path`` in
   ``config.json``, else the directory's name (a Hugging Face cache snapshot,
   ``models--org--name/snapshots/<hash>``, gives ``org/name``). A template given as a file
   or as text has no model id.

What to parse with, once detected (``output_parser_for``, ``stream_parser_for``): the
formats found, through ``output_parser``; with a response template, the ``hf`` format
built from it (``tool_parser("hf", template=...)``), which reads the whole response
(content, thinking, calls), so no separate reasoning stage runs; and where no tool-call
format was found, ``auto`` (the format sniffed from the text), unless the caller says
otherwise. The command line (``--model-dir``), the proxy (``serve --model-dir``) and the
vLLM plugin use them.

Templates are read as text and never rendered. The escapes of Jinja string literals
(``\\"``, ``\\'``, ``\\n``) are undone first, so that a marker written inside a quoted
literal reads as the model would write it. Markers that templates build at render time
are matched by their stems (``｜DSML｜`` with ``tool_calls>``; ``<tool_sep`` for Tencent HY,
whose tokens carry a per-checkpoint suffix). Each distinct marker is searched once with
``in``: the work is the number of markers (a constant) times the template's length.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamcall.formats.registry import format_for_model, tool_parser
from streamcall.reasoning import reasoning_format_for_model
from streamcall.reasoning.specs import SPECS

if TYPE_CHECKING:
    from streamcall.formats.engines.base import ToolParser, Tools
    from streamcall.output import OutputParser
    from streamcall.stream import StreamParser

__all__ = [
    "REASONING_FINGERPRINTS",
    "SAME_SYNTAX",
    "THINK_FAMILIES",
    "TOOL_FINGERPRINTS",
    "Detected",
    "Fingerprint",
    "detect",
    "detect_response_template",
    "detect_template",
    "hf_tool_parser",
    "output_parser_for",
    "stream_parser_for",
]


@dataclass(frozen=True, slots=True)
class Detected:
    """What ``detect`` found: the formats to parse a checkpoint's output with, and why."""

    #: the tool-call format (a name from ``streamcall.formats()``, or ``hf``), or None
    format: str | None
    #: the reasoning format (a name from ``streamcall.reasoning_formats()``, or ``hf``)
    reasoning: str | None
    #: the checkpoint's ``response_template``, when it has one (then ``format`` is ``hf``)
    template: dict[str, Any] | None
    #: the evidence that decided, in words
    why: str


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """One rule: when every marker occurs in a chat template, it writes ``format``."""

    #: the format, or None for a syntax that no streamcall format reads
    format: str | None
    #: literal substrings of the template text (after its string escapes are undone)
    markers: tuple[str, ...]
    #: the evidence in words, for ``Detected.why``
    says: str


def _fp(format: str | None, says: str, *markers: str) -> Fingerprint:
    return Fingerprint(format, markers, says)


# Most specific first: a rule whose markers are all among a later rule's would shadow it
# (``tests/test_detect.py`` checks that none does). Each rule's markers are its format's
# syntax as the format's parser reads it, and, for a syntax that several families write,
# a token of the family's own template.
TOOL_FINGERPRINTS: tuple[Fingerprint, ...] = (
    # -- DeepSeek DSML: the templates build every tag from a ``｜DSML｜`` token -------------
    _fp("deepseek_v41", "DSML tags with a space (<｜DSML｜ calls>)", "｜DSML｜ ", "calls>"),
    _fp("deepseek_v4", "DSML tags with a tool_calls block", "｜DSML｜", "tool_calls>"),
    _fp("deepseek_v32", "DSML tags with a function_calls block", "｜DSML｜", "function_calls>"),
    _fp("gigachat35", "GCML tags (<｜GCML｜tool_calls>)", "｜GCML｜"),
    # -- markers of one family each ------------------------------------------------------
    _fp("minimax_m3", "MiniMax-M3's namespaced tags (]<]minimax[>[)", "]<]minimax[>["),
    _fp("minimax_m2", "<minimax:tool_call> with <invoke name=", "<minimax:tool_call>"),
    _fp("seed_oss", "<seed:tool_call>", "<seed:tool_call>"),
    _fp("zaya", "<zyphra_tool_call>", "<zyphra_tool_call>"),
    _fp("dots", "<dots_function_call>", "<dots_function_call>"),
    _fp("kimi_k3", "<|open|>…<|close|> tags (Kimi K3's XTML)", "<|open|>", "<|close|>"),
    _fp("kimi_k2", "<|tool_calls_section_begin|>", "<|tool_calls_section_begin|>"),
    _fp("kimi_k2", "<|tool_call_section_begin|>", "<|tool_call_section_begin|>"),
    _fp("gemma4", "<|tool_call>call:NAME{...}<tool_call|>", "<|tool_call>"),
    _fp("functiongemma", "<start_function_call>", "<start_function_call>"),
    _fp("openai", "Harmony channels with <|call|>", "<|channel|>", "<|call|>"),
    _fp("cohere_command3", "<|START_ACTION|>", "<|START_ACTION|>"),
    _fp("internlm", "<|action_start|><|plugin|>", "<|action_start|>", "<|plugin|>"),
    _fp("apertus", "<|tools_prefix|>", "<|tools_prefix|>"),
    _fp("lfm2", "<|tool_call_start|>", "<|tool_call_start|>"),
    _fp("longcat", "<longcat_tool_call>", "<longcat_tool_call>"),
    _fp("step3", "<steptml:invoke", "<steptml:invoke"),
    _fp("k2_horizon", "K2 Horizon's <ifm|tool_call>", "<ifm|tool_call>"),
    _fp("iquest_q1", "<iquest_tool_call>", "<iquest_tool_call>"),
    _fp(
        "deepseek_v3",
        "<｜tool▁calls▁begin｜> with a ```json body",
        "<｜tool▁calls▁begin｜>",
        "```json",
    ),
    _fp("deepseek_v31", "<｜tool▁calls▁begin｜> with <｜tool▁sep｜>", "<｜tool▁calls▁begin｜>"),
    _fp("granite-20b-fc", "<function_call>", "<function_call>"),
    _fp("olmo3", "<function_calls>", "<function_calls>"),
    _fp("phi4_mini_json", "functools[...]", "functools["),
    _fp("gigachat3", "<|function_call|>", "<|function_call|>"),
    _fp("gigachat3", "a 'function call' role after <|role_sep|>", "function call", "<|role_sep|>"),
    _fp("minicpm5", '<function name="..."> with <param name=', "<function name=", "<param name="),
    _fp("mistral", "[TOOL_CALLS]", "[TOOL_CALLS]"),
    _fp("solar_open", "<|tool_call:begin|> (Upstage Solar Open)", "<|tool_call:begin|>"),
    _fp("solar_open2", "<|tool_call:start|> (Upstage Solar Open 2)", "<|tool_call:start|>"),
    _fp(
        "command_r_plus",
        'an Action: block of "tool_name" objects (Command R+)',
        "Action:",
        '"tool_name":',
    ),
    _fp("nemotron_toolcall", "<TOOLCALL>[...] (NVIDIA Nemotron)", "<TOOLCALL>"),
    _fp("functionary_v3_2", ">>>recipient turns (Functionary v3.2)", ">>>all"),
    _fp("plamo3", "<|plamo:begin_tool_request...|> (PFN PLaMo 3)", "plamo:begin_tool_request"),
    _fp("inkling", "<|content_invoke_tool_json|> (Inkling)", "<|content_invoke_tool_json|>"),
    _fp("muse_glimmer", "<atem:function_calls> (Muse's ATEM)", "<atem:function_calls>"),
    # -- syntaxes that no streamcall format reads ------------------------------------------
    _fp(None, "<iquestcoder_tool_call> (IQuest-Coder V2)", "<iquestcoder_tool_call>"),
    # -- HY: <tool_calls><tool_call>NAME<tool_sep><arg_key>..., tokens with a suffix --------
    _fp(
        "hy_v3",
        "HY's <tool_calls> with <tool_sep> and <arg_key>",
        "<tool_calls",
        "<tool_sep",
        "<arg_key",
    ),
    _fp("hy_v4", "HY's <tool_calls> with <arg_key>", "<tool_calls", "<arg_key"),
    # -- <tool_call> shared by several syntaxes: the body tells them apart -------------------
    _fp(
        "qwen3_coder",
        "<tool_call> with <function= and <parameter=",
        "<tool_call>",
        "<function=",
        "<parameter=",
    ),
    _fp(
        "functionary_v3_1",
        "<function=NAME>{json}</function> (Functionary v3.1)",
        "<function=",
        "</function>",
    ),
    _fp("telechat4", "<tool_call>NAME with <param_key>", "<tool_call>", "<param_key>"),
    _fp(
        "glm47",
        "<tool_call>NAME<arg_key> (no newline after the name)",
        "<tool_call>{function-name}<arg_key>",
    ),
    _fp("glm45", "<tool_call>NAME with <arg_key>", "<tool_call>", "<arg_key>"),
    _fp(
        "granite4",
        '<tool_call> with "arguments": in a Granite template (<|start_of_role|>)',
        "<tool_call>",
        '"arguments":',
        "<|start_of_role|>",
    ),
    _fp(
        "hunyuan_a13b",
        "<tool_calls>[...] in a Hunyuan template (<|extra_0|>)",
        "<tool_calls>[",
        "<|extra_0|>",
    ),
    _fp("jamba", "<tool_calls>[...] (a JSON list of calls)", "<tool_calls>["),
    _fp(
        "minimax",
        '<tool_calls> with one "arguments": object a line',
        "<tool_calls>",
        '"arguments":',
    ),
    _fp("hermes", '<tool_call> with "arguments":', "<tool_call>", '"arguments":'),
    _fp("granite", "<|tool_call|> and a JSON list", "<|tool_call|>"),
    # -- no marker around the calls: JSON or Python written bare ------------------------------
    _fp("xlam", 'a bare JSON list [{"name": ..., "arguments": ...}]', '[{"name":', '"arguments":'),
    _fp(
        "llama4_json",
        'bare {"name", "parameters": ...} in a Llama 4 template',
        '"parameters":',
        "<|header_start|>",
    ),
    _fp(
        "llama3_json",
        'bare {"name", "parameters": ...} in a Llama 3 template',
        '"parameters":',
        "<|start_header_id|>",
    ),
    _fp(
        "llama4_pythonic",
        "a Python list of calls in a Llama 4 template",
        "[func_name1(",
        "<|header_start|>",
    ),
    _fp("pythonic", "a Python list of calls [func_name1(params...)]", "[func_name1("),
)

REASONING_FINGERPRINTS: tuple[Fingerprint, ...] = (
    _fp("openai_gptoss", "Harmony's analysis channel", "<|channel|>", "analysis"),
    _fp("muse_glimmer", "Muse's to=self channel", "to=self", "<|message|>"),
    _fp("gemma4", "Gemma 4's <|channel>thought channel", "<|channel>"),
    _fp("mistral", "[THINK]…[/THINK]", "[THINK]"),
    _fp(
        "cohere_command4",
        "<|START_THINKING|> with the <|START_TEXT|> answer wrapper",
        "<|START_THINKING|>",
        "<|START_TEXT|>",
    ),
    _fp("cohere_command3", "<|START_THINKING|>", "<|START_THINKING|>"),
    _fp("seed_oss", "<seed:think>", "<seed:think>"),
    _fp("minimax_m3", "<mm:think>", "<mm:think>"),
    _fp("kimi_vl", "\u25c1think\u25b7 (Kimi-VL, Kimi-Dev)", "\u25c1think\u25b7"),
    _fp(
        "granite",
        "<think></think> then <response></response> (Granite 3.3)",
        "<response></response>",
    ),
    _fp("k2_horizon", "K2 Horizon's <ifm|think>", "<ifm|think"),
    _fp(
        "kimi_k3", "Kimi K3's XTML think channel (<|open|>…<|close|> tags)", "<|open|>", "<|close|>"
    ),
    _fp("granite", "'Here is my thought process:'", "Here is my thought process"),
    _fp("granite", "'Here's my thought process:'", "Here's my thought process"),
    _fp("apertus", "<|inner_prefix|>…<|inner_suffix|>", "<|inner_prefix|>"),
    _fp("solar_open", "Solar Open's <|think|> turn", "<|think|>", "<|end|>"),
    _fp("solar_open2", "Solar Open 2's <|think:start|>", "<|think:end|>"),
    _fp("plamo3", "<|plamo:begin_think:plamo|>", "plamo:begin_think"),
    _fp("inkling", "<|content_thinking|> blocks (Inkling)", "<|content_thinking|>"),
    _fp(None, "plain reasoning ended by [BEGIN FINAL RESPONSE] (Apriel)", "[BEGIN FINAL RESPONSE]"),
)

#: stems of think tags: ``<think>``, ``</think>``, ``<thinking>``, HY's ``<think:...>``; a
#: template that pre-fills ``<think>`` in the prompt may show only the closer
THINK: tuple[str, ...] = ("<think", "</think")

# Groups of formats whose parsers read one syntax: the template cannot tell them apart,
# the model id can. ``tests/test_detect.py`` checks that each member parses every other
# member's rendering of the same calls to the same calls.
SAME_SYNTAX: tuple[tuple[str, ...], ...] = (
    ("hermes", "qwen3_json", "granite4", "ernie45", "ripple", "kolibri1"),
    (
        "qwen3_coder",
        "qwen3_xml",
        "mimo",
        "step3p5",
        "step5",
        "granite_toolcall_parser",
        "berrylm",
    ),
    ("zaya", "zaya_xml"),
    ("glm45", "glm47", "poolside_v1", "ling3", "spark3", "spark"),
    ("telechat4", "xingchen4", "xing4_0"),
    ("jamba", "hunyuan_a13b"),
    ("llama3_json", "llama4_json"),
    ("cohere_command3", "cohere_command4"),
    ("muse_glimmer", "muse", "musespark", "musespark1x"),  # one wire; the channel rules differ
)

# The reasoning format of the family a tool format belongs to, where that family writes
# think tags: what generic think tags mean when the model id does not say.
THINK_FAMILIES: dict[str, str] = {
    "deepseek_v3": "deepseek_r1",  # the R1 templates; V3-0324's has no think tags
    "deepseek_v31": "deepseek_v3",
    "deepseek_v32": "deepseek_v3",
    "deepseek_v4": "deepseek_v4",
    "deepseek_v41": "deepseek_v41",
    "glm45": "glm45",
    "glm47": "glm45",
    "hunyuan_a13b": "hunyuan_a13b",
    "hy_v3": "hy_v3",
    "hy_v4": "hy_v4",
    "kimi_k2": "kimi_k2",
    "ling3": "ling3",
    "telechat4": "telechat4",
    "xingchen4": "xingchen4",
    "xing4_0": "xing4_0",
    "mimo": "mimo",
    "minimax_m2": "minimax_m2",
    "olmo3": "olmo3",
    "poolside_v1": "poolside_v1",
    "qwen3_coder": "qwen3",  # Qwen3.5/3.6; the Qwen3-Coder templates write no think tags
    "qwen3_xml": "qwen3",
    "step3": "step3",
    "step3p5": "step3p5",
    "step5": "step5",
    "granite_toolcall_parser": "granite_thinking_parser",
    "zaya": "zaya",
    "zaya_xml": "zaya",
    "ripple": "ripple",
    "gigachat35": "gigachat35",
    "ernie45": "ernie45",
    "berrylm": "berrylm",
    "kolibri1": "kolibri1",
    "nemotron_toolcall": "deepseek_r1",  # Nemotron Nano v2 opens <think> in the prompt
}

#: reasoning formats whose markers are think tags
THINK_FORMATS = frozenset(s.name for s in SPECS if all(m.startswith("<think") for m in s.start))

_MARKERS: tuple[str, ...] = tuple(
    dict.fromkeys(
        [m for rule in TOOL_FINGERPRINTS + REASONING_FINGERPRINTS for m in rule.markers]
        + list(THINK)
    )
)
_KIN: dict[str, tuple[str, ...]] = {name: group for group in SAME_SYNTAX for name in group}
_ESCAPE = re.compile(r"\\([\"'n])")
_UNESCAPED = {'"': '"', "'": "'", "n": "\n"}
_THINKING_FIELDS = ("reasoning_content", "thinking")
_SNAPSHOT = re.compile(r"models--(?P<org>[^/\\]+?)--(?P<name>[^/\\]+)$")
_HEX = re.compile(r"[0-9a-f]{7,64}")


@dataclass(frozen=True, slots=True)
class _Checkpoint:
    chat_template: str | None
    response_template: Any
    model: str | None
    where: str  # where the response template was found, for ``why``


def detect(source: str | os.PathLike[str]) -> Detected:
    """The tool-call and reasoning formats a checkpoint writes, and why (module docstring).

    Raises ``FileNotFoundError`` for a path that does not exist (a string that is neither
    a path nor template text), ``ValueError`` for a file that is not what it claims (bad
    JSON, a ``chat_template`` or ``response_template`` of the wrong type).
    """
    return _decide(_read(source))


def detect_template(text: str, *, model: str | None = None) -> Detected:
    """``detect`` for a chat template's text, with an optional model id."""
    return _decide(_Checkpoint(text, None, model, "the template"))


def detect_response_template(template: dict[str, Any], *, where: str) -> Detected:
    """What a response template given on its own decides (``hf``, and ``hf`` reasoning
    when it has a thinking field); ``where`` names it in ``why``."""
    return _decide(_Checkpoint(None, template, None, where))


# -- reading the checkpoint -------------------------------------------------------------


def _read(source: str | os.PathLike[str]) -> _Checkpoint:
    if isinstance(source, str) and not _looks_like_path(source):
        return _Checkpoint(source, None, None, "the template")
    path = Path(source)
    if path.is_dir():
        return _read_dir(path, path / "tokenizer_config.json")
    if not path.is_file():
        raise FileNotFoundError(f"detect: no such file or directory: {str(path)!r}")
    if path.name == "tokenizer_config.json":
        return _read_dir(path.parent, path)
    if path.suffix == ".json":
        config = _load_json(path)
        return _Checkpoint(
            _chat_template(config, path),
            _response_template(config, path),
            _string(config, "name_or_path", path),
            str(path),
        )
    return _Checkpoint(_read_text(path), None, None, str(path))


def _looks_like_path(source: str) -> bool:
    """Template text has Jinja (``{{``/``{%``) or a newline; any other string is a path.

    So a mistyped path is reported as missing instead of being read as a template with no
    tool syntax.
    """
    return not ("\n" in source or "{{" in source or "{%" in source)


def _read_dir(directory: Path, config_path: Path) -> _Checkpoint:
    config = _load_json(config_path) if config_path.is_file() else {}
    template = _chat_template(config, config_path)
    if template is None:
        jinja = directory / "chat_template.jinja"
        if jinja.is_file():
            template = _read_text(jinja)
        else:
            processor = directory / "chat_template.json"
            if processor.is_file():
                template = _chat_template(_load_json(processor), processor)
    model = _string(config, "name_or_path", config_path)
    if not model:
        model_config = directory / "config.json"
        if model_config.is_file():
            model = _string(_load_json(model_config), "_name_or_path", model_config)
    if not model:
        model = _directory_model_id(directory)
    return _Checkpoint(template, _response_template(config, config_path), model, str(config_path))


def _directory_model_id(directory: Path) -> str | None:
    """The directory's name, or ``org/name`` for a Hugging Face cache snapshot."""
    directory = directory.resolve()
    if directory.parent.name == "snapshots" and _HEX.fullmatch(directory.name):
        m = _SNAPSHOT.search(directory.parent.parent.name)
        if m:
            return f"{m['org']}/{m['name']}"
    return directory.name or None


def _read_text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def _load_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(_read_text(path))
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    if not isinstance(value, dict):
        raise ValueError(f"{path}: expected a JSON object, got {type(value).__name__}")
    return value


def _string(config: dict[str, Any], key: str, path: Path) -> str | None:
    value = config.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{path}: {key} must be a string, got {type(value).__name__}")
    value = value.rstrip("/\\")
    return value if value not in ("", ".") else None


def _chat_template(config: dict[str, Any], path: Path) -> str | None:
    """``chat_template``: a string, or a list of named templates (all read, joined)."""
    value = config.get("chat_template")
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        parts: list[str] = []
        for i, item in enumerate(value):
            text = item.get("template") if isinstance(item, dict) else None
            if not isinstance(text, str):
                raise ValueError(
                    f"{path}: chat_template[{i}] must be an object with a string 'template'"
                )
            parts.append(text)
        return "\n".join(parts)
    raise ValueError(
        f"{path}: chat_template must be a string or a list of named templates, "
        f"got {type(value).__name__}"
    )


def _response_template(config: dict[str, Any], path: Path) -> Any:
    value = config.get("response_template")
    if value is not None and not isinstance(value, dict):
        raise ValueError(f"{path}: response_template must be an object, got {type(value).__name__}")
    return value


# -- deciding ---------------------------------------------------------------------------


def _decide(cp: _Checkpoint) -> Detected:
    template = cp.response_template
    if template is not None:
        fields = template.get("fields")
        thinking = [f for f in _THINKING_FIELDS if isinstance(fields, dict) and f in fields]
        reasoning = "hf" if thinking else None
        said = f"its {thinking[0]} field" if thinking else "it has no thinking field"
        return Detected(
            "hf",
            reasoning,
            template,
            f"{cp.where} has a response_template, which decides: format hf; "
            f"reasoning {reasoning or 'none'} ({said})",
        )
    present = _present(cp.chat_template) if cp.chat_template is not None else None
    tool, tool_why = _tool_format(present, cp.model)
    reasoning, reasoning_why = _reasoning_format(present, cp.model, tool)
    return Detected(tool, reasoning, None, f"tool calls: {tool_why}; reasoning: {reasoning_why}")


def _present(template: str) -> frozenset[str]:
    """The markers that occur in the template once its string escapes are undone."""
    text = _ESCAPE.sub(lambda m: _UNESCAPED[m[1]], template)
    return frozenset(m for m in _MARKERS if m in text)


def _first(rules: tuple[Fingerprint, ...], present: frozenset[str]) -> Fingerprint | None:
    for rule in rules:
        if all(m in present for m in rule.markers):
            return rule
    return None


def _tool_format(present: frozenset[str] | None, model: str | None) -> tuple[str | None, str]:
    routed = format_for_model(model) if model else None
    rule = _first(TOOL_FINGERPRINTS, present) if present is not None else None
    if rule is not None:
        said = f"the chat template writes {rule.says}"
        if rule.format is None:
            return None, f"{said}, which no streamcall format reads"
        if routed is not None and routed != rule.format and routed in _KIN.get(rule.format, ()):
            return routed, (
                f"{said} ({rule.format}'s syntax); the model id {model!r} routes to "
                f"{routed}, which reads the same syntax"
            )
        return rule.format, f"{said}, so {rule.format}"
    base = "no chat template" if present is None else "no tool syntax in the chat template"
    if routed is not None:
        return routed, f"{base}; the model id {model!r} routes to {routed}"
    if model:
        return None, f"{base}, and the model id {model!r} routes to no format"
    return None, f"{base}, and no model id"


def _reasoning_format(
    present: frozenset[str] | None, model: str | None, tool: str | None
) -> tuple[str | None, str]:
    routed = reasoning_format_for_model(model) if model else None
    if present is None:
        if routed is not None:
            return routed, f"no chat template; the model id {model!r} routes to {routed}"
        return None, "no chat template, and no model id that routes to a reasoning format"
    rule = _first(REASONING_FINGERPRINTS, present)
    if rule is not None:
        said = f"the chat template writes {rule.says}"
        if rule.format is None:
            return None, f"{said}, which no streamcall reasoning format reads"
        if routed is not None and routed != rule.format and routed in _KIN.get(rule.format, ()):
            # (Muse: the tool syntax group's names are reasoning formats too)
            return routed, (
                f"{said} ({rule.format}'s); the model id {model!r} routes to {routed}, "
                "which reads the same syntax"
            )
        return rule.format, f"{said}, so {rule.format}"
    if not any(m in present for m in THINK):
        return None, "no reasoning markers in the chat template"
    if routed in THINK_FORMATS:
        return (
            routed,
            f"the chat template writes think tags; the model id {model!r} routes to {routed}",
        )
    family = THINK_FAMILIES.get(tool) if tool else None
    if family is not None:
        return family, f"the chat template writes think tags, as the {tool} family does: {family}"
    return None, (
        "the chat template writes think tags, but neither the model id nor the tool syntax "
        "names a family with a reasoning format for them"
    )


# -- parsing with what was found ----------------------------------------------------------


def hf_tool_parser(
    template: dict[str, Any], *, tools: Tools | None = None, id_prefix: str = "call_"
) -> ToolParser:
    """The ``hf`` format for a response template: ``tool_parser("hf", template=...)``.

    It reads the whole response (content, thinking and calls) as the template says.
    Raises ``ValueError`` where the ``hf`` format is not available.
    """
    make: Any = tool_parser  # (its ``template`` keyword belongs to the hf format alone)
    try:
        parser: ToolParser = make("hf", template=template, tools=tools, id_prefix=id_prefix)
    except TypeError as exc:
        raise ValueError(f"the hf format (response templates) is not available: {exc}") from None
    return parser


def output_parser_for(
    found: Detected,
    *,
    tools: Tools | None = None,
    id_prefix: str = "call_",
    request: Any = None,
    thinking: bool | None = None,
    tool_choice: Any = None,
    fallback: str | None = "auto",
    unknown_calls: str = "keep",
) -> OutputParser:
    """A fresh combined parser for what ``detect`` found (module docstring).

    ``found.template`` set: the ``hf`` parser for it, alone (a named ``tool_choice`` still
    keeps only that function's calls, and ``unknown_calls`` applies). Else ``output_parser`` with ``found.format`` (or
    ``fallback`` when none was found: ``auto`` sniffs it, None or ``"none"`` parses no
    calls) and ``found.reasoning``.
    """
    from streamcall.output import OutputParser, output_parser
    from streamcall.toolchoice import restrict

    if found.template is not None:
        tp = hf_tool_parser(found.template, tools=tools, id_prefix=id_prefix)
        return OutputParser(None, restrict(tp, tools, tool_choice, unknown_calls))
    return output_parser(
        tools=tools,
        tool_format=found.format or fallback or "none",
        reasoning_format=found.reasoning or "none",
        id_prefix=id_prefix,
        request=request,
        thinking=thinking,
        tool_choice=tool_choice,
        unknown_calls=unknown_calls,
    )


def stream_parser_for(
    found: Detected,
    *,
    tools: Tools | None = None,
    id_prefix: str = "call_",
    request: Any = None,
    thinking: bool | None = None,
    tool_choice: Any = None,
    fallback: str | None = "auto",
    unknown_calls: str = "keep",
) -> StreamParser:
    """A ``StreamParser`` (SSE bytes of a chat stream) whose model text is parsed as
    ``output_parser_for`` parses it."""
    from streamcall.stream import StreamParser

    if found.template is None:
        return StreamParser(
            found.format or fallback or "none",
            tools=tools,
            reasoning=found.reasoning or "none",
            id_prefix=id_prefix,
            request=request,
            thinking=thinking,
            tool_choice=tool_choice,
            unknown_calls=unknown_calls,
        )
    parser = StreamParser(
        id_prefix=id_prefix, request=request, tool_choice=tool_choice, unknown_calls=unknown_calls
    )
    # StreamParser builds its text parser from format names; a template is not one, so the
    # parser built from it takes that place
    parser._text = output_parser_for(
        found,
        tools=tools,
        id_prefix=id_prefix,
        tool_choice=tool_choice,
        unknown_calls=unknown_calls,
    )
    return parser
