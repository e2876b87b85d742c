"""transformers' own response parsing, as a reference to test against.

Given a response template (a dict), a model output and optionally the request's tools, this
returns what ``transformers.utils.chat_parsing`` makes of it: the message dict of one-shot
``parse_response``, the dict its streaming ``ResponseParser`` gives for a chunking, or the
name of the exception it raised. transformers is imported on first use only, so the module
loads where it is missing; :func:`skip_reason` says why it cannot run, for ``pytest.skip``.

Everything here goes through transformers' public entry points (``parse_response``,
``ResponseParser``), except :func:`coerce` / :func:`schema_types` / :func:`coerce_tool_calls`,
which reach the private helpers that type tool arguments, because transformers' own tests
pin those directly and the fixtures port that data too.

The module imports nothing from streamcall, so it also runs under an interpreter that has
transformers but not streamcall (``check_transformers_fixtures.py`` does that).
"""

from __future__ import annotations

import copy
import itertools
import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "response_templates"
CASES_FILE = FIXTURES / "transformers_cases.json"
ECOSYSTEM_FILE = FIXTURES / "ecosystem_templates.json"
DIFFERENCES_FILE = FIXTURES / "transformers_stream_differences.json"

# The version the ported fixtures were checked with; another version may differ.
REFERENCE_VERSION = "5.24.0"
# Fixed chunk sizes transformers' own streaming tests use.
CHUNK_STEPS = (1, 2, 3, 5, 7, 13, 31)

_modules: dict[str, ModuleType] = {}
_import_error: str | None = None


def _load() -> dict[str, ModuleType] | None:
    global _import_error
    if _modules:
        return _modules
    if _import_error is not None:
        return None
    try:
        import transformers
        from transformers.utils import chat_parsing
        from transformers.utils.chat_parsing import response_parser
    except Exception as exc:  # ImportError, or a broken install
        _import_error = f"transformers is not importable: {type(exc).__name__}: {exc}"
        return None
    _modules.update(
        transformers=transformers, chat_parsing=chat_parsing, response_parser=response_parser
    )
    return _modules


def skip_reason() -> str | None:
    """Why the reference cannot run here, or None when it can."""
    if _load() is None:
        return _import_error
    return None


def version() -> str:
    """The installed transformers version (raises when it is not installed)."""
    mods = _require()
    return str(mods["transformers"].__version__)


def _require() -> dict[str, ModuleType]:
    mods = _load()
    if mods is None:
        raise RuntimeError(_import_error)
    return mods


@dataclass(frozen=True, slots=True)
class Outcome:
    """What transformers did with one input: a value, or an exception."""

    value: Any = None
    error: str | None = None  # the exception's class name
    message: str = ""
    events: list[dict[str, Any]] = field(default_factory=list)

    def describe(self) -> str:
        if self.error is not None:
            return f"{self.error}: {self.message}"
        return json.dumps(self.value, sort_keys=True, ensure_ascii=False)


def _failed(exc: BaseException) -> Outcome:
    return Outcome(error=type(exc).__name__, message=str(exc))


def parse(
    template: dict[str, Any],
    text: str,
    *,
    prefix: str | None = "",
    tools: list[dict[str, Any]] | None = None,
) -> Outcome:
    """transformers' one-shot ``parse_response(text, template, prefix=, tools=)``.

    ``prefix=None`` is passed through as it is: transformers then raises, as it requires the
    prompt (``""`` opts out)."""
    mods = _require()
    try:
        value = mods["chat_parsing"].parse_response(
            text, copy.deepcopy(template), prefix=prefix, tools=copy.deepcopy(tools)
        )
    except Exception as exc:
        return _failed(exc)
    return Outcome(value=value)


def parse_chunks(
    template: dict[str, Any],
    chunks: Iterable[str],
    *,
    prefix: str | None = "",
    tools: list[dict[str, Any]] | None = None,
) -> Outcome:
    """transformers' streaming ``ResponseParser`` fed ``chunks`` in order, then finalized.

    The outcome's ``events`` are ``initial_events``, then those of every ``feed``, then those
    of ``finalize``, each tagged with ``"feed"``: its chunk's index (-1 for the prefix, the
    number of chunks for finalize)."""
    mods = _require()
    events: list[dict[str, Any]] = []
    try:
        parser = mods["chat_parsing"].ResponseParser(
            copy.deepcopy(template), prefix=prefix, tools=copy.deepcopy(tools)
        )
        events.extend({**e, "feed": -1} for e in parser.initial_events)
        fed = 0
        for chunk in chunks:
            events.extend({**e, "feed": fed} for e in parser.feed(chunk))
            fed += 1
        message, final = parser.finalize()
        events.extend({**e, "feed": fed} for e in final)
    except Exception as exc:
        return Outcome(error=type(exc).__name__, message=str(exc), events=events)
    return Outcome(value=message, events=events)


def chunk_fixed(text: str, step: int) -> list[str]:
    """``text`` in pieces of ``step`` characters (the last may be shorter)."""
    return [text[i : i + step] for i in range(0, len(text), step)] or [""]


