"""The Qwen families' renderers: ChatML with Hermes calls (Qwen3, Qwen2.5, Hermes 2 Pro/3),
ChatML with Qwen3-Coder's XML calls, and Qwen3.5/3.6 (the tool list as JSON, Qwen3-Coder's
calls). Each writes the text its checkpoint's template writes for an agent loop
(``families.py`` says what a family is; tests/prompt/test_families.py holds each one
against its template)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from streamcall.prompt.reading import (
    Kwargs,
    Messages,
    Tools,
    _function,
    _render_calls,
    _split_reasoning,
    content_text,
    tool_calls,
)

# -- ChatML with Hermes calls (Qwen3, Qwen2.5, Hermes 2 Pro/3) -----------------------------

_HERMES_TOOLS = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
)
_HERMES_TOOLS_END = (
    "\n</tools>\n\nFor each function call, return a json object with function name and "
    "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n'
)


def _is_tool_response(message: Mapping[str, Any]) -> bool:
    text = content_text(message.get("content"))
    return text.startswith("<tool_response>") and text.endswith("</tool_response>")


def _chatml_tool_results(
    out: list[str], messages: Messages, i: int, open_: str, item: Callable[[str], str]
) -> None:
    """A tool result; consecutive results share one ``user`` turn."""
    if i == 0 or messages[i - 1].get("role") != "tool":
        out.append(open_)
    out.append(item(content_text(messages[i].get("content"))))
    if i == len(messages) - 1 or messages[i + 1].get("role") != "tool":
        out.append("<|im_end|>\n")


_QWEN25_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."


def _render_hermes(messages: Messages, tools: Tools, gen: bool, kwargs: Kwargs) -> str:
    return _hermes(messages, tools, gen, kwargs, qwen25=False)


def _render_qwen25(messages: Messages, tools: Tools, gen: bool, kwargs: Kwargs) -> str:
    return _hermes(messages, tools, gen, kwargs, qwen25=True)


def _hermes(messages: Messages, tools: Tools, gen: bool, kwargs: Kwargs, *, qwen25: bool) -> str:
    """Qwen3's template, or (``qwen25``) Qwen2.5's, which it grew from: Qwen2.5 writes a
    default system prompt where there is none, keeps no reasoning (an assistant's content is
    written as it came) and opens no thinking block."""
    out: list[str] = []
    first_system = bool(messages) and messages[0].get("role") == "system"
    system = content_text(messages[0].get("content")) if first_system else None
    if qwen25 and system is None:
        system = _QWEN25_SYSTEM
    if tools:
        out.append("<|im_start|>system\n")
        if system is not None:
            out.append(system + "\n\n")
        out.append(_HERMES_TOOLS)
        for tool in tools:
            out.append("\n" + json.dumps(tool, ensure_ascii=False))
        out.append(_HERMES_TOOLS_END)
    elif system is not None:
        out.append(f"<|im_start|>system\n{system}<|im_end|>\n")
    last_query = len(messages) - 1
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user" and not _is_tool_response(messages[i]):
            last_query = i
            break
    last = len(messages) - 1
    for i, message in enumerate(messages):
        role = message.get("role")
        if role == "user" or (role == "system" and i > 0):
            out.append(f"<|im_start|>{role}\n{content_text(message.get('content'))}<|im_end|>\n")
        elif role == "assistant":
            reasoning, content = _split_reasoning(message)
            if qwen25:
                reasoning, content = "", content_text(message.get("content"))
            if not qwen25 and i > last_query and (i == last or reasoning):
                out.append(
                    f"<|im_start|>assistant\n<think>\n{reasoning.strip(chr(10))}\n</think>\n\n"
                    + content.lstrip("\n")
                )
            else:
                out.append("<|im_start|>assistant\n" + content)
            for n, call in enumerate(tool_calls(message)):
                if n or content:
                    out.append("\n")
                out.append(_render_calls("hermes", [call]))
            out.append("<|im_end|>\n")
        elif role == "tool":
            _chatml_tool_results(
                out,
                messages,
                i,
                "<|im_start|>user",
                lambda t: f"\n<tool_response>\n{t}\n</tool_response>",
            )
    if gen:
        out.append("<|im_start|>assistant\n")
        if not qwen25 and kwargs.get("enable_thinking") is False:
            out.append("<think>\n\n</think>\n\n")
    return "".join(out)


# -- ChatML with Qwen3-Coder's XML calls -------------------------------------------------

_CODER_DEFAULT_SYSTEM = (
    "You are Qwen, a helpful AI assistant that can interact with a computer to solve tasks."
)
_CODER_INSTRUCTIONS = (
    "\n\nIf you choose to call a tool ONLY reply in the following format with NO suffix:\n\n"
    "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n"
    "</parameter>\n<parameter=example_parameter_2>\nvalue_2\n</parameter>\n</function>\n"
    "</tool_call>\n\n<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified format: "
    "the tool calling block MUST begin with an opening <tool_call> tag and end with a closing "
    "</tool_call> tag.\n- Required parameters MUST be specified\n- You may provide optional "
    "reasoning for your function call in natural language BEFORE the function call, but NOT "
    "after\n- If there is no function call available, answer the question like normal with "
    "your current knowledge and do not tell the user about function calls\n</IMPORTANT>"
)


def _jinja_string(value: Any) -> str:
    """``value | string`` as Jinja writes it (Python's ``str``)."""
    return value if isinstance(value, str) else str(value)


def _extra_keys(value: Any, handled: tuple[str, ...]) -> str:
    if not isinstance(value, Mapping):
        return ""
    parts = []
    for key, item in value.items():
        if key in handled:
            continue
        if isinstance(item, Mapping | list | tuple):
            text = json.dumps(item, ensure_ascii=False)
        else:
            text = _jinja_string(item)
        parts.append(f"\n<{key}>{text}</{key}>")
    return "".join(parts)


def _coder_tools(tools: Sequence[Mapping[str, Any]]) -> str:
    out = ["\n\n# Tools\n\nYou have access to the following tools:\n\n<tools>"]
    for tool in tools:
        fn = _function(tool)
        out.append(f"\n<function>\n<name>{fn.get('name')}</name>")
        if "description" in fn:
            out.append(f"\n<description>{_jinja_string(fn['description']).strip()}</description>")
        out.append("\n<parameters>")
        params = fn.get("parameters")
        props = params.get("properties") if isinstance(params, Mapping) else None
        if isinstance(props, Mapping):
            for pname, fields in props.items():
                out.append(f"\n<parameter>\n<name>{pname}</name>")
                if isinstance(fields, Mapping):
                    if "type" in fields:
                        out.append(f"\n<type>{_jinja_string(fields['type'])}</type>")
                    if "description" in fields:
                        desc = _jinja_string(fields["description"]).strip()
                        out.append(f"\n<description>{desc}</description>")
                out.append(_extra_keys(fields, ("name", "type", "description")))
                out.append("\n</parameter>")
        out.append(_extra_keys(params, ("type", "properties")))
        out.append("\n</parameters>")
        out.append(_extra_keys(fn, ("type", "name", "description", "parameters")))
        out.append("\n</function>")
    out.append("\n</tools>")
    out.append(_CODER_INSTRUCTIONS)
    return "".join(out)


def _render_qwen3_coder(messages: Messages, tools: Tools, gen: bool, kwargs: Kwargs) -> str:
    out: list[str] = []
    loop = list(messages)
    system = None
    if loop and loop[0].get("role") == "system":
        system = content_text(loop[0].get("content"))
        loop = loop[1:]
    if system is not None:
        out.append("<|im_start|>system\n" + system)
    elif tools:
        out.append("<|im_start|>system\n" + _CODER_DEFAULT_SYSTEM)
    if tools:
        out.append(_coder_tools(tools))
    if system is not None or tools:
        out.append("<|im_end|>\n")
    for i, message in enumerate(loop):
        role = message.get("role")
        calls = tool_calls(message) if role == "assistant" else []
        if calls:
            out.append("<|im_start|>assistant")
            content = message.get("content")
            if isinstance(content, str) and content.strip():
                out.append("\n" + content.strip() + "\n")
            for call in calls:
                out.append("\n" + _render_calls("qwen3_coder", [call]))
            out.append("<|im_end|>\n")
        elif role == "tool":
            if i > 0 and loop[i - 1].get("role") != "tool":
                out.append("<|im_start|>user\n")
            out.append(
                f"<tool_response>\n{content_text(message.get('content'))}\n</tool_response>\n"
            )
            if i == len(loop) - 1 or loop[i + 1].get("role") != "tool":
                out.append("<|im_end|>\n")
        else:
            out.append(f"<|im_start|>{role}\n{content_text(message.get('content'))}<|im_end|>\n")
    if gen:
        out.append("<|im_start|>assistant\n")
    return "".join(out)


# -- Qwen3.5 / Qwen3.6: the tool list as JSON, Qwen3-Coder's XML calls -------------------

_QWEN35_TOOLS = (
    "<|im_start|>system\n# Tools\n\nYou have access to the following functions:\n\n<tools>"
)
_QWEN35_INSTRUCTIONS = (
    "\n</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO "
    "suffix:\n\n<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\n"
    "value_1\n</parameter>\n<parameter=example_parameter_2>\nThis is the value for the second "
    "parameter\nthat can span\nmultiple lines\n</parameter>\n</function>\n</tool_call>\n\n"
    "<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified format: an inner "
    "<function=...></function> block must be nested within <tool_call></tool_call> XML tags\n"
    "- Required parameters MUST be specified\n- You may provide optional reasoning for your "
    "function call in natural language BEFORE the function call, but NOT after\n- If there is "
    "no function call available, answer the question like normal with your current knowledge "
    "and do not tell the user about function calls\n</IMPORTANT>"
)


def _qwen35_value(value: Any) -> str:
    """A parameter's value as Qwen3.5's template writes it: objects and lists as JSON, any
    other value with Jinja's ``string`` (Python's ``str``: ``True``, ``None``)."""
    if isinstance(value, Mapping | list | tuple):
        return json.dumps(value, ensure_ascii=False)
    return _jinja_string(value)


def _render_qwen35(messages: Messages, tools: Tools, gen: bool, kwargs: Kwargs) -> str:
    return _qwen35(messages, tools, gen, kwargs, preserve=False)


def _render_qwen36(messages: Messages, tools: Tools, gen: bool, kwargs: Kwargs) -> str:
    return _qwen35(messages, tools, gen, kwargs, preserve=kwargs.get("preserve_thinking") is True)


def _qwen35(messages: Messages, tools: Tools, gen: bool, kwargs: Kwargs, *, preserve: bool) -> str:
    """Qwen3.5's template: the tool list before the system text, every message's text
    stripped, reasoning kept after the last user query (or everywhere, ``preserve``: Qwen3.6's
    ``preserve_thinking``), and the answer opened with ``<think>\\n``. The template refuses
    a conversation without a user query, a system message after the first, and other roles;
    so does this."""
    if not messages:
        raise ValueError("qwen35: no messages")
    texts = [content_text(m.get("content")).strip() for m in messages]
    first_system = messages[0].get("role") == "system"
    out: list[str] = []
    if tools:
        out.append(_QWEN35_TOOLS)
        out.extend("\n" + json.dumps(tool, ensure_ascii=False) for tool in tools)
        out.append(_QWEN35_INSTRUCTIONS)
        if first_system and texts[0]:
            out.append("\n\n" + texts[0])
        out.append("<|im_end|>\n")
    elif first_system:
        out.append(f"<|im_start|>system\n{texts[0]}<|im_end|>\n")
    last_query = next(
        (
            i
            for i in range(len(messages) - 1, -1, -1)
            if messages[i].get("role") == "user"
            and not (
                texts[i].startswith("<tool_response>") and texts[i].endswith("</tool_response>")
            )
        ),
        None,
    )
    if last_query is None:
        raise ValueError("qwen35: no user query found in messages")
    for i, message in enumerate(messages):
        role = message.get("role")
        text = texts[i]
        if role == "system":
            if i:
                raise ValueError("qwen35: a system message must be at the beginning")
        elif role == "user":
            out.append(f"<|im_start|>user\n{text}<|im_end|>\n")
        elif role == "assistant":
            reasoning = message.get("reasoning_content")
            if not isinstance(reasoning, str):
                reasoning = ""
                if "</think>" in text:
                    reasoning = text.split("</think>")[0].rstrip("\n").split("<think>")[-1]
                    reasoning = reasoning.lstrip("\n")
                    text = text.split("</think>")[-1].lstrip("\n")
            if preserve or i > last_query:
                out.append(
                    f"<|im_start|>assistant\n<think>\n{reasoning.strip()}\n</think>\n\n{text}"
                )
            else:
                out.append("<|im_start|>assistant\n" + text)
            for n, (name, args) in enumerate(tool_calls(message)):
                lead = "\n" if n else "\n\n" if text.strip() else ""
                out.append(f"{lead}<tool_call>\n<function={name}>\n")
                out.extend(
                    f"<parameter={key}>\n{_qwen35_value(value)}\n</parameter>\n"
                    for key, value in args.items()
                )
                out.append("</function>\n</tool_call>")
            out.append("<|im_end|>\n")
        elif role == "tool":
            if i and messages[i - 1].get("role") != "tool":
                out.append("<|im_start|>user")
            out.append(f"\n<tool_response>\n{text}\n</tool_response>")
            if i == len(messages) - 1 or messages[i + 1].get("role") != "tool":
                out.append("<|im_end|>\n")
        else:
            raise ValueError(f"qwen35: the template writes no {role!r} message")
    if gen:
        thinking_off = kwargs.get("enable_thinking") is False
        out.append(
            "<|im_start|>assistant\n" + ("<think>\n\n</think>\n\n" if thinking_off else "<think>\n")
        )
    return "".join(out)
