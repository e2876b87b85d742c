"""``load_response_template``: every kind of source, and every invalid template.

An invalid template raises the exception type transformers raises, with its message
(which names the field); read from a file, the message names the file first. Where
transformers is installed (scripts/test-transformers) each message is compared with
the one transformers gives for the same template.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

import streamcall
from reference import transformers_ref as ref
from rt_support import engine_params, pattern_engine
from streamcall.response_templates import ResponseTemplate, load_response_template, parse_response

QWEN = ref.load_cases()["templates"]["qwen3"]
TEXT = "<think>hm</think>Hi<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>"
EXPECTED = {
    "role": "assistant",
    "thinking": "hm",
    "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"x": 1}}}],
}


def _check(template: ResponseTemplate) -> None:
    assert isinstance(template, ResponseTemplate)
    assert parse_response(TEXT, template, prefix="") == EXPECTED
    assert template.as_dict() == QWEN


def test_exported_from_the_package() -> None:
    assert streamcall.load_response_template is load_response_template
    assert streamcall.parse_response is parse_response


def test_from_a_dict() -> None:
    _check(load_response_template(QWEN))
    _check(load_response_template(MappingProxyType(QWEN)))


def test_a_compiled_template_comes_back_as_it_is() -> None:
    compiled = load_response_template(QWEN)
    assert load_response_template(compiled) is compiled


def test_the_compiled_template_is_a_private_copy() -> None:
    spec = json.loads(json.dumps(QWEN))
    compiled = load_response_template(spec)
    spec["defaults"]["role"] = "changed"
    spec["fields"]["tool_calls"]["content_args"]["tag_pattern"] = "nothing"
    _check(compiled)
    with pytest.raises(AttributeError):
        compiled.fields = ()  # type: ignore[misc]


def test_from_a_model_directory(tmp_path: Path) -> None:
    config = {"model_max_length": 4096, "response_template": QWEN}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    _check(load_response_template(tmp_path))
    _check(load_response_template(str(tmp_path)))
    _check(load_response_template(tmp_path / "tokenizer_config.json"))
    _check(load_response_template(str(tmp_path / "tokenizer_config.json")))


def test_from_a_json_file_holding_the_template(tmp_path: Path) -> None:
    path = tmp_path / "template.json"
    path.write_text(json.dumps(QWEN), encoding="utf-8")
    _check(load_response_template(path))
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"response_template": QWEN}), encoding="utf-8")
    _check(load_response_template(wrapped))


def test_a_directory_without_a_tokenizer_config(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"no tokenizer_config\.json"):
        load_response_template(tmp_path)


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_response_template(tmp_path / "nope.json")


def test_a_config_without_a_template(tmp_path: Path) -> None:
    path = tmp_path / "tokenizer_config.json"
    path.write_text(json.dumps({"model_max_length": 4096}), encoding="utf-8")
    with pytest.raises(LookupError, match=re.escape(f"{path}: no response_template")):
        load_response_template(tmp_path)


def test_a_file_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "tokenizer_config.json"
    path.write_text("{nope", encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(f"{path}: not JSON")):
        load_response_template(path)


def test_an_invalid_template_in_a_file_names_the_file_and_the_field(tmp_path: Path) -> None:
    bad = json.loads(json.dumps(QWEN))
    bad["fields"]["tool_calls"]["join"] = 3
    path = tmp_path / "tokenizer_config.json"
    path.write_text(json.dumps({"response_template": bad}), encoding="utf-8")
    with pytest.raises(ValueError) as info:
        load_response_template(tmp_path)
    assert str(info.value) == (
        f"{path} (response_template): Field 'tool_calls': 'join' must be a string, got int"
    )


def test_a_source_of_another_type() -> None:
    with pytest.raises(TypeError, match="takes a dict, a compiled template or a path, got int"):
        load_response_template(3)


def _with(**fields: Any) -> dict[str, Any]:
    return {"start_anchor": "<s>", "fields": fields}


NAMED_GROUP_MESSAGE = (
    "Field 'c': open_pattern/close_pattern declares named group(s) ['n'], but the field has "
    "no 'transform'. Named captures are only surfaced through a 'transform' template (where "
    "they appear alongside 'content'). Either add a 'transform' that uses the captures, or "
    "remove the named groups from the pattern."
)
MIXED_MESSAGE = (
    "Field 'c': transform string 'x {content}' mixes a {placeholder} with literal text. Use "
    'either a whole-string placeholder (e.g. "{content}") or a plain literal; string '
    "interpolation is not supported."
)
PARSERS = "['bool', 'float', 'int', 'json', 'kv-lines', 'python-call-list', 'text', 'xml-inline']"

# (id, template, the message transformers gives: all ValueError)
INVALID: list[tuple[str, Any, str]] = [
    ("not_a_dict", [], "response_template must be a dict, got list"),
    ("a_string", "tokenizer_config.json", "response_template must be a dict, got str"),
    ("version", {**_with(c={}), "version": 2}, "Unsupported response_template version: 2"),
    ("unknown_key", {**_with(c={}), "schema": {}}, "Unknown keys in response_template: ['schema']"),
    ("defaults", {**_with(c={}), "defaults": []}, "response_template.defaults must be a dict"),
    ("no_fields", {"start_anchor": "<s>"}, "response_template.fields must be a non-empty dict"),
    ("empty_fields", _with(), "response_template.fields must be a non-empty dict"),
    (
        "fields_list",
        {"start_anchor": "<s>", "fields": []},
        "response_template.fields must be a non-empty dict",
    ),
    ("field_not_dict", _with(c="text"), "Field 'c' must be a dict"),
    ("field_key", _with(c={"strip": True}), "Field 'c': unknown keys ['strip']"),
    (
        "parser",
        _with(c={"content": "yaml"}),
        f"Field 'c': unknown content parser 'yaml'. Available: {PARSERS}",
    ),
    (
        "open_both",
        _with(c={"open": "a", "open_pattern": "a"}),
        "Field 'c': cannot specify both 'open' and 'open_pattern'",
    ),
    (
        "close_both",
        _with(c={"close": "a", "close_pattern": "a"}),
        "Field 'c': cannot specify both 'close' and 'close_pattern'",
    ),
    (
        "open_empty_list",
        _with(c={"open": []}),
        "Field 'c': 'open' list must contain at least one literal",
    ),
    (
        "open_list_type",
        _with(c={"open": ["a", 1]}),
        "Field 'c': 'open' list must contain only strings",
    ),
    (
        "open_type",
        _with(c={"open": {"a": 1}}),
        "Field 'c': 'open' must be a string or list of strings, got dict",
    ),
    ("close_empty", _with(c={"close": ""}), "Field 'c': 'close' literals cannot be empty strings"),
    (
        "close_empty_in_list",
        _with(c={"close": ["a", ""]}),
        "Field 'c': 'close' literals cannot be empty strings",
    ),
    (
        "join_type",
        _with(c={"repeats": True, "join": 1}),
        "Field 'c': 'join' must be a string, got int",
    ),
    ("join_repeats", _with(c={"join": ""}), "Field 'c': 'join' requires 'repeats': true"),
    (
        "each_type",
        _with(c={"transform": "{content}", "transform_each": "yes"}),
        "Field 'c': transform_each must be a bool, got str",
    ),
    (
        "each_alone",
        _with(c={"transform_each": True}),
        "Field 'c': transform_each is set but no transform was provided",
    ),
    ("mixed", _with(c={"transform": {"a": ["x {content}"]}}), MIXED_MESSAGE),
    ("named_groups", _with(c={"open_pattern": "<(?P<n>x)>"}), NAMED_GROUP_MESSAGE),
    (
        "two_implicit",
        _with(a={}, b={}),
        "At most one field may omit 'open'/'open_pattern' (that field becomes the implicit-open / leftover sink). Found: a, b",
    ),
    (
        "start_both",
        {**_with(c={}), "start_anchor_pattern": "x"},
        "response_template: cannot specify both 'start_anchor' and 'start_anchor_pattern'",
    ),
    (
        "no_start",
        {"fields": {"c": {}}},
        "response_template must define 'start_anchor' or 'start_anchor_pattern'.",
    ),
    (
        "start_type",
        {"start_anchor": 5, "fields": {"c": {}}},
        "response_template: 'start_anchor' must be a string or list of strings, got int",
    ),
]

# A pattern that does not compile: the message is the engine's own, after the field.
BAD_REGEX: list[tuple[str, Any, str]] = [
    ("open_regex", _with(c={"open_pattern": "(ab"}), "Field 'c': invalid open_pattern regex: "),
    (
        "close_regex",
        _with(c={"open": "<", "close_pattern": "[a"}),
        "Field 'c': invalid close_pattern regex: ",
    ),
    (
        "start_regex",
        {"start_anchor_pattern": "a)", "fields": {"c": {}}},
        "response_template: invalid start_anchor_pattern regex: ",
    ),
]


@pytest.mark.parametrize("engine", engine_params())
@pytest.mark.parametrize(("case", "template", "message"), INVALID, ids=[c[0] for c in INVALID])
def test_invalid_template(case: str, template: Any, message: str, engine: str) -> None:
    with pattern_engine(engine), pytest.raises(ValueError) as info:
        load_response_template(template) if isinstance(template, dict) else parse_response(
            "", template, prefix=""
        )
    assert str(info.value) == message


@pytest.mark.parametrize("engine", engine_params())
@pytest.mark.parametrize(("case", "template", "start"), BAD_REGEX, ids=[c[0] for c in BAD_REGEX])
def test_pattern_that_does_not_compile(case: str, template: Any, start: str, engine: str) -> None:
    with pattern_engine(engine), pytest.raises(ValueError) as info:
        load_response_template(template)
    assert str(info.value).startswith(start)
    if engine == "re":
        assert "pip install 'streamcall[templates]'" in str(info.value)


def test_a_regex_only_pattern_without_the_regex_package_names_the_extra() -> None:
    template = _with(c={"open_pattern": r"\p{Lu}+:"})
    with pattern_engine("re"), pytest.raises(ValueError) as info:
        load_response_template(template)
    message = str(info.value)
    assert message.startswith("Field 'c': invalid open_pattern regex: ")
    assert "streamcall[templates]" in message


@pytest.mark.parametrize(
    ("case", "template", "message"), INVALID + BAD_REGEX, ids=[c[0] for c in INVALID + BAD_REGEX]
)
def test_messages_are_transformers_messages(case: str, template: Any, message: str) -> None:
    if ref.skip_reason() is not None:
        pytest.skip(f"{ref.skip_reason()} (run scripts/test-transformers)")
    theirs = ref.parse(template, "")
    with pattern_engine("regex"), pytest.raises(ValueError) as info:
        parse_response("", template, prefix="")
    assert (theirs.error, theirs.message) == ("ValueError", str(info.value))


def test_prefix_is_required_as_in_transformers() -> None:
    with pytest.raises(ValueError, match="requires `prefix`"):
        parse_response("hi", QWEN)
    assert parse_response("hi", QWEN, prefix="") == {"role": "assistant"}
