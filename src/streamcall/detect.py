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
   the tool syntax names (``THINK_FAMILIES``); else the template is rendered
   (``streamcall.derive``): one whose generation prompt opens ``<think>`` gets
   ``deepseek_r1`` (the output starts inside reasoning); one whose prompt leaves
   ``<think>`` to the model by default and with thinking on, and pre-fills a closed block
   with thinking off (Qwen3's hybrid thinking), ``qwen3``; one whose prompt does not open
   it otherwise, ``deepseek_v3`` (the model's own ``<think>`` opens it); else None, said
   in ``why``. (A prompt that closes the block by default and opens it with thinking on
   is DeepSeek-V3.1's as much as llama.cpp's QwQ template's: ``deepseek_v3``, where only
   the model id says ``deepseek_r1``.)
   ``fingerprints=False`` switches both tables off (step 3 decides).
3. Else (no fingerprint) the template is rendered with probe conversations and its syntax
   read off the renderings (``streamcall.derive``): the markers around a call and a block,
   the layout of name and arguments, the reasoning markers and whether the generation
   prompt opens them. A syntax an engine reads is kept when the parser built from it reads
   the template's own rendering back (``Detected.derived``; ``format`` stays None and
   ``tool_syntax`` says ``derived``); otherwise the refusal says why: ``none`` when the
   template renders no calls, ``refused`` for calls in prose or in a grammar beyond the
   engines, ``unknown`` when it cannot tell (the template fails to render).
4. Else (no tool syntax found in the template, or no template) the model id, through
   ``format_for_model`` and ``reasoning_format_for_model``. The model id is
   ``name_or_path`` in ``tokenizer_config.json``, else ``_name_or_path`` in
   ``config.json``, else the directory's name (a Hugging Face cache snapshot,
   ``models--org--name/snapshots/<hash>``, gives ``org/name``). A template given as a file
   or as text has no model id.

What to parse with, once detected (``output_parser_for``, ``stream_parser_for``): the
formats found, through ``output_parser``; where a stage has no format and the template's
derived syntax has it, the parser derived from it; with a response template, the ``hf`` format
built from it (``tool_parser("hf", template=...)``), which reads the whole response
(content, thinking, calls), so no separate reasoning stage runs; and where no tool-call
format was found, ``auto`` (the format sniffed from the text), unless the caller says
otherwise. The command line (``--model-dir``), the proxy (``serve --model-dir``) and the
vLLM plugin use them.

The fingerprints read templates as text. The escapes of Jinja string literals
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamcall.fingerprints import (
    REASONING_FINGERPRINTS,
    SAME_SYNTAX,
    THINK,
    THINK_FAMILIES,
    THINK_FORMATS,
    TOOL_FINGERPRINTS,
    Fingerprint,
)
from streamcall.formats.registry import format_for_model, tool_parser
from streamcall.reasoning import reasoning_format_for_model

if TYPE_CHECKING:
    from streamcall.derive import Derived
    from streamcall.formats.engines.base import ToolParser, Tools
    from streamcall.output import OutputParser
    from streamcall.stream import StreamParser
    from streamcall.toolchoice import AllowedCalls

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
    #: what the tool-call answer rests on: ``named`` (a format, found by a response
    #: template, a fingerprint or the model id), ``derived`` (read off the template by
    #: rendering it: ``derived.calls``), ``none`` (recognised: the template renders no
    #: tool calls), ``refused`` (it writes calls as prose, or in a grammar no engine
    #: reads), or ``unknown`` (cannot tell: no template, or one that fails to render)
    tool_syntax: str = field(default="unknown", compare=False)
    #: what rendering the template found (``streamcall.derive``), where it was rendered:
    #: the call syntax when no fingerprint matched, the reasoning markers
    derived: Derived | None = field(default=None, compare=False)


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


def detect(source: str | os.PathLike[str], *, fingerprints: bool = True) -> Detected:
    """The tool-call and reasoning formats a checkpoint writes, and why (module docstring).

    Raises ``FileNotFoundError`` for a path that does not exist (a string that is neither
    a path nor template text), ``ValueError`` for a file that is not what it claims (bad
    JSON, a ``chat_template`` or ``response_template`` of the wrong type).
    """
    return _decide(_read(source), fingerprints)


def detect_template(text: str, *, model: str | None = None, fingerprints: bool = True) -> Detected:
    """``detect`` for a chat template's text, with an optional model id.

    ``fingerprints=False`` switches the fingerprint tables off: the template's syntax is
    then derived by rendering it, as for a template no fingerprint knows."""
    return _decide(_Checkpoint(text, None, model, "the template"), fingerprints)


