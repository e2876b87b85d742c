"""How the streaming reader of response templates is checked against the one-shot dict.

``outcome(template, text, chunks, ...)`` runs ``response_parser`` over one chunking and
folds its events (``streamcall.testing.coalesce``: the contract's invariants) into a
:class:`View`: the joined ``Text``, the joined ``Reasoning``, the calls as ``(name,
arguments)``, and whether a ``StreamError`` came. ``expected(...)`` is the same view of
``parse_response``'s dict, read with the template's ``content``/``thinking``/``tool_calls``
fields made to keep every region (``repeats``, and ``join: ""`` for text): the stream
shows every region of a field as it is read, where the dict of a field that does not
repeat keeps the last one (docs/response-templates.md). ``same_as_dict`` says whether
that made a difference for this text.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

from streamcall.events import StreamError
from streamcall.response_templates import parse_response
from streamcall.response_templates.stream import (
    CALL_FIELDS,
    CONTENT_FIELDS,
    REASONING_FIELDS,
    calls_of,
    response_parser,
)
from streamcall.testing import Call, coalesce, run

# The transformers release the reading follows: the installed one (scripts/test-transformers
# runs these files beside 5.24.0 and 5.25.0), else None, the newest streamcall follows.
try:
    from importlib.metadata import PackageNotFoundError, version

    READ_AS: str | None = version("transformers")
except PackageNotFoundError:
    READ_AS = None


@dataclass(frozen=True)
class View:
    """content, reasoning and calls of one reading, and whether it failed."""

    content: str
    reasoning: str
    calls: tuple[tuple[str, Any], ...]
    failed: bool = False


def _calls(pairs: Any) -> tuple[tuple[str, Any], ...]:
    return tuple((name, json.loads(arguments)) for name, arguments in pairs)


def outcome(
    template: Any, chunks: list[str], *, prefix: str = "", tools: Any = None
) -> tuple[View, Any]:
    """The coalesced events of one chunking as a view, and ``message()``'s outcome."""
    parser = response_parser(
        copy.deepcopy(template),
        tools=copy.deepcopy(tools),
        prefix=prefix,
        transformers_version=READ_AS,
    )
    events = run(parser, chunks)
    items = coalesce(events)
    content = "".join(v for k, v in items if k == "text" and isinstance(v, str))
    reasoning = "".join(v for k, v in items if k == "reasoning" and isinstance(v, str))
    calls = tuple(
        (v.name, json.loads(v.arguments)) for k, v in items if k == "call" and isinstance(v, Call)
    )
    failed = any(isinstance(e, StreamError) for e in events)
    try:
        message: Any = ("value", _dumps(parser.message()))
    except Exception as exc:
        message = ("raises", type(exc))
    return View(content, reasoning, calls, failed), message


def one_shot(template: Any, text: str, *, prefix: str = "", tools: Any = None) -> Any:
    """``parse_response``'s outcome: ``("value", dict)`` or ``("raises", type)``."""
    try:
        value = parse_response(
            text,
            copy.deepcopy(template),
            prefix=prefix,
            tools=copy.deepcopy(tools),
            transformers_version=READ_AS,
        )
    except Exception as exc:
        return "raises", type(exc)
    return "value", _dumps(value)


def _dumps(value: Any) -> str:
    """A message as JSON text: comparable even with a NaN in it."""
    return json.dumps(value, ensure_ascii=False)


def every_region(template: Any) -> Any:
    """``template`` with its content, reasoning and call fields keeping every region."""
    out = copy.deepcopy(template)
    for name, spec in out.get("fields", {}).items():
        if not isinstance(spec, dict) or spec.get("repeats"):
            continue
        if name in CONTENT_FIELDS or name in REASONING_FIELDS:
            spec["repeats"] = True
            if spec.get("content", "text") == "text" and spec.get("transform") is None:
                spec["join"] = ""
        elif name in CALL_FIELDS:
            spec["repeats"] = True
    return out


def view(message: dict[str, Any]) -> View:
    """The view of a message dict."""

    def text(value: Any) -> str:
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            return "".join(x for x in value if isinstance(x, str))
        return ""

    content = "".join(text(message.get(n)) for n in CONTENT_FIELDS)
    reasoning = "".join(text(message.get(n)) for n in sorted(REASONING_FIELDS))
    calls: tuple[tuple[str, Any], ...] = ()
    for n in CALL_FIELDS:
        if n in message:
            calls += _calls(calls_of(message[n]))
    return View(content, reasoning, calls)


def expected(
    template: Any, text: str, *, prefix: str = "", tools: Any = None
) -> tuple[Any, View | None, bool]:
    """``(one-shot outcome, the view the events must give or None, same_as_dict)``.

    The view is None where the one-shot parse raises: the stream then reports a
    ``StreamError`` instead."""
    exact = one_shot(template, text, prefix=prefix, tools=tools)
    if exact[0] == "raises":
        return exact, None, True
    kept = one_shot(every_region(template), text, prefix=prefix, tools=tools)
    if kept[0] == "raises":  # a field that cannot join: compare with the dict itself
        return exact, view(json.loads(exact[1])), True
    want = view(json.loads(kept[1]))
    return exact, want, want == view(json.loads(exact[1]))
