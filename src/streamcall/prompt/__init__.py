"""The prompt layer: a chat conversation written as the model's own prompt text.

This is the other half of what a serving engine's chat template does, for servers that
have none (a plain completion server, llama.cpp without ``--jinja``): the tools, earlier
calls and tool results written into the prompt in the model's syntax, so the model knows
what it may call, and the streamed text then parsed by the tool-call formats.

- ``render_prompt(messages, tools=..., template=...)``: a checkpoint's chat template
  (``ChatTemplate``, a model directory, ``tokenizer_config.json`` or a ``.jinja`` file, or
  the template text), rendered exactly as transformers' ``apply_chat_template(...,
  tokenize=False)`` renders it (``jinja.py``; needs Jinja2, from the ``server`` extra);
- ``render_prompt(messages, tools=..., format=...)`` (or ``model=``): the template
  streamcall ships for that format's family (``families.py``; pure Python);
- ``Prompter``: the same choice made once, for a server: each request's body in, a
  ``Prompt`` (the text, the stop strings, what rendered it) out.

Requests come from OpenAI clients, whose messages differ from what templates read in two
ways that serving engines (vLLM, SGLang) mend before rendering and ``openai_messages``
mends the same way: a call's ``arguments`` come as JSON text (templates expect an object),
and content may be a list of text parts (most templates expect a string).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from streamcall.prompt.families import FAMILIES, Family, family_for, family_for_model
from streamcall.prompt.jinja import (
    ChatTemplate,
    TemplateError,
    cut_after_final_message,
    load_chat_template,
    message_dicts,
    tag_final_message,
)

__all__ = [
    "FAMILIES",
    "ChatTemplate",
    "Family",
    "Prompt",
    "Prompter",
    "TemplateError",
    "family_for",
    "family_for_model",
    "load_chat_template",
    "openai_messages",
    "render_prompt",
]


@dataclass(frozen=True, slots=True)
class Prompt:
    """A rendered prompt: its text, the strings that end the turn, and what rendered it."""

    text: str
    stop: tuple[str, ...]
    source: str


def openai_messages(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """OpenAI chat messages as chat templates read them: each call's ``arguments`` decoded
    from JSON text into an object (left as text when it is not one), and content that is
    a list of text parts only joined into one string (other lists are left alone). The
    openai SDK's message objects (pydantic models) are taken as their dicts."""
    out: list[dict[str, Any]] = []
    for message in message_dicts(list(messages)):
        if not isinstance(message, Mapping):
            out.append(message)  # refused, with its position, by whatever renders it
            continue
        m = dict(message)
        content = m.get("content")
        if (
            isinstance(content, list)
            and content
            and all(isinstance(p, Mapping) and p.get("type") == "text" for p in content)
        ):
            m["content"] = "".join(str(p.get("text", "")) for p in content)
        calls = m.get("tool_calls")
        if isinstance(calls, list):
            fixed = []
            for call in calls:
                if isinstance(call, Mapping) and isinstance(call.get("function"), Mapping):
                    fn = dict(call["function"])
                    args = fn.get("arguments")
                    if isinstance(args, str):
                        try:
                            value = json.loads(args) if args.strip() else {}
                        except ValueError:
                            value = None
                        if isinstance(value, dict):
                            fn["arguments"] = value
                    call = {**call, "function": fn}
                fixed.append(call)
            m["tool_calls"] = fixed
        out.append(m)
    return out


def _template(template: ChatTemplate | str | os.PathLike[str]) -> ChatTemplate:
    if isinstance(template, ChatTemplate):
        return template
    if isinstance(template, str) and ("{{" in template or "{%" in template or "\n" in template):
        return ChatTemplate.from_string(template)
    return load_chat_template(template)


def _family(format: str | None, model: str | None) -> Family:
    if format is None and model is not None:
        found = family_for_model(model)
        if found is not None:
            return found
        from streamcall.formats.registry import format_for_model

        format = format_for_model(model)
        if format is None:
            raise ValueError(f"no tool-call format routes from the model id {model!r}")
    if format is None:
        raise ValueError("render_prompt needs a template, a format or a model")
    family = family_for(format)
    if family is None:
        have = sorted(f for fam in FAMILIES for f in fam.formats)
        raise ValueError(
            f"streamcall ships no chat template for the format {format!r} (it has one for "
            f"{', '.join(have)}): give the checkpoint's own template"
        )
    return family


