"""A checkpoint's own chat template, rendered the way transformers renders it.

``apply_chat_template(messages, tools=..., tokenize=False, add_generation_prompt=...,
**kwargs)`` in transformers 5 comes down to four steps, which this module repeats with
its own code (tests/prompt/test_against_transformers.py holds the two side by side):

1. the template: ``chat_template.jinja`` in the checkpoint (and any
   ``additional_chat_templates/NAME.jinja``) wins over ``chat_template`` in
   ``tokenizer_config.json`` (a string, or a list of ``{"name", "template"}``), which
   wins over a processor's ``chat_template.json``. Of several named templates,
   ``tool_use`` is taken when the request has tools, else ``default``;
2. the messages: keys whose value is ``None`` dropped; a message's reasoning, under any
   of ``reasoning_content``, ``thinking`` or ``reasoning``, given as both
   ``reasoning_content`` and ``thinking`` (gpt-oss templates read the latter);
   everything rebuilt from plain JSON values;
3. the variables: ``messages``, ``tools``, ``documents``, ``add_generation_prompt``, the
   tokenizer's named special tokens (``bos_token``, ``eos_token``, ``unk_token``,
   ``sep_token``, ``pad_token``, ``cls_token``, ``mask_token``, as strings), then the
   caller's keyword arguments (``enable_thinking`` and the rest of
   ``chat_template_kwargs``), which win over the tokens;
4. the environment: Jinja2's ``ImmutableSandboxedEnvironment`` with ``trim_blocks``,
   ``lstrip_blocks``, the ``loopcontrols`` extension and a ``{% generation %}`` block
   (rendered as its body); ``tojson`` that does not escape HTML and takes
   ``ensure_ascii``, ``indent``, ``separators`` and ``sort_keys``; the globals
   ``raise_exception``, ``strftime_now``, a ``dict`` without attribute tricks and a
   ``namespace`` that refuses ``_``-names.

A template is untrusted code from a model repository: it only ever runs in the sandbox.
``render(..., mutable=True)`` runs it in Jinja's ordinary ``SandboxedEnvironment``
instead, which also lets a template change the lists and dicts it holds
(``ids.append(x)``, as llama.cpp's Kimi K2 templates do; transformers refuses them): still
a sandbox (no ``_``-attributes, no unsafe callables), and every value a template is
given is a fresh copy (step 2), so nothing of the caller's can change. ``derive`` renders
so, since how a template writes a call does not depend on the sandbox; prompts are
rendered as transformers renders them. Any failure (a syntax error, ``raise_exception``, an undefined name used wrongly, a
sandbox refusal) is a ``TemplateError`` naming the template and the line.

Jinja2 is not a dependency of the core: it comes with the ``server`` extra, and this
module imports it when a template is first compiled.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = [
    "SPECIAL_TOKEN_NAMES",
    "ChatTemplate",
    "TemplateError",
    "load_chat_template",
    "message_dicts",
    "normalize_messages",
]

#: the tokenizer attributes transformers passes to every template (``special_tokens_map``)
SPECIAL_TOKEN_NAMES = (
    "bos_token",
    "eos_token",
    "unk_token",
    "sep_token",
    "pad_token",
    "cls_token",
    "mask_token",
)
_REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")
_TEMPLATE_FILE = "<template>"  # the file name Jinja gives code compiled from a string


class TemplateError(ValueError):
    """A chat template that could not be loaded or rendered: which one, the line, why."""

    def __init__(self, message: str, *, template: str, line: int | None = None) -> None:
        where = f"{template}, line {line}" if line is not None else template
        super().__init__(f"chat template {where}: {message}")
        self.template = template
        self.line = line
        self.reason = message


@dataclass(frozen=True)
class ChatTemplate:
    """A chat template and the special tokens its tokenizer passes it.

    ``templates`` maps names to sources (``default`` for a checkpoint with one);
    ``name`` says where it was read, for errors and logs.
    """

    templates: Mapping[str, str]
    name: str = "the template"
    special_tokens: Mapping[str, str] = field(default_factory=dict)
    #: the checkpoint's model id, where the directory says it (``name_or_path``)
    model: str | None = None

    @classmethod
    def from_string(
        cls,
        source: str,
        *,
        name: str = "the template",
        special_tokens: Mapping[str, str] | None = None,
    ) -> ChatTemplate:
        return cls({"default": source}, name, dict(special_tokens or {}))

    def source(self, tools: Sequence[Any] | None = None, choice: str | None = None) -> str:
        """The template text used for a request (transformers' ``get_chat_template``)."""
        if choice is not None:
            if choice in self.templates:
                return self.templates[choice]
            if "{" in choice:  # a template's text
                return choice
            raise TemplateError(
                f"no template named {choice!r} (it has {sorted(self.templates)})",
                template=self.name,
            )
        if tools is not None and "tool_use" in self.templates:
            return self.templates["tool_use"]
        if "default" in self.templates:
            return self.templates["default"]
        raise TemplateError(
            f"several templates and none is the default ({sorted(self.templates)}): "
            "name the one to use",
            template=self.name,
        )

    def render(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        documents: Sequence[Mapping[str, Any]] | None = None,
        add_generation_prompt: bool = True,
        choice: str | None = None,
        continue_final_message: bool | str = False,
        mutable: bool = False,
        **kwargs: Any,
    ) -> str:
        """The prompt text: what ``apply_chat_template(..., tokenize=False)`` returns.

        ``mutable``: in the sandbox that lets a template change its own lists and dicts
        (module docstring), not transformers' immutable one.

        ``continue_final_message`` (``True`` for the final message's ``content``, or a
        field's name) leaves the final message open, as transformers does: the template
        renders without a generation prompt and the prompt is cut where that message's
        text ends, so the model continues it. It cannot go with ``add_generation_prompt``.
        """
        if not messages:
            raise TemplateError("the conversation is empty", template=self.name)
        if continue_final_message and add_generation_prompt:
            raise ValueError(
                "continue_final_message and add_generation_prompt are not compatible: the "
                "first continues the final message, the second opens a new assistant message"
            )
        source = self.source(tools, choice)
        compiled = _compile(source, self.name, mutable)
        variables: dict[str, Any] = dict(self.special_tokens)
        variables.update(_plain(kwargs))
        chat = _alias_reasoning(_plain(normalize_messages(messages)))
        final = None
        if continue_final_message:
            final, fields = tag_final_message(chat, continue_final_message)
            if not any(f in source for f in fields):
                raise ValueError(
                    f"continue_final_message is set to {fields[0]!r}, which the template "
                    "does not read"
                )
        try:
            rendered = str(
                compiled.render(
                    messages=chat,
                    tools=_plain(list(tools)) if tools is not None else None,
                    documents=_plain(list(documents)) if documents is not None else None,
                    add_generation_prompt=add_generation_prompt,
                    **variables,
                )
            )
        except TemplateError:
            raise
        except Exception as exc:  # the template's own failure, in the sandbox
            raise TemplateError(
                _describe(exc), template=self.name, line=_template_line(exc.__traceback__)
            ) from exc
        return rendered if final is None else cut_after_final_message(rendered, final)


def message_dicts(value: Any) -> Any:
    """Message objects as dicts, as transformers reads them: pydantic models (the openai
    SDK's ``ChatCompletionMessage``, which agents append from a response) through
    ``model_dump()``, dataclasses field by field, and the same inside mappings, lists and
    tuples; anything else as it is."""
    if isinstance(value, Mapping):
        return {key: message_dicts(item) for key, item in value.items()}
    if isinstance(value, list):
        return [message_dicts(item) for item in value]
    if isinstance(value, tuple):
        return tuple(message_dicts(item) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: message_dicts(getattr(value, f.name)) for f in dataclasses.fields(value)}
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return message_dicts(dump())
    return value


def normalize_messages(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """Each message (a mapping, a pydantic model or a dataclass) as a dict without its
    ``None`` members (as transformers does: an OpenAI response's ``content=None`` or
    ``tool_calls=None`` would otherwise reach the template)."""
    out: list[dict[str, Any]] = []
    for number, message in enumerate(message_dicts(list(messages))):
        if not isinstance(message, dict):
            raise TypeError(
                f"messages[{number}] must be a dict, a dataclass or a pydantic model, "
                f"got {type(message).__name__}"
            )
        out.append({k: v for k, v in message.items() if v is not None})
    return out


#: what transformers appends to the final message to find where it ends in the prompt
CONTINUE_TAG = "CONTINUE_FINAL_MESSAGE_TAG "


def tag_final_message(chat: list[dict[str, Any]], field: bool | str) -> tuple[str, list[str]]:
    """``continue_final_message``, first half: the tag appended to the final message's
    ``field`` (``content`` for ``True``; a reasoning field tags every copy of it), or to
    its last text part. Returns the text continued and the fields tagged."""
    if not chat:
        raise ValueError("continue_final_message is set but the conversation is empty")
    name = field if isinstance(field, str) else "content"
    final = chat[-1].get(name)
    if final is None:
        raise ValueError(f'continue_final_message is set but the final message has no "{name}"')
    fields = [name]
    if name in _REASONING_FIELDS:
        fields = [f for f in _REASONING_FIELDS if chat[-1].get(f) == final]
    if isinstance(final, list | tuple):
        for part in reversed(final):
            if isinstance(part, dict) and "text" in part:
                text = str(part["text"])
                part["text"] = text + CONTINUE_TAG
                return text, fields
        raise ValueError("continue_final_message is set but the final message has no text")
    for f in fields:
        chat[-1][f] = str(chat[-1][f]) + CONTINUE_TAG
    return str(final), fields


def cut_after_final_message(rendered: str, final: str) -> str:
    """``continue_final_message``, second half: the prompt cut where the final message's
    text ends (before the tag; the template's own trimming of it kept)."""
    tag = CONTINUE_TAG.strip()
    if final.strip() not in rendered or tag not in rendered:
        raise ValueError(
            "continue_final_message is set but the final message does not appear in the "
            "prompt the template wrote (the template drops or rewrites part of it)"
        )
    at = rendered.rindex(tag)
    if rendered[at : at + len(CONTINUE_TAG)] == CONTINUE_TAG:
        return rendered[:at]
    return rendered[:at].rstrip()


def _alias_reasoning(chat: list[Any]) -> list[Any]:
    out = []
    for message in chat:
        if isinstance(message, dict):
            reasoning = next(
                (message[k] for k in _REASONING_FIELDS if message.get(k) is not None), None
            )
            if reasoning is not None:
                message = {"thinking": reasoning, **message, "reasoning_content": reasoning}
        out.append(message)
    return out


def _plain(value: Any) -> Any:
    """``value`` rebuilt from plain JSON types; anything else is an inert ``<TypeName>``."""
    kind = type(value)
    if value is None or kind in (str, int, float, bool):
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, Mapping):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):  # pydantic models, such as the openai SDK's messages
        return _plain(dump())
    return f"<{kind.__name__}>"


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _template_line(tb: TracebackType | None) -> int | None:
    """The template line a render error came from: Jinja maps its frames to template lines
    under the template's file name."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == _TEMPLATE_FILE:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


# -- the environment ----------------------------------------------------------------------


def _raise_exception(message: Any) -> None:
    import jinja2

    raise jinja2.exceptions.TemplateError(str(message))


def _tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: int | str | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


def _strftime_now(format: str) -> str:
    return datetime.now().strftime(format)


class _TemplateDict:
    """``dict(...)`` and ``dict.fromkeys(...)``, and nothing else of the type."""

    def __call__(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict(*args, **kwargs)

    def fromkeys(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict.fromkeys(*args, **kwargs)


@lru_cache(maxsize=2)
def _environment(mutable: bool = False) -> Any:
    """transformers' environment; with ``mutable``, the same on Jinja's ordinary sandbox."""
    try:
        import jinja2
        import jinja2.ext
        import jinja2.nodes
        import jinja2.utils
        from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEnvironment
    except ImportError:  # pragma: no cover - the server extra brings it
        raise ImportError(
            "rendering a chat template needs Jinja2: pip install 'streamcall[server]' "
            "(or pip install jinja2)"
        ) from None

    class Namespace(jinja2.utils.Namespace):
        """Jinja's ``namespace``, refusing the attributes a sandbox escape would use."""

        def __init__(*args: Any, **kwargs: Any) -> None:
            self, rest = args[0], args[1:]
            attrs = dict(*rest, **kwargs)
            for name in attrs:
                Namespace.check(name)
            jinja2.utils.Namespace.__init__(self, attrs)

        def __setitem__(self, name: str, value: Any) -> None:
            Namespace.check(name)
            jinja2.utils.Namespace.__setitem__(self, name, value)

        @staticmethod
        def check(name: Any) -> None:
            if isinstance(name, str) and name.startswith("_"):
                raise jinja2.exceptions.SecurityError(
                    f"a namespace cannot hold the attribute {name!r} (names starting with _ "
                    "are refused)"
                )

    class Generation(jinja2.ext.Extension):
        """``{% generation %}...{% endgeneration %}``: renders its body."""

        tags = {"generation"}  # noqa: RUF012 - Jinja's own class attribute

        def parse(self, parser: Any) -> Any:
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return jinja2.nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(
                lineno
            )

        def _body(self, caller: Any) -> str:
            return str(caller())

    sandbox = SandboxedEnvironment if mutable else ImmutableSandboxedEnvironment
    env = sandbox(
        trim_blocks=True, lstrip_blocks=True, extensions=[Generation, jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    env.globals["dict"] = _TemplateDict()
    env.globals["namespace"] = Namespace
    return env


@lru_cache(maxsize=64)
def _compile_cached(source: str, mutable: bool = False) -> Any:
    return _environment(mutable).from_string(source)


def _compile(source: str, name: str, mutable: bool = False) -> Any:
    import jinja2

    try:
        return _compile_cached(source, mutable)
    except jinja2.exceptions.TemplateSyntaxError as exc:
        raise TemplateError(f"syntax error: {exc.message}", template=name, line=exc.lineno) from exc


# -- reading a checkpoint -----------------------------------------------------------------


def load_chat_template(source: str | os.PathLike[str]) -> ChatTemplate:
    """A checkpoint's chat template: from a model directory, its ``tokenizer_config.json``,
    a ``chat_template.json``, or a ``.jinja`` file (step 1 of the module docstring).

    Raises ``FileNotFoundError`` for a missing path and ``TemplateError`` for a checkpoint
    that holds no chat template or one of the wrong type.
    """
    path = Path(source)
    if path.is_dir():
        return _from_dir(path, path / "tokenizer_config.json")
    if not path.is_file():
        raise FileNotFoundError(f"no such file or directory: {str(path)!r}")
    if path.name == "tokenizer_config.json":
        return _from_dir(path.parent, path)
    if path.suffix == ".json":
        config = _load_json(path)
        templates = _config_templates(config, path)
        if not templates:
            raise TemplateError("no chat_template in it", template=str(path))
        return ChatTemplate(templates, str(path), _special_tokens(config))
    return ChatTemplate({"default": _read_text(path)}, str(path))


def _from_dir(directory: Path, config_path: Path) -> ChatTemplate:
    config = _load_json(config_path) if config_path.is_file() else {}
    templates: dict[str, str] = {}
    where = str(config_path)
    jinja_file = directory / "chat_template.jinja"
    if jinja_file.is_file():
        templates["default"] = _read_text(jinja_file)
        where = str(jinja_file)
    extra = directory / "additional_chat_templates"
    if extra.is_dir():
        for file in sorted(extra.glob("*.jinja")):
            templates[file.stem] = _read_text(file)
    if not templates:
        templates = _config_templates(config, config_path)
    if not templates:
        processor = directory / "chat_template.json"
        if processor.is_file():
            templates = _config_templates(_load_json(processor), processor)
            where = str(processor)
    if not templates:
        raise TemplateError(
            "no chat template in the checkpoint (looked for chat_template.jinja, "
            "chat_template in tokenizer_config.json, and chat_template.json)",
            template=str(directory),
        )
    tokens = _special_tokens(config)
    if not tokens:
        tokens_file = directory / "special_tokens_map.json"
        if tokens_file.is_file():
            tokens = _special_tokens(_load_json(tokens_file))
    model = config.get("name_or_path")
    return ChatTemplate(templates, where, tokens, model if isinstance(model, str) else None)


def _config_templates(config: Mapping[str, Any], path: Path) -> dict[str, str]:
    value = config.get("chat_template")
    if value is None:
        return {}
    if isinstance(value, str):
        return {"default": value}
    if isinstance(value, list):
        out: dict[str, str] = {}
        for i, item in enumerate(value):
            if (
                not isinstance(item, dict)
                or not isinstance(item.get("name"), str)
                or not isinstance(item.get("template"), str)
            ):
                raise TemplateError(
                    f"chat_template[{i}] must be an object with string 'name' and 'template'",
                    template=str(path),
                )
            out[item["name"]] = item["template"]
        return out
    raise TemplateError(
        f"chat_template must be a string or a list of named templates, not {type(value).__name__}",
        template=str(path),
    )


def _special_tokens(config: Mapping[str, Any]) -> dict[str, str]:
    """The named special tokens, as strings (an ``AddedToken`` is its ``content``)."""
    out: dict[str, str] = {}
    for name in SPECIAL_TOKEN_NAMES:
        value = config.get(name)
        if isinstance(value, dict):
            value = value.get("content")
        if isinstance(value, str):
            out[name] = value
    return out


def _read_text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def _load_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(_read_text(path))
    except json.JSONDecodeError as exc:
        raise TemplateError(
            f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})",
            template=str(path),
        ) from None
    if not isinstance(value, dict):
        raise TemplateError(
            f"expected a JSON object, got {type(value).__name__}", template=str(path)
        )
    return value
