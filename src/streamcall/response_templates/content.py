"""Content parsers and transforms: what a closed region's body becomes.

A region's body (the text between its opener and its closer) goes through the field's
content parser with the field's ``content_args``, then through its ``transform``:

    text        the body, stripped unless ``strip`` is false
    int, float  ``int()`` / ``float()`` of the stripped body
    bool        the stripped, lower-cased body is ``true`` or ``1``; anything else is false
    json        ``json.loads`` after the dialect rewrites ``string_delims`` (custom string
                quotes, taken verbatim) and ``unquoted_keys``; ``allow_non_json`` gives the
                stripped text instead of an error
    xml-inline  every ``tag_pattern`` match: group ``key`` -> group ``value`` (through
                ``value_parser``, or from 5.25 the parser ``value_parser_by`` picks by
                what another group captured), repeated keys merged into a list with
                ``merge_duplicates``
    kv-lines    ``key<kv_sep>value`` lines split on ``line_sep``
    python-call-list  ``[name(k=v, ...), ...]`` in a strict grammar (``_calllist``)

A transform is a JSON-like value; a string that is exactly ``{name}`` or ``{a.b.c}`` is
replaced by that value of the scope (the opener's and closer's named captures, and
``content``; with ``transform_each``, each list element's keys instead of ``content``).

These are the parsers of transformers' response templates (``utils/chat_parsing``), and
they fail the way those do, with the same exception types; the messages name the field
as well (``region_value`` adds it).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from streamcall.response_templates import _patterns
from streamcall.response_templates._calllist import parse_call_list
from streamcall.response_templates.compiled import STREAMABLE_PARSERS, Field
from streamcall.response_templates.versions import Rules, rules_for

__all__ = [
    "CONTENT_PARSERS",
    "STREAMABLE_PARSERS",
    "apply_transform",
    "parse_content",
    "region_value",
    "validate_transform_strings",
]

ContentParser = Callable[[str, Any], Any]
NestingParser = Callable[[str, Any, Rules], Any]

# Sentinels standing in for extracted custom-delimited strings during the JSON rewrite.
_SENTINEL_OPEN, _SENTINEL_CLOSE = "\x01", "\x02"

_UNQUOTED_KEY = r'"(?:\\.|[^"\\])*"|(?<=[{,])(\s*)(\w+)(\s*):'
_PLACEHOLDER = r"\{(\w+(?:\.\w+)*)\}"


@functools.lru_cache(maxsize=256)
def _compiled(source: str, engine: str) -> re.Pattern[str]:
    """A content-time pattern in the current engine; a bad one raises that engine's own
    error class (as transformers does), not a ``ValueError``."""
    del engine  # part of the cache key only
    try:
        return _patterns.compile_pattern(source)
    except _patterns.PatternError as exc:
        cause = exc.__cause__
        raise (cause if isinstance(cause, Exception) else exc) from None


def _pattern(source: str) -> re.Pattern[str]:
    return _compiled(source, _patterns.engine())


def _text(text: str, args: Any) -> str:
    return text.strip() if args.get("strip", True) else text


def _int(text: str, args: Any) -> int:
    return int(_text(text, args))


def _float(text: str, args: Any) -> float:
    return float(_text(text, args))


def _bool(text: str, args: Any) -> bool:
    return _text(text, args).lower() in ("true", "1")


def _json(text: str, args: Any) -> Any:
    delims = args.get("string_delims", [])
    unquoted_keys = args.get("unquoted_keys", False)
    if delims and (_SENTINEL_OPEN in text or _SENTINEL_CLOSE in text):
        raise ValueError(
            "json: input contains reserved sentinel characters (\\x01/\\x02); cannot parse safely."
        )
    rewritten = text
    strings: list[str] = []

    def stash(m: re.Match[str]) -> str:
        strings.append(m.group(1))
        return f"{_SENTINEL_OPEN}{len(strings) - 1}{_SENTINEL_CLOSE}"

    for opener, closer in delims:
        quoted = _pattern(_patterns.escape(opener) + r"(.*?)" + _patterns.escape(closer))
        rewritten = quoted.sub(stash, rewritten)
    if unquoted_keys:
        # The first alternative consumes whole quoted strings and gives them back as they
        # are, so that key-like text inside a string is never quoted; only the second
        # alternative is a bare key.
        rewritten = _pattern(_UNQUOTED_KEY).sub(_quote_key, rewritten)
    for i, raw in enumerate(strings):
        rewritten = rewritten.replace(f"{_SENTINEL_OPEN}{i}{_SENTINEL_CLOSE}", json.dumps(raw))
    try:
        return json.loads(rewritten)
    except json.JSONDecodeError as exc:
        if args.get("allow_non_json"):
            return _text(text, args)
        if rewritten == text:
            raise ValueError(
                f"json parser could not parse region as JSON.\nContent: {text!r}\nError: {exc}"
            ) from exc
        raise ValueError(
            "json: could not parse after dialect transforms.\n"
            f"Original: {text!r}\nTransformed: {rewritten!r}\nError: {exc}"
        ) from exc


def _quote_key(m: re.Match[str]) -> str:
    if m.group(2) is None:
        return m.group(0)
    return f'{m.group(1)}"{m.group(2)}"{m.group(3)}:'


def _value(raw: Any, value_parser: Any, rules: Rules) -> Any:
    """A tag's or line's value through the ``value_parser`` ``{"name", "args"}``."""
    if value_parser is None:
        return raw
    return parse_content(raw, value_parser.get("name", "text"), value_parser.get("args", {}), rules)


def _xml_inline(text: str, args: Any, rules: Rules) -> dict[str, Any]:
    tag_pattern = args.get("tag_pattern")
    if tag_pattern is None:
        raise ValueError("xml-inline: 'tag_pattern' content_arg is required")
    value_parser = args.get("value_parser")
    merge = args.get("merge_duplicates", False)
    by_group, by_capture = _value_parser_by(args) if rules.value_parser_by else (None, {})
    out: dict[str, Any] = {}
    merged: set[str] = set()
    for m in _pattern(tag_pattern).finditer(text):
        groups = m.groupdict()
        key = groups.get("key")
        if key is None:
            raise ValueError(
                f"xml-inline: tag_pattern must have a named group 'key'. Pattern: {tag_pattern}"
            )
        parser = value_parser
        if by_group is not None:
            if by_group not in groups:
                raise ValueError(
                    f"xml-inline: value_parser_by names group '{by_group}', which tag_pattern "
                    f"does not define. Pattern: {tag_pattern}"
                )
            # no entry for the capture (or no capture): value_parser
            parser = by_capture.get(groups[by_group], value_parser)
        value = _value(groups.get("value", ""), parser, rules)
        if merge and key in out:
            if key not in merged:
                out[key] = [out[key]]
                merged.add(key)
            out[key].append(value)
        else:
            out[key] = value
    return out


def _value_parser_by(args: Any) -> tuple[str | None, Any]:
    """(group, capture -> value parser) of ``value_parser_by`` (5.25), checked as 5.25
    checks it when the region closes."""
    spec = args.get("value_parser_by")
    if spec is None:
        return None, {}
    group, parsers = spec.get("group"), spec.get("parsers")
    if not isinstance(group, str) or not isinstance(parsers, dict):
        raise ValueError(
            "xml-inline: 'value_parser_by' must be a dict with 'group' (a named group in "
            "tag_pattern) and 'parsers' (a dict mapping what that group captures to a value "
            f"parser). Got: {spec!r}"
        )
    return group, parsers


def _kv_lines(text: str, args: Any, rules: Rules) -> dict[str, Any]:
    line_sep = args.get("line_sep", "\n")
    kv_sep = args.get("kv_sep", ":")
    value_parser = args.get("value_parser")
    out: dict[str, Any] = {}
    for raw_line in text.split(line_sep):
        line = _text(raw_line, args)
        if not line or kv_sep not in line:
            continue
        key, value = line.split(kv_sep, 1)
        out[_text(key, args)] = _value(_text(value, args), value_parser, rules)
    return out


def _python_call_list(text: str, args: Any) -> list[dict[str, Any]]:
    del args  # the grammar has no knobs
    return parse_call_list(text)


_LEAF_PARSERS: Mapping[str, ContentParser] = {
    "text": _text,
    "int": _int,
    "float": _float,
    "bool": _bool,
    "json": _json,
    "python-call-list": _python_call_list,
}
# the parsers whose values go through value parsers, and so read by a release's rules
_NESTING_PARSERS: Mapping[str, NestingParser] = {
    "xml-inline": _xml_inline,
    "kv-lines": _kv_lines,
}
CONTENT_PARSERS = frozenset(_LEAF_PARSERS) | frozenset(_NESTING_PARSERS)


def parse_content(text: Any, name: str, args: Any, rules: Rules | None = None) -> Any:
    """``text`` through the content parser ``name`` (a ``KeyError`` for an unknown one),
    read by ``rules`` (``versions.rules_for``; the newest release's by default)."""
    nesting = _NESTING_PARSERS.get(name)
    if nesting is not None:
        return nesting(text, args, rules_for(None) if rules is None else rules)
    return _LEAF_PARSERS[name](text, args)


def apply_transform(transform: Any, scope: Mapping[str, Any]) -> Any:
    """``transform`` with every whole-string placeholder replaced from ``scope``."""
    if isinstance(transform, dict):
        return {k: apply_transform(v, scope) for k, v in transform.items()}
    if isinstance(transform, list):
        return [apply_transform(v, scope) for v in transform]
    if not isinstance(transform, str):
        return transform
    whole = _pattern(_PLACEHOLDER).fullmatch(transform)
    if whole is None:
        return transform
    path = whole.group(1)
    root, *keys = path.split(".")
    if root not in scope:
        raise KeyError(
            f"transform placeholder '{{{path}}}' is not defined. Available: {sorted(scope)}"
        )
    value = scope[root]
    for key in keys:
        if not isinstance(value, dict):
            raise ValueError(
                f"transform placeholder '{{{path}}}' cannot index into {type(value).__name__} "
                f"at '{key}'"
            )
        if key not in value:
            raise ValueError(
                f"transform placeholder '{{{path}}}' is missing key '{key}'. "
                f"Available: {sorted(value)}"
            )
        value = value[key]
    return value


def validate_transform_strings(scope: str, transform: Any) -> None:
    """Reject a transform string that mixes a placeholder with other text (load time)."""
    if isinstance(transform, dict):
        for v in transform.values():
            validate_transform_strings(scope, v)
    elif isinstance(transform, list):
        for v in transform:
            validate_transform_strings(scope, v)
    elif isinstance(transform, str):
        placeholder = _pattern(_PLACEHOLDER)
        if placeholder.search(transform) and not placeholder.fullmatch(transform):
            raise ValueError(
                f"{scope}: transform string {transform!r} mixes a {{placeholder}} with literal "
                'text. Use either a whole-string placeholder (e.g. "{content}") or a plain '
                "literal; string interpolation is not supported."
            )


def _field_value(body: str, field: Field, captures: Mapping[str, str], rules: Rules | None) -> Any:
    value = parse_content(body, field.content, field.content_args, rules)
    if field.transform is None:
        return value
    if not field.transform_each:
        return apply_transform(field.transform, {**captures, "content": value})
    if not isinstance(value, list):
        raise ValueError(
            f"Field '{field.name}': transform_each requires the parsed content to be a list, "
            f"got {type(value).__name__}."
        )
    out = []
    for item in value:
        if not isinstance(item, dict):
            raise ValueError(
                f"Field '{field.name}': transform_each requires each list element to be a "
                f"dict, got {type(item).__name__}."
            )
        out.append(apply_transform(field.transform, {**captures, **item}))
    return out


def region_value(
    body: str, field: Field, captures: Mapping[str, str], rules: Rules | None = None
) -> Any:
    """A closed region's value: ``body`` through the field's content parser and transform.

    Raises what transformers raises for the same body (``ValueError`` for a body the
    parser rejects, ``KeyError`` for an undefined placeholder, the engine's error for a bad
    ``tag_pattern``, ...), with the field named in the message."""
    try:
        return _field_value(body, field, captures, rules)
    except Exception as exc:
        named = name_field(exc, field.name)
        if named is exc:
            raise
        raise named from exc


def name_field(exc: Exception, name: str) -> Exception:
    """An exception of ``exc``'s type whose message starts with the field's name (``exc``
    itself when it already names it, or when its type takes no plain message)."""
    prefix = f"Field '{name}'"
    message = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else str(exc)
    if message.startswith(prefix):
        return exc
    try:
        named = type(exc)(f"{prefix}: {message}")
    except Exception:  # an exception type with a different constructor
        return exc
    return named
