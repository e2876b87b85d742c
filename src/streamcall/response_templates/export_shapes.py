r"""The shapes many formats share, as builders of a response template (``Exported``).

``export`` declares each built-in format's response template with these builders; this
module holds only the shapes, never a format's own markers. Rules: a builder returns an
``Exported`` (the template, the markers that start its calls, and what of the format's
syntax the template does not read as streamcall does: ``limits``, in plain words); a
marker given as a literal is escaped (``esc``), one given as a pattern is used as is.

How the formats are expressed (the shapes shared by many):

- The text outside calls is the implicit ``content`` field, ``repeats`` with ``join: ""``
  and ``strip: false``: every piece of it, verbatim and in order (a field that does not
  repeat would keep only its last piece).
- A call's closer also takes the whitespace after it when another call or the end of the
  output follows (``END(?:\s*(?=START)|\s*\Z)?``): streamcall drops the whitespace between
  calls and after the last one, and keeps whitespace before text.
- The markers around a group of calls (``<|tool_calls_section_begin|>``) are the content
  field's closer: closing the content there drops them, and the calls inside open their
  own regions.
- A format with no closer after a call's JSON (``[TOOL_CALLS]name[ARGS]{...}``) closes it
  just after a ``}`` that no other brace follows before the next call or the end; one
  whose calls are a list with no closer, after the last ``]``.
- Arguments written as XML-like tags are ``xml-inline`` with text values, typed by the
  request's tools as transformers types them (a string parameter keeps ``"3"``, an integer
  one gets ``3``); streamcall types them the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BY_CONTENT",
    "BY_NAME",
    "CONTENT_FIELD",
    "EACH",
    "TEXT_VALUES",
    "Exported",
    "after_last",
    "after_object",
    "bare_json",
    "calls_list",
    "esc",
    "header_json",
    "json_after_marker",
    "json_list",
    "json_tagged",
    "message_template",
    "section_closer",
    "tagged_params",
    "then_ws",
]


@dataclass(frozen=True, slots=True)
class Exported:
    """A format's response template, the markers that start its calls, and what of the
    format's syntax the template does not read as streamcall does."""

    template: Mapping[str, Any]
    markers: tuple[str, ...]
    limits: str = ""


def esc(literal: str) -> str:
    return re.escape(literal)


CONTENT_FIELD: dict[str, Any] = {"repeats": True, "join": "", "content_args": {"strip": False}}
BY_CONTENT = {
    "type": "function",
    "function": {"name": "{content.name}", "arguments": "{content.arguments}"},
}
BY_NAME = {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}
EACH = {"type": "function", "function": {"name": "{name}", "arguments": "{arguments}"}}
TEXT_VALUES = {"name": "text", "args": {"strip": False}}


def message_template(
    start: str | list[str], calls: dict[str, Any], content: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "defaults": {"role": "assistant"},
        "start_anchor": start,
        "fields": {"content": {**CONTENT_FIELD, **(content or {})}, "tool_calls": calls},
    }


def then_ws(closer: str, next_call: str) -> str:
    """``closer``, and the whitespace after it when another call or the end follows."""
    return f"{closer}(?:\\s*(?=(?:{next_call}))|\\s*\\Z)?"


def section_closer(begin: tuple[str, ...], end: str, *, regex: bool = False) -> dict[str, Any]:
    """The content field's closer that drops a group's markers (literals, or with
    ``regex`` patterns)."""
    quote = (lambda s: s) if regex else esc
    opens = "|".join(quote(b) for b in begin)
    return {"close_pattern": f"(?:{opens})\\s*|\\s*{quote(end)}(?:\\s*\\Z)?"}


def after_object(next_call: str) -> str:
    """Just after a ``}`` with no brace before the next call or the end (zero-width),
    and the whitespace after it when another call or the end follows."""
    return f"(?<=\\}})(?=[^{{}}]*?(?:{next_call}|\\Z))(?:\\s*(?=(?:{next_call}))|\\s*\\Z)?"


def after_last(char: str) -> str:
    """Just after the last ``char`` of the output (zero-width), with the whitespace after
    it when nothing else follows."""
    return f"(?<={esc(char)})(?![\\s\\S]*{esc(char)})(?:\\s*\\Z)?"


def json_tagged(
    start: str, opener: str, closer: str, args: str = "arguments", opener_pattern: str | None = None
) -> Exported:
    """``OPEN {"name": ..., "<args>": {...}} CLOSE``, repeated (``opener_pattern``: a
    pattern for the opener instead of the literal)."""
    transform = {
        "type": "function",
        "function": {"name": "{content.name}", "arguments": f"{{content.{args}}}"},
    }
    starts = opener_pattern or esc(opener)
    calls = {
        "open_pattern": starts,
        "close_pattern": then_ws(esc(closer), starts),
        "repeats": True,
        "content": "json",
        "transform": transform,
    }
    return Exported(
        message_template(start, calls),
        (opener,),
        f"Reads `{opener}` JSON `{closer}` with the name first and `{args}` as an object; "
        "arguments written as a JSON string stay that string, and other key names, several "
        "objects in one block, or an object whose JSON does not parse raise instead of "
        "becoming text.",
    )


