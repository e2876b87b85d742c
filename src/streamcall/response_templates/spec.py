"""Response templates (version 1): validation, compilation and loading.

A response template is the declarative description of a model's output that transformers
(5.13 and later) reads from a checkpoint's ``tokenizer_config.json`` (its
``response_template`` key)::

    {"version": 1,                                   optional; only 1 is known
     "defaults": {...},                              copied into every result
     "start_anchor": str | [str, ...]                exactly one of the two: where the
       | "start_anchor_pattern": regex,              assistant message starts in a prompt
     "fields": {NAME: {
         "open": str | [str, ...] | "open_pattern": regex,     none: the implicit field
         "close": str | [str, ...] | "close_pattern": regex,   none: runs to the end
         "content": "text" | "int" | "float" | "bool" | "json" | "xml-inline"
                    | "kv-lines" | "python-call-list",
         "content_args": {...}, "repeats": bool, "join": str, "optional": bool,
         "transform": JSON-like, "transform_each": bool}}}

:func:`compile_template` checks a template the way transformers'
``load_response_template`` does, in the same order, raising the same ``ValueError``
messages (each names the field), and compiles it into a :class:`ResponseTemplate`: every
anchor is one :class:`Anchor` (a pattern with ``DOTALL``; a literal or a list of literals
becomes the alternation of the escaped literals, longest first, and keeps the literals),
and every field one :class:`Field`. Both are frozen (``compiled`` holds those types; they
are re-exported here); the one-shot parser and a streaming one read the same compiled
template. What transformers leaves unchecked until a region
closes (``content_args``, ``tag_pattern``, a ``value_parser``'s name) is left unchecked
here too, so that it fails at the same moment with the same exception type.

:func:`load_response_template` reads a template from wherever one is kept: a dict, a
``tokenizer_config.json``, a model directory, or a JSON file holding either.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from streamcall.response_templates import _patterns
from streamcall.response_templates.compiled import Anchor, Field, ResponseTemplate
from streamcall.response_templates.content import CONTENT_PARSERS, validate_transform_strings

__all__ = [
    "Anchor",
    "Field",
    "ResponseTemplate",
    "TemplateSource",
    "compile_template",
    "load_response_template",
]

_TEMPLATE_KEYS = frozenset(
    {"version", "defaults", "fields", "start_anchor", "start_anchor_pattern"}
)
_FIELD_KEYS = frozenset(
    {
        "open",
        "open_pattern",
        "close",
        "close_pattern",
        "content",
        "content_args",
        "repeats",
        "join",
        "optional",
        "transform",
        "transform_each",
    }
)


def _kind(value: Any) -> str:
    return type(value).__name__


def _anchor(
    scope: str, spec: Mapping[str, Any], literal_key: str, pattern_key: str
) -> Anchor | None:
    if literal_key in spec and pattern_key in spec:
        raise ValueError(f"{scope}: cannot specify both '{literal_key}' and '{pattern_key}'")
    if literal_key in spec:
        raw = spec[literal_key]
        if isinstance(raw, str):
            literals = [raw]
        elif isinstance(raw, list):
            if not raw:
                raise ValueError(f"{scope}: '{literal_key}' list must contain at least one literal")
            if not all(isinstance(s, str) for s in raw):
                raise ValueError(f"{scope}: '{literal_key}' list must contain only strings")
            literals = list(dict.fromkeys(raw))
        else:
            raise ValueError(
                f"{scope}: '{literal_key}' must be a string or list of strings, got {_kind(raw)}"
            )
        if any(s == "" for s in literals):
            raise ValueError(f"{scope}: '{literal_key}' literals cannot be empty strings")
        # Longest first, so that the alternation takes the longer of two literals that both
        # match at one place.
        longest_first = sorted(literals, key=len, reverse=True)
        source = "|".join(_patterns.escape(s) for s in longest_first)
        can_extend = any(a != b and a.startswith(b) for a in literals for b in literals)
        return Anchor(_patterns.compile_pattern(source), tuple(literals), can_extend)
    if pattern_key in spec:
        source = spec[pattern_key]
        try:
            return Anchor(_patterns.compile_pattern(source), ahead=_scan_ahead(source))
        except _patterns.PatternError as exc:
            raise ValueError(f"{scope}: invalid {pattern_key} regex: {exc}") from exc
        except TypeError as exc:  # not a string
            raise TypeError(f"{scope}: {pattern_key} must be a string: {exc}") from exc
    return None


# ``(?=`` and a forward scan over any characters (DOTALL is always on), lazy or greedy.
_SCAN_AHEAD = re.compile(r"\(\?=(?:\[\\s\\S\]|\[\\S\\s\]|\.)\*\??")


def _scan_ahead(source: Any) -> re.Pattern[str] | None:
    """``X`` of a pattern that is exactly ``(?=SCAN X)`` (see ``Anchor.ahead``), or None.

    ``X`` must compile on its own, which also proves that the final ``)`` closes the
    lookahead (``(?=.*?a)|(?=b)`` leaves ``a)|(?=b``, which does not compile)."""
    if not isinstance(source, str) or not source.endswith(")"):
        return None
    scan = _SCAN_AHEAD.match(source)
    if scan is None:
        return None
    try:
        inner = _patterns.compile_pattern(source[scan.end() : -1])
    except (_patterns.PatternError, TypeError):
        return None
    if inner.groupindex or _patterns.uses_search_start(inner):
        return None
    return inner


def _check_shape(spec: Any) -> None:
    if not isinstance(spec, dict):
        raise ValueError(f"response_template must be a dict, got {_kind(spec)}")
    version = spec.get("version", 1)
    if version != 1:
        raise ValueError(f"Unsupported response_template version: {version}")
    unknown = set(spec) - _TEMPLATE_KEYS
    if unknown:
        raise ValueError(f"Unknown keys in response_template: {sorted(unknown)}")
    if not isinstance(spec.get("defaults", {}), dict):
        raise ValueError("response_template.defaults must be a dict")
    fields = spec.get("fields", {})
    if not isinstance(fields, dict) or not fields:
        raise ValueError("response_template.fields must be a non-empty dict")


def _field(name: str, spec: Any) -> Field:
    scope = f"Field '{name}'"
    if not isinstance(spec, dict):
        raise ValueError(f"{scope} must be a dict")
    unknown = set(spec) - _FIELD_KEYS
    if unknown:
        raise ValueError(f"{scope}: unknown keys {sorted(unknown)}")
    content = spec.get("content", "text")
    try:
        known = content in CONTENT_PARSERS
    except TypeError as exc:  # an unhashable value
        raise TypeError(f"{scope}: content must be a parser's name, got {_kind(content)}") from exc
    if not known:
        raise ValueError(
            f"{scope}: unknown content parser '{content}'. Available: {sorted(CONTENT_PARSERS)}"
        )
    opener = _anchor(scope, spec, "open", "open_pattern")
    closer = _anchor(scope, spec, "close", "close_pattern")
    join = spec.get("join")
    if join is not None and not isinstance(join, str):
        raise ValueError(f"{scope}: 'join' must be a string, got {_kind(join)}")
    if join is not None and not spec.get("repeats", False):
        raise ValueError(f"{scope}: 'join' requires 'repeats': true")
    transform = spec.get("transform")
    transform_each = spec.get("transform_each", False)
    if not isinstance(transform_each, bool):
        raise ValueError(f"{scope}: transform_each must be a bool, got {_kind(transform_each)}")
    if transform_each and transform is None:
        raise ValueError(f"{scope}: transform_each is set but no transform was provided")
    if transform is not None:
        validate_transform_strings(scope, transform)
    else:
        # Named captures reach the output only through a transform; without one they would
        # be dropped silently.
        names: set[str] = set()
        for anchor in (opener, closer):
            if anchor is not None:
                names |= anchor.groups
        if names:
            raise ValueError(
                f"{scope}: open_pattern/close_pattern declares named group(s) {sorted(names)}, "
                "but the field has no 'transform'. Named captures are only surfaced through a "
                "'transform' template (where they appear alongside 'content'). Either add a "
                "'transform' that uses the captures, or remove the named groups from the "
                "pattern."
            )
    return Field(
        name=name,
        open=opener,
        close=closer,
        content=content,
        content_args=copy.deepcopy(spec.get("content_args", {})),
        repeats=bool(spec.get("repeats", False)),
        join=join,
        optional=bool(spec.get("optional", True)),
        transform=copy.deepcopy(transform),
        transform_each=transform_each,
    )


def compile_template(spec: Any) -> ResponseTemplate:
    """``spec`` checked and compiled (see the module); a compiled template is returned as
    it is. Raises ``ValueError`` naming what is wrong, as transformers does."""
    if isinstance(spec, ResponseTemplate):
        return spec
    _check_shape(spec)
    fields = tuple(_field(name, raw) for name, raw in spec["fields"].items())
    implicit = [f for f in fields if f.open is None]
    if len(implicit) > 1:
        raise ValueError(
            "At most one field may omit 'open'/'open_pattern' (that field becomes the "
            "implicit-open / leftover sink). Found: " + ", ".join(f.name for f in implicit)
        )
    start = _anchor("response_template", spec, "start_anchor", "start_anchor_pattern")
    if start is None:
        raise ValueError("response_template must define 'start_anchor' or 'start_anchor_pattern'.")
    return ResponseTemplate(
        fields=fields,
        start_anchor=start,
        implicit=implicit[0] if implicit else None,
        default_values=copy.deepcopy(spec.get("defaults", {})),
        source=copy.deepcopy(spec),
    )


# --- where templates are kept -------------------------------------------------------------

TemplateSource = Mapping[str, Any] | ResponseTemplate | str | os.PathLike[str]

_CONFIG = "tokenizer_config.json"


def load_response_template(source: Any) -> ResponseTemplate:
    """A checked, compiled template from wherever one is kept.

    ``source`` is a dict (the ``response_template`` value itself), a compiled template
    (returned as it is), or a path: a model directory (its ``tokenizer_config.json``), a
    ``tokenizer_config.json``, or any JSON file holding a template or an object with a
    ``response_template`` key. An invalid template raises ``ValueError`` naming the field
    (and the file); a file that cannot be read raises ``OSError``; a configuration
    without a template raises ``LookupError``."""
    if isinstance(source, ResponseTemplate):
        return source
    if isinstance(source, Mapping):
        return compile_template(dict(source))
    if isinstance(source, (str, os.PathLike)):
        return _load_path(Path(source))
    raise TypeError(
        "load_response_template takes a dict, a compiled template or a path, got " + _kind(source)
    )


def _load_path(path: Path) -> ResponseTemplate:
    if path.is_dir():
        config = path / _CONFIG
        if not config.is_file():
            raise FileNotFoundError(f"{path}: no {_CONFIG} in this directory")
        path = config
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON: {exc}") from exc
    if isinstance(data, dict) and "response_template" in data:
        spec = data["response_template"]
        where = f"{path} (response_template)"
    elif isinstance(data, dict) and "fields" in data:
        spec, where = data, str(path)
    else:
        raise LookupError(f"{path}: no response_template here")
    try:
        return compile_template(spec)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"{where}: {exc}") from exc


#: the format name that reads a checkpoint's response template, in both layers
TEMPLATE_FORMAT = "hf"
#: every format name that does (``beam``: vLLM's parser for Beam checkpoints, the same
#: reading under another name; ``formats/hf.py``)
TEMPLATE_FORMATS = (TEMPLATE_FORMAT, "beam")
MISSING_TEMPLATE = (
    "the {name} format reads a response template and none was given: pass template= "
    '({api}("{name}", template=...): a dict, a model directory or a tokenizer_config.json)'
)
