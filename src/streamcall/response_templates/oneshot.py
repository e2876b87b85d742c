r"""``parse_response``: a whole model output read with a response template, one shot.

The reading (transformers' ``parse_response`` for the same template, text, prefix and
tools gives the same dict):

- The prompt ``prefix`` is cut after the end of the last match of the start anchor (all
  of it is kept when there is none), and what remains is read as the start of the
  output: a template may pre-write part of the assistant message (``<think>``).
- The reader is always in one region: an explicit field after its opener, else the
  implicit field (the one without an opener) or, when there is none, a sink that drops
  text. Inside an explicit region only its own closer is watched (regions never nest);
  outside, every opener and the implicit field's closer.
- From the current position, the watched match that starts first wins; on a tie the
  longest, then an opener before a closer, then the field's name. Text before it goes
  into the current region; an opener closes the current region and opens its own; a
  closer closes the current region. After any close the reader is back outside.
- A region's value (``content.region_value``, then the tools' argument types) is stored
  when it closes: a ``join`` field concatenates with the separator, a ``repeats`` field
  appends to a list, any other field overwrites. At the end, the open region closes
  with what it has.
- A zero-width closer that matches again where the (empty) implicit region starts stops
  the reading there; the rest of the text is not read (transformers' guard against an
  endless loop, kept so that the dicts agree).
- The result starts as a copy of ``defaults``, in order of first close; a required
  field that never closed raises ``ValueError``; keys outside ``defaults`` whose value is
  ``None``, ``""``, ``[]`` or ``{}`` are dropped.

Each anchor's last match is remembered with the position it was searched from: it is
still the first match from any later position up to its start (a match at a position
depends only on the text and that position), and "none from here" stays true further
on. So every anchor's search moves forward through the text instead of restarting from
every position the reader stops at. A scan-ahead anchor (``Anchor.ahead``,
``(?=[\s\S]*?</think>)``) is decided by one search for what it looks for.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from streamcall.response_templates import _patterns
from streamcall.response_templates.content import name_field, region_value
from streamcall.response_templates.control import ControlTokenText, TaggedText, strip_markers
from streamcall.response_templates.spec import Field, ResponseTemplate, compile_template
from streamcall.response_templates.tooltypes import (
    ToolParameters,
    coerce_tool_calls,
    tool_parameters,
)
from streamcall.response_templates.versions import Rules, rules_for

__all__ = [
    "MatchKey",
    "Message",
    "match_key",
    "parse_response",
    "prefix_remainder",
    "watched",
]

PREFIX_REQUIRED = (
    "`ResponseParser`/`parse_response` requires `prefix` (the chat prompt sent to the model "
    "before generation), because chat templates often pre-write part of the assistant "
    "message (e.g. an opening `<think>` tag) that the parser must see to parse the output "
    'correctly. If the generation already contains the complete message, pass `prefix=""` '
    "to opt out explicitly."
)

MatchKey = tuple[int, int, int, str]


class Message:
    """The output dict, built as regions close (the storing and finishing rules above).

    The one-shot reader and a streaming one share it: ``close`` is called with each
    region's whole body, ``finish`` once at the end."""

    __slots__ = ("output", "parameters", "rules", "strip", "template")

    def __init__(
        self,
        template: ResponseTemplate,
        parameters: ToolParameters,
        rules: Rules | None = None,
        *,
        strip: bool = False,
    ) -> None:
        self.template = template
        self.parameters = parameters
        self.rules = rules_for(None) if rules is None else rules
        self.strip = strip  # read from token-tagged text: take out control.MARKER
        self.output: dict[str, Any] = template.defaults()

    def close(self, field: Field, body: str, captures: Mapping[str, str]) -> Any:
        """Parse a closed region's body, type its calls, store it; returns the value."""
        rules = self.rules
        value = region_value(body, field, captures, rules)
        if self.strip:
            value = strip_markers(value)
        if self.parameters and rules.types_region(field.content_args):
            try:
                value = coerce_tool_calls(
                    value, self.parameters, keep_strings=rules.keeps_strings(field.content)
                )
            except Exception as exc:  # e.g. RecursionError from a deeply nested argument
                named = name_field(exc, field.name)
                if named is exc:
                    raise
                raise named from exc
        out = self.output
        if field.join is not None:
            if not isinstance(value, str):
                raise ValueError(
                    f"Field '{field.name}': 'join' requires each match to parse to a string, "
                    f"got {type(value).__name__}."
                )
            previous = out.get(field.name)
            out[field.name] = value if previous is None else previous + field.join + value
        elif field.repeats:
            out.setdefault(field.name, []).append(value)
        else:
            out[field.name] = value
        return value

    def finish(self) -> dict[str, Any]:
        """The message: required fields checked, empty non-default keys dropped."""
        missing = [
            f.name for f in self.template.fields if not f.optional and f.name not in self.output
        ]
        if missing:
            raise ValueError(
                f"Required response_template fields missing from parsed output: {missing}"
            )
        defaults = self.template.default_values
        return {k: v for k, v in self.output.items() if k in defaults or not _empty(v)}


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, (list, dict, str)) and not value)


def match_key(kind: str, field: Field, m: re.Match[str]) -> MatchKey:
    """The order in which competing matches win: earliest, longest, opener, field name."""
    return (m.start(), m.start() - m.end(), 0 if kind == "open" else 1, field.name)


def watched(template: ResponseTemplate, current: Field | None) -> list[tuple[str, Field]]:
    """What can end the current region: its own closer inside an explicit region; else
    every opener and the implicit field's closer."""
    if current is not None and current is not template.implicit:
        return [("close", current)] if current.close is not None else []
    out = [("open", f) for f in template.fields if f.open is not None]
    implicit = template.implicit
    if implicit is not None and implicit.close is not None:
        out.append(("close", implicit))
    return out


