"""The call and reasoning syntax of a chat template no fingerprint knows, read by rendering it.

``derive(template)`` renders probe conversations through the sandboxed renderer
(``probes.py``), reads the markers and the layout of a call off the renderings
(``calls.py``) and the reasoning markers and the generation prompt's opening (here), and
configures an existing engine with what it found (``build.py``). Then it checks the
parser on the template's own rendering of the probe calls: the parser must read back
exactly the calls the template was given (names and arguments, typed by the probe's
schema, or as strings where the template writes a value between its string quotes:
``written_as_strings``; the first call alone for a template that renders one call per
turn), and the derived reasoning parser exactly the reasoning, and, on a turn of
reasoning and then an answer, the two parsers together exactly the answer as text. A
syntax that fails the check is refused: a wrong parser is worse than none.

A reasoning marker is one tag (``<think>``), or one tag with a fixed word and a blank
after it (Gemma 4's ``<|channel>thought\n``: the word is the marker's ``start_prefix``).

The answer, a ``Derived``, is data: ``calls`` (a ``CallSyntax``, or None with the
``refusal`` saying why: ``no-tools`` when the template renders no calls, ``prose``,
``beyond`` for a grammar no engine reads, ``unknown`` when it cannot tell, as for a
template that fails to render), and ``reasoning`` (a ``ReasoningSyntax``, or None).
``Derived.tool_parser`` and ``Derived.reasoning_parser`` make the parsers;
``Derived.response_template`` writes the syntax as a Hugging Face response template where
the spec's shapes express it (``export.py``).

Rendering is the cost: about ten renders of the template, each a few milliseconds
(docs/performance.md). Nothing is cached across calls of ``derive``; ``detect`` derives
once per checkpoint.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from streamcall.derive.build import DERIVED, parser_class, reasoning_spec
from streamcall.derive.calls import CallSyntax, Refusal, cut_left, marker_token, read_calls
from streamcall.derive.probes import (
    ARGS,
    CONTENT,
    NAMES,
    REASONING,
    RESULT,
    TOOLS,
    USER,
    Probes,
    common_prefix,
    common_suffix,
    marker_after,
    marker_before,
)
from streamcall.events import Event, Reasoning, Text, ToolCallEnd, ToolCallStart
from streamcall.formats.engines.base import ToolParser, Tools
from streamcall.reasoning._engine import MarkerReasoningParser, ReasoningParser

__all__ = [
    "DERIVED",
    "CallSyntax",
    "Derived",
    "ReasoningSyntax",
    "Refusal",
    "calls_mismatch",
    "derive",
    "probe_args_match",
    "written_as_strings",
]


@dataclass(frozen=True, slots=True)
class ReasoningSyntax:
    """A template's reasoning markers, and whether its generation prompt opens them."""

    start: str
    end: str
    #: the generation prompt opens reasoning: by default, with thinking on, with it off
    #: (None where that prompt ends with neither marker)
    opens: bool | None
    opens_thinking: bool | None
    opens_not_thinking: bool | None
    #: a fixed word the template writes right after the start marker, with the blanks
    #: after it (Gemma 4's ``<|channel>`` then ``thought\n``): dropped, not reasoning
    start_prefix: str = ""

    def prompt_opened(self, thinking: bool | None = None) -> bool:
        """Whether the output starts inside reasoning, for a request's thinking switch."""
        said = (
            self.opens
            if thinking is None
            else self.opens_thinking
            if thinking
            else self.opens_not_thinking
        )
        return bool(said)