def detect_response_template(template: dict[str, Any], *, where: str) -> Detected:
    """What a response template given on its own decides (``hf``, and ``hf`` reasoning
    when it has a thinking field); ``where`` names it in ``why``."""
    return _decide(_Checkpoint(None, template, None, where), True)


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


def _decide(cp: _Checkpoint, fingerprints: bool) -> Detected:
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
            "named",
        )
    present = _present(cp.chat_template) if cp.chat_template is not None else None
    rendered = _Rendered(cp.chat_template)
    tables = (TOOL_FINGERPRINTS, REASONING_FINGERPRINTS) if fingerprints else ((), ())
    tool, tool_why, syntax = _tool_format(present, cp.model, rendered, tables[0])
    reasoning, reasoning_why = _reasoning_format(present, cp.model, tool, rendered, tables[1])
    why = f"tool calls: {tool_why}; reasoning: {reasoning_why}"
    return Detected(tool, reasoning, None, why, syntax, rendered.found)


class _Rendered:
    """The template's derived syntax (``streamcall.derive``), rendered when first asked."""

    def __init__(self, template: str | None) -> None:
        self.template = template
        self.found: Derived | None = None

    def __call__(self) -> Derived:
        if self.found is None:
            from streamcall.derive import derive

            self.found = derive(self.template or "")
        return self.found


def _present(template: str) -> frozenset[str]:
    """The markers that occur in the template once its string escapes are undone."""
    text = _ESCAPE.sub(lambda m: _UNESCAPED[m[1]], template)
    return frozenset(m for m in _MARKERS if m in text)


def _first(rules: tuple[Fingerprint, ...], present: frozenset[str]) -> Fingerprint | None:
    for rule in rules:
        if all(m in present for m in rule.markers):
            return rule
    return None


#: what a derivation's refusal makes of the answer (``Detected.tool_syntax``)
_REFUSED = {"no-tools": "none", "prose": "refused", "beyond": "refused", "unknown": "unknown"}


def _tool_format(
    present: frozenset[str] | None,
    model: str | None,
    rendered: _Rendered,
    rules: tuple[Fingerprint, ...],
) -> tuple[str | None, str, str]:
    routed = format_for_model(model) if model else None
    rule = _first(rules, present) if present is not None else None
    if rule is not None:
        said = f"the chat template writes {rule.says}"
        if rule.format is None:
            return None, f"{said}, which no streamcall format reads", "refused"
        if routed is not None and routed != rule.format and routed in _KIN.get(rule.format, ()):
            return (
                routed,
                (
                    f"{said} ({rule.format}'s syntax); the model id {model!r} routes to "
                    f"{routed}, which reads the same syntax"
                ),
                "named",
            )
        return rule.format, f"{said}, so {rule.format}", "named"
    base = "no chat template" if present is None else "no tool syntax in the chat template"
    syntax, rendered_why = "unknown", ""
    if present is not None:
        derived = rendered()
        if derived.calls is not None:
            c = derived.calls
            markers = " … ".join(repr(m) for m in (c.call if any(c.call) else c.block))
            if not any(c.call + c.block):
                markers = "no marker: they open the output"
            return (
                None,
                (
                    "no fingerprint in the chat template; rendered, it writes "
                    f"{c.layout} calls ({markers}): a parser derived from it"
                ),
                "derived",
            )
        refusal = derived.refusal
        assert refusal is not None
        syntax, rendered_why = _REFUSED[refusal.kind], f" (rendered: {refusal.why})"
    if routed is not None:
        return routed, f"{base}; the model id {model!r} routes to {routed}{rendered_why}", "named"
    if model:
        why = f"{base}, and the model id {model!r} routes to no format{rendered_why}"
        return None, why, syntax
    return None, f"{base}, and no model id{rendered_why}", syntax


def _reasoning_format(
    present: frozenset[str] | None,
    model: str | None,
    tool: str | None,
    rendered: _Rendered,
    rules: tuple[Fingerprint, ...],
) -> tuple[str | None, str]:
    routed = reasoning_format_for_model(model) if model else None
    if present is None:
        if routed is not None:
            return routed, f"no chat template; the model id {model!r} routes to {routed}"
        return None, "no chat template, and no model id that routes to a reasoning format"
    rule = _first(rules, present)
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
        derived = rendered.found if rules else rendered()
        found = derived.reasoning if derived is not None else None
        if found is not None:
            return None, (
                f"rendered, the chat template writes reasoning in {found.start} … {found.end}: "
                "the reasoning parser derived from it"
            )
        return None, "no reasoning markers in the chat template"
    if routed in THINK_FORMATS:
        return (
            routed,
            f"the chat template writes think tags; the model id {model!r} routes to {routed}",
        )
    family = THINK_FAMILIES.get(tool) if tool else None
    if family is not None:
        return family, f"the chat template writes think tags, as the {tool} family does: {family}"
    return _think_tags(rendered())


