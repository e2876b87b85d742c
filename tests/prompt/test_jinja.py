"""The checkpoint-template side of the prompt layer: loading, the environment, failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamcall import ChatTemplate, TemplateError, load_chat_template, render_prompt
from streamcall.prompt import openai_messages

HELLO = [{"role": "user", "content": "hi"}]


def _dir(tmp_path: Path, **files: str | dict[str, object]) -> Path:
    for name, value in files.items():
        path = tmp_path / name.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return tmp_path


def test_chat_template_jinja_wins_over_the_tokenizer_config(tmp_path: Path) -> None:
    d = _dir(
        tmp_path,
        **{"chat_template.jinja": "file", "tokenizer_config.json": {"chat_template": "config"}},
    )
    assert render_prompt(HELLO, template=d) == "file"
    (d / "chat_template.jinja").unlink()
    assert render_prompt(HELLO, template=d) == "config"
    assert render_prompt(HELLO, template=d / "tokenizer_config.json") == "config"


def test_a_processor_chat_template_json_is_the_last_resort(tmp_path: Path) -> None:
    d = _dir(tmp_path, **{"chat_template.json": {"chat_template": "processor"}})
    assert render_prompt(HELLO, template=d) == "processor"


def test_named_templates_tool_use_with_tools_else_default(tmp_path: Path) -> None:
    named = [{"name": "default", "template": "plain"}, {"name": "tool_use", "template": "tools"}]
    d = _dir(tmp_path, **{"tokenizer_config.json": {"chat_template": named}})
    template = load_chat_template(d)
    assert template.render(HELLO) == "plain"
    assert template.render(HELLO, tools=[]) == "tools"
    assert template.render(HELLO, choice="default", tools=[]) == "plain"


def test_additional_chat_templates_are_named_by_their_file(tmp_path: Path) -> None:
    d = _dir(
        tmp_path,
        **{"chat_template.jinja": "main", "additional_chat_templates__tool_use.jinja": "tools"},
    )
    assert render_prompt(HELLO, template=d, tools=[{"type": "function"}]) == "tools"


def test_special_tokens_come_from_the_config_also_as_added_tokens(tmp_path: Path) -> None:
    d = _dir(
        tmp_path,
        **{
            "tokenizer_config.json": {
                "chat_template": "{{ bos_token }}|{{ eos_token }}|{{ pad_token is defined }}",
                "bos_token": {"content": "<s>", "lstrip": False, "__type": "AddedToken"},
                "eos_token": "</s>",
                "additional_special_tokens": ["<x>"],
            }
        },
    )
    assert render_prompt(HELLO, template=d) == "<s>|</s>|False"
    # a caller's keyword wins over the tokenizer's token, as in transformers
    assert render_prompt(HELLO, template=d, bos_token="B") == "B|</s>|False"


def test_no_template_says_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(TemplateError, match=r"looked for chat_template\.jinja"):
        load_chat_template(tmp_path)
    with pytest.raises(FileNotFoundError):
        load_chat_template(tmp_path / "missing")
    bad = _dir(tmp_path, **{"tokenizer_config.json": {"chat_template": 3}})
    with pytest.raises(TemplateError, match="must be a string or a list"):
        load_chat_template(bad)


def test_the_environment_is_transformers_s() -> None:
    source = (
        "{{ messages[0].content | tojson }} {{ {'b': '<&>'} | tojson(indent=2) }}"
        "{% for m in messages %}{% if loop.first %}{% continue %}{% endif %}x{% endfor %}"
        "{% generation %}G{% endgeneration %}{{ dict(a=1)['a'] }}"
        "{% set ns = namespace(n=0) %}{% set ns.n = ns.n + 1 %}{{ ns.n }}"
        "{{ strftime_now('%Y') | length }}"
    )
    got = render_prompt([{"role": "user", "content": "é<b>"}, {"role": "user"}], template=source)
    assert got == '"é<b>" {\n  "b": "<&>"\n}xG114'


def test_trim_and_lstrip_blocks_are_on() -> None:
    source = "a\n  {% if true %}\nb\n  {% endif %}\nc"
    assert render_prompt(HELLO, template=source) == "a\nb\nc"


def test_messages_are_plain_data_without_none_and_with_reasoning_aliases() -> None:
    source = (
        "{% for m in messages %}{{ m.keys() | sort | join(',') }};"
        "{{ m.thinking }}|{{ m.reasoning_content }};{% endfor %}"
    )
    messages = [{"role": "assistant", "content": None, "reasoning": "r"}]
    assert (
        render_prompt(messages, template=source) == "reasoning,reasoning_content,role,thinking;r|r;"
    )


def test_a_syntax_error_names_the_template_and_line(tmp_path: Path) -> None:
    d = _dir(tmp_path, **{"chat_template.jinja": "ok\n{% if %}\n"})
    with pytest.raises(TemplateError) as info:
        render_prompt(HELLO, template=d)
    assert info.value.line == 2
    assert str(info.value).startswith(
        f"chat template {d / 'chat_template.jinja'}, line 2: syntax error"
    )


@pytest.mark.parametrize(
    ("source", "line", "why"),
    [
        ("a\nb\n{{ raise_exception('no system role') }}", 3, "no system role"),
        ("{{ messages[0].content.nope() }}", 1, "UndefinedError"),
        ("\n{{ messages.__class__.__mro__ }}", 2, "SecurityError"),
        ("{% set ns = namespace() %}\n{% set ns._x = 1 %}", 2, "cannot hold the attribute '_x'"),
        ("{{ messages.append(1) }}", 1, "SecurityError"),  # immutable sandbox
    ],
)
def test_a_failing_template_names_its_line_and_why(source: str, line: int, why: str) -> None:
    with pytest.raises(TemplateError) as info:
        render_prompt(HELLO, template=ChatTemplate.from_string(source, name="t.jinja"))
    assert info.value.line == line
    assert why in str(info.value)
    assert str(info.value).startswith(f"chat template t.jinja, line {line}: ")


def test_the_mutable_sandbox_lets_a_template_change_its_own_lists_and_nothing_else() -> None:
    """``mutable=True`` (what ``derive`` renders with): a template's own list takes an
    ``append``, as llama.cpp's Kimi K2 templates need; the caller's messages are a copy;
    the sandbox still refuses what it refuses."""
    source = (
        "{% set ns = namespace(ids=[]) %}{% for m in messages %}"
        "{% set _ = ns.ids.append(m.content) %}{% set _ = m.update({'x': 1}) %}{% endfor %}"
        "{{ ns.ids | join(',') }}"
    )
    template = ChatTemplate.from_string(source, name="t.jinja")
    messages = [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    assert template.render(messages, mutable=True) == "a,b"
    assert messages == [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    with pytest.raises(TemplateError, match="SecurityError"):
        template.render(messages)  # transformers' immutable sandbox, the default
    escape = ChatTemplate.from_string("{{ messages.__class__.__mro__ }}", name="t.jinja")
    with pytest.raises(TemplateError, match="SecurityError"):
        escape.render(messages, mutable=True)


def test_an_empty_conversation_is_refused() -> None:
    with pytest.raises(TemplateError, match="empty"):
        render_prompt([], template="x{{ 1 }}")


def test_openai_messages_decode_arguments_and_join_text_parts() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]},
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}},
                {"id": "2", "type": "function", "function": {"name": "g", "arguments": "not json"}},
                {"id": "3", "type": "function", "function": {"name": "h", "arguments": ""}},
            ],
        },
    ]
    got = openai_messages(messages)
    assert got[0]["content"] == "ab"
    assert got[1]["content"] == messages[1]["content"]  # not only text: left alone
    assert [c["function"]["arguments"] for c in got[2]["tool_calls"]] == [{"x": 1}, "not json", {}]
    assert messages[2]["tool_calls"][0]["function"]["arguments"] == '{"x": 1}'  # not mutated