@dataclass(frozen=True, slots=True)
class Derived:
    """What ``derive`` read off a template (module docstring)."""

    calls: CallSyntax | None
    reasoning: ReasoningSyntax | None
    #: why ``calls`` is None
    refusal: Refusal | None = None
    #: the model text the template renders for the probe's two calls, and for its
    #: reasoning (markers included): what the derived parsers were checked on
    sample: str = field(default="", compare=False, repr=False)
    reasoning_sample: str = field(default="", compare=False, repr=False)
    #: what the generation prompt writes to start the assistant's turn, after a user's turn
    #: and after a tool's result alike (a response template's start anchor)
    prompt_start: str = field(default="", compare=False, repr=False)

    def tool_parser(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> ToolParser:
        """A fresh parser for the derived call syntax (``ValueError`` if none)."""
        if self.calls is None:
            why = self.refusal.why if self.refusal else "no call syntax"
            raise ValueError(f"no derived tool-call parser: {why}")
        return parser_class(self.calls)(tools, id_prefix=id_prefix)

    def reasoning_parser(
        self,
        *,
        prompt_opened: bool | None = None,
        request: Any = None,
        thinking: bool | None = None,
        prompt: str | None = None,
    ) -> ReasoningParser:
        """A fresh parser for the derived reasoning markers (``ValueError`` if none).

        The output starts inside reasoning when ``prompt_opened`` says so; else when the
        generation ``prompt`` ends with the start marker (not with the end marker); else
        when the template's generation prompt opens it for the thinking switch
        (``thinking``, or the request's ``chat_template_kwargs``)."""
        r = self.reasoning
        if r is None:
            raise ValueError("no derived reasoning markers")
        if prompt_opened is None and prompt:
            prompt_opened = _opens(prompt, r.start, r.end, r.start_prefix)
        if prompt_opened is None:
            prompt_opened = r.prompt_opened(_thinking(request, thinking))
        spec = reasoning_spec(r.start, r.end, prompt_opened, r.start_prefix)
        return MarkerReasoningParser(spec, prompt_opened=prompt_opened)

    def response_template(self) -> dict[str, Any] | None:
        """The derived syntax as a Hugging Face response template, where the spec's shapes
        express it (``derive.export``); None where they do not, or with no call syntax."""
        from streamcall.derive.export import response_template

        if self.calls is None:
            return None
        r = self.reasoning
        markers = (r.start + r.start_prefix.rstrip(), r.end) if r else None
        return response_template(self.calls, self.prompt_start, markers)

    def describe(self) -> str:
        """The derived syntax in words, one line per part."""
        lines: list[str] = []
        c = self.calls
        if c is not None:
            lines.append(f"layout: {c.layout}")
            if any(c.block):
                lines.append(f"block markers: {c.block[0]!r} … {c.block[1]!r}")
            if any(c.call):
                lines.append(f"call markers: {c.call[0]!r} … {c.call[1]!r}")
            if not any(c.block + c.call):
                listed = "their list" if c.listed else "they"
                lines.append(f"no markers: {listed} must open the output")
            if c.single:
                lines.append("one call per turn (the template renders no parallel calls)")
            else:
                lines.append(f"between parallel calls: {c.separator!r}")
            if c.layout == "json" and c.name_as_key:
                lines.append("keys: the name is the key, the arguments its value")
            elif c.layout == "json":
                ids = f", the model's call id {c.id_key!r}" if c.id_key else ""
                lines.append(f"keys: name {c.name_key!r}, arguments {c.args_key!r}{ids}")
            if c.layout == "header_json":
                lines.append(f"between name and arguments: {c.name_end!r}")
                if any(c.header):
                    lines.append(
                        f"header: {c.header[0]!r} NAME {c.header[1]!r} "
                        "({id}: the model's call id, {index}: the call's number)"
                    )
            if c.layout == "xml_params":
                lines.append(f"after the name: {c.name_end!r}; parameter: {c.param!r}")
                if any(c.header):
                    lines.append(
                        f"header: NAME {c.header[1]!r} then {c.name_end!r} "
                        "({index}: the call's number, matched and not kept)"
                    )
                if c.type_attr[0]:
                    lines.append(
                        f"type attribute: {c.type_attr[0]!r} TYPE {c.type_attr[1]!r} (the "
                        "value's JSON Schema type: 'string' raw, any other JSON; a typed "
                        "schema wins)"
                    )
                before, said, json_said = c.type_flag
                if said:
                    lines.append(
                        f"type flag: {before!r} then {said!r} (a string, raw) or "
                        f"{json_said!r} (a JSON value)"
                    )
            if c.layout == "gemma":
                lines.append(f"string quote: {c.quote!r}")
        elif self.refusal is not None:
            lines.append(f"calls: refused ({self.refusal.kind}): {self.refusal.why}")
        r = self.reasoning
        if r is not None:
            lines.append(f"reasoning markers: {r.start!r} … {r.end!r}")
            if r.start_prefix:
                lines.append(f"after the start marker: {r.start_prefix!r} (dropped)")
            lines.append(
                f"generation prompt opens reasoning: {_said(r.opens)} by default, "
                f"{_said(r.opens_thinking)} with thinking on, "
                f"{_said(r.opens_not_thinking)} with it off"
            )
        return "\n".join(lines)


def _thinking(request: Any, thinking: bool | None) -> bool | None:
    """The thinking switch: ``thinking``, else the request's ``chat_template_kwargs``
    (``enable_thinking`` or ``thinking``, the names templates read)."""
    if thinking is not None or not isinstance(request, Mapping):
        return thinking
    kwargs = request.get("chat_template_kwargs")
    if isinstance(kwargs, Mapping):
        for key in ("enable_thinking", "thinking"):
            if isinstance(kwargs.get(key), bool):
                return bool(kwargs[key])
    return None


def _said(value: bool | None) -> str:
    return "yes" if value else "no"


def derive(template: Any) -> Derived:
    """Read a template's call and reasoning syntax by rendering it (module docstring).

    ``template`` is a ``ChatTemplate`` or a template's text. Never raises on a template:
    one that cannot be read is ``Refusal("unknown", ...)``.
    """
    try:
        from streamcall.prompt.jinja import ChatTemplate
    except ImportError as exc:  # pragma: no cover - jinja2 comes with the server extra
        return Derived(None, None, Refusal("unknown", f"cannot render templates: {exc}"))
    if isinstance(template, str):
        template = ChatTemplate.from_string(template)
    probes = Probes(template)
    try:
        reasoning, said = _read_reasoning(probes)
        found = read_calls(probes, (reasoning.start, reasoning.end) if reasoning else ())
    except Exception as exc:  # a template's surprise must not become the caller's
        return Derived(None, None, Refusal("unknown", f"the probes failed: {exc}"))
    if isinstance(found, Refusal):
        reasoning, said = _answered(probes, reasoning, said, None)
        return Derived(None, reasoning, found, "", said)
    syntax, sample = found
    why = _check_calls(syntax, sample.text)
    if why is not None:
        reasoning, said = _answered(probes, reasoning, said, None)
        return Derived(None, reasoning, Refusal("beyond", why), sample.text, said)
    reasoning, said = _answered(probes, reasoning, said, syntax)
    start = _assistant_start(probes, reasoning)
    return Derived(syntax, reasoning, None, sample.text, said, start)


def _assistant_start(probes: Probes, reasoning: ReasoningSyntax | None) -> str:
    """What the generation prompt writes after a user's turn and after a tool's result
    alike (after a user's turn, where a template writes no header after a tool's result),
    up to a reasoning block it pre-fills; '' when that holds no word."""
    after_user, after_tool = probes.opening(None), probes.calls(1)
    if not after_user or not after_tool:
        return ""
    a = after_user[after_user.rfind(USER) + len(USER) :]
    b = after_tool[after_tool.rfind(RESULT) + len(RESULT) :]
    for start in (a[len(a) - common_suffix(a, b) :], a):
        for marker in (reasoning.start, reasoning.end) if reasoning is not None else ():
            if marker in start:
                start = start[: start.find(marker)].rstrip()
        start = cut_left(start).lstrip()
        if any(c.isalnum() for c in start):
            return start
    return ""


# -- the check: the parser reads the template's own rendering back ------------------------


def _check_calls(syntax: CallSyntax, sample: str) -> str | None:
    # a marker too long to be one, or holding the probe's text, is a stretch of the call
    # misread as markup: no engine is given it
    markers = (*syntax.block, *syntax.call, syntax.name_end, *syntax.param, syntax.args_suffix)
    for marker in markers:
        if not marker_token(marker):
            return f"a marker read is the call's own text, not markup ({marker[:40]!r}...)"
    try:
        parser = parser_class(syntax)(TOOLS)
        events = parser.feed(sample) + parser.finish()
    except Exception as exc:  # an engine that refuses the configuration
        return f"no engine takes the syntax read ({exc})"
    return calls_mismatch(events, 1 if syntax.single else 2, written_as_strings(sample))


def calls_mismatch(
    events: list[Event], calls: int = 2, strings: frozenset[str] = frozenset()
) -> str | None:
    """Why ``events`` are not the probe's two calls, or its first alone with ``calls=1``
    (None when they are); ``strings``: keys the template wrote as strings
    (``written_as_strings``)."""
    names = [e.name for e in events if isinstance(e, ToolCallStart)]
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    expected = list(NAMES[:calls])
    if names != expected:
        return f"the parser read the calls {names} back, not {expected}"
    for e in ends:
        if e.incomplete or not probe_args_match(json.loads(e.arguments), strings):
            return f"the parser read the arguments {e.arguments} back, not {json.dumps(ARGS)}"
    text = "".join(e.text for e in events if isinstance(e, Text)).strip()
    if text:
        return f"the parser left {text[:60]!r} of the calls' markup as text"
    return None


def probe_args_match(got: dict[str, Any], strings: frozenset[str] = frozenset()) -> bool:
    """The probe's arguments, each as given or as the template spelled it in Python
    (``None``, ``True``: a template that writes ``value|string`` loses the type, not the
    parser); for the keys in ``strings``, which the template wrote as strings, the Python
    spelling as a string (``"4217"``, ``"[1, 'zqitem']"``)."""
    if got.keys() != ARGS.keys():
        return False
    return all(
        got[k] == v or got[k] == _python(v) or (k in strings and got[k] == str(v))
        for k, v in ARGS.items()
    )


def written_as_strings(sample: str) -> frozenset[str]:
    """The probe's keys whose values ``sample`` writes as it writes the string value, in
    Python's spelling (``k="4217"``, ``k:<escape>4217<escape>``: a template that puts
    ``{{ value }}`` between its string quotes loses the types, not the parser)."""
    k = sample.find("zq_str")
    v = sample.find(ARGS["zq_str"], k)
    if k < 0 or v < 0:
        return frozenset()
    quote = sample[k + len("zq_str") : v]
    found = set()
    for key, value in ARGS.items():
        at = sample.find(key)
        if isinstance(value, str) or at < 0:
            continue
        if sample.startswith(quote + str(value), at + len(key)):
            found.add(key)
    return frozenset(found)


def _python(value: Any) -> Any:
    return str(value) if value is None or isinstance(value, bool) else value


# -- reasoning ----------------------------------------------------------------------------


def _read_reasoning(probes: Probes) -> tuple[ReasoningSyntax | None, str]:
    """The reasoning markers around the probe's reasoning, and the prompts' openings; and
    the reasoning block the template renders, which the derived parser must read back."""
    with_r = probes.reasoning()
    start = end = sample = prefix = ""
    if with_r is not None and REASONING in with_r:
        at = with_r.find(REASONING, max(with_r.find(USER), 0))
        thinking = with_r is not probes.calls(1, reasoning=True)
        base = probes.calls(1, thinking=thinking) or ""
        common = common_prefix(base, with_r)
        after_at = at + len(REASONING)
        tail = common_suffix(base, with_r)
        tail = min(tail, len(base) - common, len(with_r) - after_at)
        before, after = with_r[common:at].strip(), with_r[after_at : len(with_r) - tail].strip()
        start = before if _one_marker(before) else marker_before(with_r[:at])
        if not start:
            start, prefix = _worded_marker(with_r, common, at)
        end = after if _one_marker(after) else marker_after(with_r[after_at:])
        first = with_r.rfind(start, 0, at) if start else -1
        last = with_r.find(end, after_at) if end else -1
        if first >= 0 and last >= 0:
            sample = with_r[first : last + len(end)]
    else:
        # not rendered in the history: the opener the generation prompt writes with thinking
        # on, and its closing tag where the template writes one
        prompt = probes.opening(True)
        start = marker_before(prompt) if prompt else ""
        close = "</" + start[1:] if start.startswith("<") and not start.startswith("</") else ""
        end = close if close and close in "".join(probes.template.templates.values()) else ""
    if not (_tag(start) and _tag(end)) or start == end:
        return None, ""
    if sample:
        spec = reasoning_spec(start, end, False, prefix)
        parser = MarkerReasoningParser(spec, prompt_opened=False)
        events = parser.feed(sample) + parser.finish()
        text = "".join(e.text for e in events if isinstance(e, Text))
        if text.strip() or not reasoning_events_match(events, REASONING):
            return None, ""
    syntax = ReasoningSyntax(
        start,
        end,
        _opens(probes.opening(None), start, end, prefix),
        _opens(probes.opening(True), start, end, prefix),
        _opens(probes.opening(False), start, end, prefix),
        prefix,
    )
    return syntax, sample


def _answered(
    probes: Probes, reasoning: ReasoningSyntax | None, said: str, calls: CallSyntax | None
) -> tuple[ReasoningSyntax | None, str]:
    """The reasoning markers (and their sample), or none where the template's rendering
    of a turn of reasoning and then an answer, read from the reasoning's start marker to
    the answer's end by the derived parsers (reasoning, then calls), leaves anything but
    the answer as text: markup between the two (Harmony's ``<|end|><|start|>assistant
    <|channel|>final<|message|>``: the end marker closes a message, and the answer is
    another) that the parsers would hand on as the answer's. A template that renders no
    such turn shows nothing against the markers."""
    try:
        leaks = reasoning is not None and _answer_leaks(probes, reasoning, calls)
    except Exception:  # a template's surprise: no evidence either way
        leaks = False
    return (None, "") if leaks else (reasoning, said)


def _answer_leaks(probes: Probes, r: ReasoningSyntax, calls: CallSyntax | None) -> bool:
    turn = {"role": "assistant", "content": CONTENT, "reasoning_content": REASONING}
    messages = [{"role": "user", "content": USER}, turn]
    for thinking in (None, True):
        kwargs = {"enable_thinking": True, "thinking": True} if thinking else None
        rendered = probes.render(messages, ("answer", thinking), generation=False, kwargs=kwargs)
        if rendered is None or REASONING not in rendered or CONTENT not in rendered:
            continue
        at = rendered.find(REASONING, max(rendered.find(USER), 0))
        first, stop = rendered.rfind(r.start, 0, at), rendered.find(CONTENT, at)
        if first < 0 or stop < 0:
            return False
        spec = reasoning_spec(r.start, r.end, False, r.start_prefix)
        parser = MarkerReasoningParser(spec, prompt_opened=False)
        events = parser.feed(rendered[first : stop + len(CONTENT)]) + parser.finish()
        text = "".join(e.text for e in events if isinstance(e, Text))
        if calls is not None:  # the call parser reads the text side (and drops its frames)
            tools = parser_class(calls)(TOOLS)
            text = "".join(e.text for e in tools.feed(text) + tools.finish() if isinstance(e, Text))
        return text.strip() != CONTENT or not reasoning_events_match(events, REASONING)
    return False


#: a marker token followed by one word, then a blank: ``<|channel>thought\n``
_WORDED = re.compile(r"(<[^<>\s]{1,64}>|\[[^\[\]\s]{1,64}\])([A-Za-z][\w-]{0,31})(\s*)\Z")


def _worded_marker(rendered: str, common: int, at: int) -> tuple[str, str]:
    """A start marker followed by a fixed word (Gemma 4's ``<|channel>thought\n``): the
    marker, and the word with the blanks after it (the engine's ``start_prefix``), where
    what the reasoning adds before its text is exactly that; else ``("", "")``."""
    m = _WORDED.search(rendered, max(0, at - 128), at)
    # right before the reasoning, with nothing but blanks between it and where the
    # rendering with reasoning departs from the one without (a template that writes an
    # empty block without reasoning shares all of it; ``<|`` may be shared alone)
    if m is None or not m.group(3) or rendered[common : m.start()].strip():
        return "", ""
    return m.group(1), m.group(2) + m.group(3)


def _one_marker(text: str) -> bool:
    return bool(text) and not any(c.isspace() for c in text) and _tag(text)


def _tag(text: str) -> bool:
    """A reasoning marker is a tag: bracketed, with no blank inside."""
    return (
        len(text) >= 3
        and text[0] in "<["
        and text[-1] in ">]"
        and not any(c.isspace() for c in text)
    )


def _opens(prompt: str | None, start: str, end: str, prefix: str = "") -> bool | None:
    if not prompt:
        return None
    tail = prompt.rstrip()
    if tail.endswith(start) or (prefix and tail.endswith(start + prefix.rstrip())):
        return True
    if tail.endswith(end):
        return False
    return None


def reasoning_events_match(events: list[Event], expected: str) -> bool:
    """Whether ``events`` carry exactly ``expected`` as reasoning (blanks at the edges aside)."""
    text = "".join(e.text for e in events if isinstance(e, Reasoning))
    return text.strip() == expected