def _think_tags(derived: Derived) -> tuple[str | None, str]:
    """Think tags no model id or family names: the format by where the template's
    generation prompt leaves the model, by default and with thinking on and off, read by
    rendering it (module docstring)."""
    found = derived.reasoning
    if found is None or found.start != "<think>" or found.end != "</think>":
        return None, (
            "the chat template writes think tags, but neither the model id nor the tool "
            "syntax names a family with a reasoning format for them, and rendered it shows "
            "no <think> … </think> block"
        )
    if found.opens is None and found.opens_thinking is None and found.opens_not_thinking is False:
        # Qwen3's hybrid thinking: on by default with the model writing its own <think>,
        # switched off by a pre-filled empty block
        return "qwen3", (
            "rendered, the chat template writes <think> … </think>, and its generation "
            "prompt leaves <think> to the model by default and with thinking on, and "
            "pre-fills a closed block with thinking off (thinking on by default, "
            "switchable): qwen3"
        )
    if found.opens:
        return "deepseek_r1", (
            "rendered, the chat template writes <think> … </think>, and its generation "
            "prompt opens <think>: deepseek_r1 (the output starts inside reasoning)"
        )
    return "deepseek_v3", (
        "rendered, the chat template writes <think> … </think>, and its generation prompt "
        "does not open it: deepseek_v3 (the output starts outside reasoning; the model's "
        "<think> opens it)"
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
    generation_prompt: str | None = None,
) -> OutputParser:
    """A fresh combined parser for what ``detect`` found (module docstring).

    ``found.template`` set: the ``hf`` parser for it, alone (a named ``tool_choice`` still
    keeps only that function's calls, and ``unknown_calls`` applies). Else ``output_parser``
    with ``found.format`` (or ``fallback`` when none was found: ``auto`` sniffs it, None or
    ``"none"`` parses no calls) and ``found.reasoning``; where a stage's format is None and
    ``found.derived`` has its syntax (read off the template by rendering it), that stage is
    the derived parser. ``generation_prompt`` (the prompt's end) gives the start state.
    """
    from streamcall.output import OutputParser, output_parser
    from streamcall.toolchoice import restrict

    if found.template is not None:
        hf = hf_tool_parser(found.template, tools=tools, id_prefix=id_prefix)
        return OutputParser(None, restrict(hf, tools, tool_choice, unknown_calls))
    derived = found.derived
    calls = derived is not None and found.format is None and derived.calls is not None
    reasons = derived is not None and found.reasoning is None and derived.reasoning is not None
    named = output_parser(
        tools=tools,
        tool_format="none" if calls else found.format or fallback or "none",
        reasoning_format=found.reasoning or "none",
        id_prefix=id_prefix,
        request=request,
        thinking=thinking,
        tool_choice=tool_choice,
        unknown_calls=unknown_calls,
        generation_prompt=generation_prompt,
    )
    if derived is None or not (calls or reasons):
        return named
    rp = named.reasoning
    tp: ToolParser | AllowedCalls | None = named.tools
    if reasons:
        rp = derived.reasoning_parser(request=request, thinking=thinking, prompt=generation_prompt)
    if calls and tool_choice != "none":
        parser = derived.tool_parser(tools, id_prefix=id_prefix)
        tp = restrict(parser, tools, tool_choice, unknown_calls)
    return OutputParser(rp, tp)


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
    generation_prompt: str | None = None,
) -> StreamParser:
    """A ``StreamParser`` (SSE bytes of a chat stream) whose model text is parsed as
    ``output_parser_for`` parses it."""
    from streamcall.stream import StreamParser

    if found.template is None and found.derived is None:
        return StreamParser(
            found.format or fallback or "none",
            tools=tools,
            reasoning=found.reasoning or "none",
            id_prefix=id_prefix,
            request=request,
            thinking=thinking,
            tool_choice=tool_choice,
            unknown_calls=unknown_calls,
            generation_prompt=generation_prompt,
        )
    parser = StreamParser(
        id_prefix=id_prefix, request=request, tool_choice=tool_choice, unknown_calls=unknown_calls
    )
    # StreamParser builds its text parser from format names; a template (or a syntax
    # derived from one) is not one, so the parser built from it takes that place
    parser._text = output_parser_for(
        found,
        tools=tools,
        id_prefix=id_prefix,
        request=request,
        thinking=thinking,
        tool_choice=tool_choice,
        fallback=fallback,
        unknown_calls=unknown_calls,
        generation_prompt=generation_prompt,
    )
    return parser