def prefix_remainder(template: ResponseTemplate, prefix: str) -> str:
    """The part of the prompt that belongs to the output: after the last start anchor, or
    all of it when the anchor is not there."""
    last_end: int | None = None
    for m in template.start_anchor.pattern.finditer(prefix):
        last_end = m.end()
    if last_end is None:
        import logging  # only here: the message is rare, and logging is slow to import

        kind = "start_anchor" if template.start_anchor.is_literal else "start_anchor_pattern"
        logging.getLogger(__name__).info(
            "response_template defines %s but the anchor was not found in the prefix; the "
            "parser will process the entire prefix instead.",
            kind,
        )
        return prefix
    return prefix[last_end:]


class _Reader:
    """The regions of one whole text, read in one forward pass (the rules above)."""

    __slots__ = ("captures", "current", "found", "message", "opened", "parts", "template", "text")

    def __init__(self, template: ResponseTemplate, message: Message, text: str) -> None:
        self.template = template
        self.message = message
        self.text = text
        self.current: Field | None = template.implicit
        self.captures: dict[str, str] = {}
        self.parts: list[str] = []
        self.opened = False
        # (kind, field name) -> (searched from, first match from there or None)
        self.found: dict[tuple[str, str], tuple[int, re.Match[str] | None]] = {}

    def search(self, kind: str, field: Field, pos: int) -> re.Match[str] | None:
        anchor = field.open if kind == "open" else field.close
        assert anchor is not None
        key = (kind, field.name)
        seen = self.found.get(key)
        if seen is not None and seen[0] <= pos and (seen[1] is None or seen[1].start() >= pos):
            return seen[1]
        if anchor.ahead is not None:
            m = _at(self.text, pos) if anchor.ahead.search(self.text, pos) is not None else None
        else:
            m = anchor.pattern.search(self.text, pos)
        if not _patterns.uses_search_start(anchor.pattern):
            self.found[key] = (pos, m)
        return m

    def run(self) -> None:
        text, template = self.text, self.template
        pos = 0
        while True:
            best: tuple[str, Field, re.Match[str]] | None = None
            best_key: MatchKey | None = None
            for kind, field in watched(template, self.current):
                m = self.search(kind, field, pos)
                if m is None:
                    continue
                key = match_key(kind, field, m)
                if best_key is None or key < best_key:
                    best_key, best = key, (kind, field, m)
            if best is None:
                self.add(text[pos:])
                self.close_current()
                return
            kind, field, m = best
            self.add(text[pos : m.start()])
            pos = m.end()
            if kind == "open":
                self.close_current()
                self.current = field
                self.captures = _captures(m)
                self.parts = []
                self.opened = True
                continue
            had_content = self.opened
            self.captures.update(_captures(m))
            self.close_current()
            if not had_content and m.start() == m.end():
                return

    def add(self, piece: str) -> None:
        if piece and self.current is not None:
            self.opened = True
            self.parts.append(piece)

    def close_current(self) -> None:
        if self.current is not None and self.opened:
            self.message.close(self.current, "".join(self.parts), self.captures)
        self.current = self.template.implicit
        self.captures = {}
        self.parts = []
        self.opened = False


_EMPTY = re.compile("")


def _at(text: str, pos: int) -> re.Match[str]:
    """A zero-width match at ``pos`` with no groups (what a scan-ahead anchor matches)."""
    m = _EMPTY.match(text, pos)
    assert m is not None
    return m


def _captures(m: re.Match[str]) -> dict[str, str]:
    return {k: v for k, v in m.groupdict().items() if v is not None}


def parse_response(
    text: str | Iterable[TaggedText],
    template: Mapping[str, Any] | ResponseTemplate,
    *,
    prefix: str | None = None,
    tools: Iterable[Any] | None = None,
    transformers_version: str | None = None,
    control_tokens: Iterable[str] | None = None,
) -> dict[str, Any]:
    """The message dict a response template reads from a whole model output.

    A drop-in for transformers' ``parse_response(text, response_template, prefix=,
    tools=)``: the same dict for the same arguments, and the same exception types where it
    raises (an invalid template and a missing ``prefix`` are ``ValueError``s, a region its
    content parser rejects raises what that parser raises; messages name the field).
    ``prefix`` is the prompt that came before the output and is required, as there;
    ``prefix=""`` says there was none. ``tools`` (OpenAI-style function tools) type the
    arguments of the calls read. ``transformers_version`` picks the release whose reading
    this follows (``"5.24"``, ``"5.25.0"``, ``transformers.__version__``; the newest, 5.25,
    by default: ``versions``). With ``control_tokens`` (the spellings of the tokenizer's
    control tokens), ``text`` is token-tagged: ``(text, is_control)`` pieces, and a control
    token the model spelled out with ordinary tokens is text, never a delimiter, as
    transformers 5.25 reads token ids (``control``). docs/response-templates.md lists where
    the two differ."""
    compiled = compile_template(template)
    rules = rules_for(transformers_version)
    if prefix is None:
        raise ValueError(PREFIX_REQUIRED)
    if control_tokens is not None:
        if isinstance(text, str):
            raise TypeError(
                "parse_response: with control_tokens, text is token-tagged: a list of "
                "(text, is_control) pieces"
            )
        decoder = ControlTokenText(control_tokens)
        text = decoder.feed(text) + decoder.flush()
    elif text is not None and not isinstance(text, str):
        text = "".join(piece for piece, _ in text)
    parameters = tool_parameters(tools)
    whole = prefix_remainder(compiled, prefix) if prefix else ""
    if text:
        whole += text
    message = Message(compiled, parameters, rules, strip=control_tokens is not None)
    _Reader(compiled, message, whole).run()
    return message.finish()