def render_prompt(
    messages: Sequence[Any],
    *,
    tools: Sequence[Mapping[str, Any]] | None = None,
    template: ChatTemplate | str | os.PathLike[str] | None = None,
    format: str | None = None,
    model: str | None = None,
    add_generation_prompt: bool | None = None,
    continue_final_message: bool | str = False,
    chat_template_kwargs: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> str:
    """The prompt text for a conversation (module docstring), as transformers'
    ``apply_chat_template(messages, tools=..., tokenize=False, ...)`` writes it, but for
    one default:

    - ``add_generation_prompt`` is ``True`` unless said (transformers: ``False``): the
      prompt ends with the assistant's opening, ready to be sent to a completion server,
      as the proxy sends it. Pass ``add_generation_prompt=False`` for transformers' text.
      With ``continue_final_message`` it is ``False`` (both at once is a ``ValueError``,
      as in transformers).
    - ``continue_final_message`` (``True``, or the name of the field to continue) leaves
      the final message open: rendered without a generation prompt and cut right after
      that message's text, as transformers does, for the model to continue it.
    - ``messages`` may be dicts (``ChatCompletionMessageParam``), pydantic models (the
      openai SDK's ``ChatCompletionMessage``) or dataclasses; members that are ``None``
      are dropped, as transformers does.

    ``template`` renders as transformers does and takes the messages as they are (pass
    ``openai_messages(messages)`` for an OpenAI request, whose call arguments are JSON
    text); ``format`` or ``model`` picks a built-in family template, which reads OpenAI
    messages directly. ``chat_template_kwargs`` and any other keyword arguments reach the
    template (``enable_thinking``, ...).
    """
    extra = {**(chat_template_kwargs or {}), **kwargs}
    if add_generation_prompt is None:
        add_generation_prompt = not continue_final_message
    if continue_final_message and add_generation_prompt:
        raise ValueError(
            "continue_final_message and add_generation_prompt are not compatible: the "
            "first continues the final message, the second opens a new assistant message"
        )
    if template is not None:
        return _template(template).render(
            messages,
            tools=tools,
            add_generation_prompt=add_generation_prompt,
            continue_final_message=continue_final_message,
            **extra,
        )
    family = _family(format, model)
    chat = [
        {k: v for k, v in m.items() if v is not None} if isinstance(m, dict) else m
        for m in message_dicts(list(messages))
    ]
    _check_messages(chat)
    if not continue_final_message:
        return family.render(chat, tools, add_generation_prompt, extra)
    final, _ = tag_final_message(chat, continue_final_message)
    return cut_after_final_message(family.render(chat, tools, False, extra), final)


_ROLES = ("system", "developer", "user", "assistant", "tool", "function")


def _check_messages(messages: Sequence[Any]) -> None:
    """What a family template reads, or a ``ValueError`` naming the message at fault: a
    role it writes (an unknown one would be dropped, and its message with it), and an
    assistant's ``tool_calls`` as a list of calls with a function name."""
    for number, message in enumerate(messages):
        where = f"messages[{number}]"
        if not isinstance(message, Mapping):
            raise ValueError(f"{where} must be a message object, not {type(message).__name__}")
        role = message.get("role")
        if role not in _ROLES:
            raise ValueError(f"{where}.role must be one of {', '.join(_ROLES)}, not {role!r}")
        calls = message.get("tool_calls")
        if calls is None:
            continue
        if not isinstance(calls, list | tuple):
            raise ValueError(f"{where}.tool_calls must be a list of calls, not {calls!r}")
        for index, call in enumerate(calls):
            fn = call.get("function") if isinstance(call, Mapping) else None
            if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
                raise ValueError(f"{where}.tool_calls[{index}].function.name is required")


def _stop_for(template: ChatTemplate, fmt: str | None) -> tuple[str, ...]:
    stops: list[str] = []
    family = family_for(fmt) if fmt else None
    if family is not None:
        stops.extend(family.stop)
    eos = template.special_tokens.get("eos_token")
    if eos and eos not in stops:
        stops.append(eos)
    return tuple(stops)


class Prompter:
    """Renders each request of a server the same way: with ``template`` (a checkpoint's),
    else with the built-in family of ``format`` (or of the request's ``model``).

    ``prompt(body)`` takes a chat-completions request body: its ``messages``, ``tools``
    and ``chat_template_kwargs`` (and ``reasoning_effort``, which some templates read).
    The prompt starts without the tokenizer's BOS token, since a completion server adds
    it when it tokenizes (vLLM, llama.cpp and TGI all do, per the model's settings).
    """

    def __init__(
        self,
        *,
        template: ChatTemplate | None = None,
        format: str | None = None,
    ) -> None:
        self.template = template
        self.format = format
        self.family = family_for(format) if format and template is None else None
        #: what renders the prompts, for logs and ``/health``
        self.source = (
            template.name
            if template is not None
            else f"streamcall's {self.family.name} template"
            if self.family is not None
            else "streamcall's template for each request's model"
        )

    def prompt(self, body: Mapping[str, Any]) -> Prompt:
        messages = body.get("messages") or []
        tools = body.get("tools") or None
        kwargs = dict(body.get("chat_template_kwargs") or {})
        if body.get("reasoning_effort") is not None:
            kwargs.setdefault("reasoning_effort", body["reasoning_effort"])
        if self.template is not None:
            text = self.template.render(
                openai_messages(messages), tools=tools, add_generation_prompt=True, **kwargs
            )
            bos = self.template.special_tokens.get("bos_token")
            if bos and text.startswith(bos):
                text = text[len(bos) :]
            return Prompt(text, _stop_for(self.template, self.format), self.template.name)
        family = self.family or _family(None, body.get("model") or None)
        text = family.render(messages, tools, True, {"bos_token": "", **kwargs})
        return Prompt(text, family.stop, f"streamcall's {family.name} template")