def json_list(
    start: str | list[str],
    opener: str,
    closer: str | None,
    name: str = "name",
    args: str = "arguments",
    note: str = "",
) -> Exported:
    """``OPEN [{"name": ..., "arguments": {...}}, ...] CLOSE?``: one list of calls (``note``:
    more limits, appended)."""
    calls: dict[str, Any] = {
        "open": opener,
        "close_pattern": f"{esc(closer)}(?:\\s*\\Z)?" if closer else after_last("]"),
        "content": "json",
        "transform_each": True,
        "transform": {
            "type": "function",
            "function": {"name": f"{{{name}}}", "arguments": f"{{{args}}}"},
        },
    }
    where = f"up to `{closer}`" if closer else "up to the last `]` of the output"
    return Exported(
        message_template(start, calls),
        (opener,),
        f"Reads one list of calls after `{opener}`, {where}; a second list replaces the "
        "first (the field does not repeat: each list is already a list of calls)." + note,
    )


def tagged_params(
    start: str,
    call_open: str,
    call_close: str,
    next_call: str,
    param: str,
    section: tuple[tuple[str, ...], str] | None = None,
    markers: tuple[str, ...] = (),
    section_regex: bool = False,
    note: str = "",
) -> Exported:
    """Calls whose arguments are tags (``<parameter=KEY>VALUE</parameter>``), values as
    text (one newline after the opening tag and before the closing one dropped)."""
    calls: dict[str, Any] = {
        "open_pattern": call_open,
        "close_pattern": then_ws(call_close, next_call),
        "repeats": True,
        "content": "xml-inline",
        "content_args": {"tag_pattern": param, "value_parser": TEXT_VALUES},
        "transform": BY_NAME,
    }
    content = section_closer(*section, regex=section_regex) if section is not None else None
    return Exported(
        message_template(start, calls, content),
        markers,
        "Values are typed by the request's tools; without them (or for a parameter they do "
        "not declare) every value stays a string, where streamcall reads numbers, "
        "true/false/null and JSON containers as JSON. A value whose closing tag is missing "
        "runs to the next closing tag." + note,
    )


def calls_list(start: str, opener: str, closer: str) -> Exported:
    """``OPEN [name(k=v, ...), ...] CLOSE``: a Python-style list of calls."""
    calls = {
        "open": opener,
        "close_pattern": f"{esc(closer)}(?:\\s*\\Z)?",
        "content": "python-call-list",
        "transform_each": True,
        "transform": EACH,
    }
    return Exported(
        message_template(start, calls),
        (opener,),
        "The list must keep python-call-list's strict grammar (keyword arguments only, "
        "integers within 2^53, no trailing commas); streamcall also reads Python literals "
        "beyond it. A second list replaces the first.",
    )


def header_json(
    start: str,
    section: tuple[tuple[str, ...], str],
    call_open: str,
    call_close: str,
    markers: tuple[str, ...],
    next_call: str | None = None,
    note: str = "",
) -> Exported:
    """Calls in a section, each a header naming the function and a JSON object (with
    ``next_call``, the closer takes the whitespace after it only before that or the end:
    for formats that keep it before text)."""
    calls = {
        "open_pattern": call_open,
        "close_pattern": call_close + "\\s*"
        if next_call is None
        else then_ws(call_close, next_call),
        "repeats": True,
        "content": "json",
        "transform": BY_NAME,
    }
    return Exported(
        message_template(start, calls, section_closer(*section)),
        markers,
        "Arguments must be a JSON object; a call cut off, or arguments that do not parse, "
        "raise instead of becoming text." + note,
    )


def json_after_marker(
    start: str, call_open: str, next_call: str, *, by_name: bool, markers: tuple[str, ...]
) -> Exported:
    """``MARKER {...}`` repeated with no closer: each call ends after its object."""
    calls = {
        "open_pattern": call_open,
        "close_pattern": after_object(next_call),
        "repeats": True,
        "content": "json",
        "transform": BY_NAME if by_name else BY_CONTENT,
    }
    return Exported(
        message_template(start, calls),
        markers,
        "A call ends after its JSON object; text after the last call must hold no `{` or "
        "`}` (the template finds the object's end as the last brace before the next call "
        "or the end).",
    )


def bare_json(
    start: str, args: str, lead: str = "", markers: tuple[str, ...] = ('{"name"',)
) -> Exported:
    """``{"name": ..., "<args>": {...}}`` in text, calls separated by ``;``."""
    opener = lead + '\\{\\s*"name"\\s*:\\s*"(?P<name>[^"\\\\]+)"\\s*,\\s*"' + args + '"\\s*:\\s*'
    calls = {
        "open_pattern": opener,
        "close_pattern": r"\s*\}(?:\s*;\s*(?=\{)|(?=[^{}]*\Z)(?:\s*\Z)?)",
        "repeats": True,
        "content": "json",
        "transform": BY_NAME,
    }
    return Exported(
        message_template(start, calls),
        markers,
        f'Reads `{{"name": "...", "{args}": {{...}}}}` with the keys in that order (streamcall '
        "takes them in any order); a call ends at the `}` before a `;` and another call, or "
        "at the last brace of the output.",
    )