def chunk_random(text: str, rng: random.Random) -> list[str]:
    """``text`` cut at a random number of random places (every piece non-empty)."""
    if len(text) <= 1:
        return [text]
    cuts = sorted(rng.sample(range(1, len(text)), rng.randint(0, len(text) - 1)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def chunkings(text: str, *, seed: int = 0, randoms: int = 10) -> list[tuple[str, list[str]]]:
    """Named chunkings of ``text``: whole, every step of :data:`CHUNK_STEPS`, and ``randoms``
    seeded random cuts."""
    out: list[tuple[str, list[str]]] = [("whole", [text])]
    out += [(f"step {s}", chunk_fixed(text, s)) for s in CHUNK_STEPS]
    rng = random.Random(seed)
    out += [(f"random {i}", chunk_random(text, rng)) for i in range(randoms)]
    return out


def flushed(template: dict[str, Any], text: str, *, prefix: str | None = "") -> str:
    """The region text a single ``feed(text)`` releases (what is not held back)."""
    out = parse_chunks_open(template, [text], prefix=prefix)
    return "".join(e["text"] for e in out if e["type"] == "region_chunk")


def parse_chunks_open(
    template: dict[str, Any], chunks: Sequence[str], *, prefix: str | None = ""
) -> list[dict[str, Any]]:
    """The events of feeding ``chunks`` without finalizing (what a stream has shown so far)."""
    mods = _require()
    parser = mods["chat_parsing"].ResponseParser(copy.deepcopy(template), prefix=prefix)
    events = list(parser.initial_events)
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    return events


def coerce(raw: str, types: Sequence[str]) -> Any:
    """transformers' cast of one string argument to the first schema type it fits."""
    return _require()["response_parser"]._coerce(raw, tuple(types))


def schema_types(schema: Any) -> list[str]:
    """The candidate JSON-schema types transformers reads off one parameter's schema."""
    return list(_require()["response_parser"]._schema_types(schema))


def coerce_tool_calls(tools: list[dict[str, Any]], value: Any) -> Any:
    """A parsed tool-call region value with its string arguments typed by ``tools``."""
    mods = _require()
    template = {"start_anchor": "\x00", "fields": {"content": {}}}
    parser = mods["chat_parsing"].ResponseParser(template, prefix="", tools=copy.deepcopy(tools))
    return parser._coerce_tool_calls(copy.deepcopy(value))


def json_schema(function: Any) -> dict[str, Any]:
    """transformers' ``get_json_schema`` of a Python function (the tools= conversion)."""
    from transformers.utils.chat_template_utils import get_json_schema

    return dict(get_json_schema(function))


# The fixture file.


def load_cases() -> dict[str, Any]:
    """The ported fixtures: ``source``, ``templates`` (shared, by name), ``cases`` and the
    unit-level ``coerce_cases``, ``schema_types_cases`` and ``coerce_call_cases``."""
    data: dict[str, Any] = json.loads(CASES_FILE.read_text(encoding="utf-8"))
    return data


def load_ecosystem() -> dict[str, Any]:
    """Templates others ship: ``trl`` (TRL's, by name) and ``transformers_serve`` (the
    fallbacks ``transformers serve`` uses, keyed by the model types joined with ``+``)."""
    data: dict[str, Any] = json.loads(ECOSYSTEM_FILE.read_text(encoding="utf-8"))
    return data


def load_differences() -> dict[str, Any]:
    """Where transformers' stream and its one-shot parse differ (``disagreements``: a
    chunking, and both results) and one-shot quirks worth pinning (``quirks``)."""
    data: dict[str, Any] = json.loads(DIFFERENCES_FILE.read_text(encoding="utf-8"))
    return data


def resolve_template(template: str | dict[str, Any]) -> dict[str, Any]:
    """A template given inline, or as ``SOURCE:NAME`` in ``ecosystem_templates.json``."""
    if isinstance(template, dict):
        return template
    source, name = template.split(":", 1)
    named: dict[str, Any] = load_ecosystem()[source][name]
    return named


def case_template(data: dict[str, Any], case: dict[str, Any]) -> dict[str, Any]:
    """A case's template: named ones live in ``data["templates"]``."""
    tmpl = case["template"]
    if isinstance(tmpl, str):
        named: dict[str, Any] = data["templates"][tmpl]
        return named
    return dict(tmpl)


def select(value: Any, path: Sequence[str | int] | None) -> Any:
    """``value`` followed down ``path`` (dict keys and list indices)."""
    for key in path or ():
        value = value[key]
    return value


def check_outcome(case: dict[str, Any], got: Outcome) -> str | None:
    """None when ``got`` is what the case expects, else what differs."""
    want_error = case.get("expected_error")
    if want_error is not None:
        if got.error != want_error["type"]:
            return f"expected {want_error['type']}, got {got.describe()}"
        pattern = want_error.get("match")
        if pattern and not re.search(pattern, got.message):
            return f"{got.error} message {got.message!r} does not match {pattern!r}"
        return None
    if got.error is not None:
        return f"expected a value, got {got.describe()}"
    try:
        value = select(got.value, case.get("expected_path"))
    except (KeyError, IndexError, TypeError) as exc:
        return f"no {case.get('expected_path')} in {got.describe()} ({exc!r})"
    if value != case["expected"]:
        return f"expected {json.dumps(case['expected'], sort_keys=True)}, got {json.dumps(value, sort_keys=True)}"
    return None
