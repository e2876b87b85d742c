"""The chat templates streamcall ships: a prompt for a format family, with no checkpoint.

When the proxy renders the prompt itself (``--upstream-tools render``) and has no
checkpoint to read a template from, it writes the conversation the way the format's
models were trained to read it. Each family here follows one public chat template (named
in ``Family.source``) for what a tool-calling conversation needs:

- the tool list, in the system message (or where the family puts it), in the wording of
  that template;
- earlier assistant calls, written with the format's own ``render`` (the syntax its
  parser reads back), and the message's reasoning where the template keeps it;
- tool results, framed as the family frames them;
- the generation prompt, with the thinking switch the template reads;
- the stop strings that end the family's turn.

They are written here, not copied: Python that produces the same text as the named
template for the conversations an agent loop sends (tests/prompt/test_families.py holds
each one against that template, rendered by ``ChatTemplate``). What a template does for
other inputs (images, documents, built-in tools) is not repeated. A checkpoint's own
template (``--model-dir``) is always the better choice where there is one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from streamcall.formats.registry import parser_class

__all__ = ["FAMILIES", "Family", "family_for", "family_for_model", "family_named"]

Messages = Sequence[Mapping[str, Any]]
Tools = Sequence[Mapping[str, Any]] | None
Kwargs = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Family:
    """A built-in chat template for the formats in ``formats``."""

    name: str
    formats: tuple[str, ...]
    #: (messages, tools, add_generation_prompt, template kwargs) -> prompt text
    render: Callable[[Messages, Tools, bool, Kwargs], str]
    #: strings that end the model's turn (sent as ``stop``)
    stop: tuple[str, ...]
    #: the public template this one follows
    source: str
    #: the format whose syntax the calls are written in, for a family that is no format's
    #: template (``formats`` empty: a model's own variant, chosen only by its model id)
    calls: str = ""

    @property
    def call_format(self) -> str:
        """The format whose parser reads this family's calls back."""
        return self.calls or self.formats[0]


# -- reading OpenAI messages ------------------------------------------------------------


def content_text(content: Any) -> str:
    """A message's content as text: a string as is, text parts joined, else JSON."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return json.dumps(content, ensure_ascii=False)


def tool_calls(message: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """An assistant message's calls as ``(name, arguments)``; arguments given as JSON text
    (as OpenAI clients send them) are decoded, anything that is not an object is ``{}``."""
    out: list[tuple[str, dict[str, Any]]] = []
    for call in message.get("tool_calls") or ():
        if not isinstance(call, Mapping):
            continue
        fn = call.get("function", call)
        if not isinstance(fn, Mapping):
            continue
        args = fn.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except ValueError:
                args = {}
        out.append((str(fn.get("name") or ""), args if isinstance(args, dict) else {}))
    return out


def _function(tool: Mapping[str, Any]) -> Mapping[str, Any]:
    fn = tool.get("function")
    return fn if isinstance(fn, Mapping) else tool


def _render_calls(fmt: str, calls: list[tuple[str, dict[str, Any]]]) -> str:
    return parser_class(fmt).render(calls)


def _split_reasoning(message: Mapping[str, Any]) -> tuple[str, str]:
    """(reasoning, content) of an assistant message: its ``reasoning_content`` (or
    ``reasoning``), else what its content holds before ``</think>``."""
    content = content_text(message.get("content"))
    reasoning = message.get("reasoning_content", message.get("reasoning"))
    if isinstance(reasoning, str):
        return reasoning, content
    if "</think>" in content:
        # as the Qwen3 template: the last </think> splits, the text after <think> is kept
        parts = content.split("</think>")
        return parts[0].rstrip("\n").split("<think>")[-1].lstrip("\n"), parts[-1].lstrip("\n")
    return "", content


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


# -- Llama 3.1 JSON calls ----------------------------------------------------------------

_LLAMA_ASK = (
    "Given the following functions, please respond with a JSON for a function call "
    "with its proper arguments that best answers the given prompt.\n\n"
    'Respond in the format {"name": function name, "parameters": dictionary of argument '
    "name and its value}.Do not use variables.\n\n"
)


def _llama_turn(role: str, text: str) -> str:
    return f"<|start_header_id|>{role}<|end_header_id|>\n\n{text}<|eot_id|>"


def _render_llama3(messages: Messages, tools: Tools, gen: bool, kwargs: Kwargs) -> str:
    return _llama3(messages, tools, gen, kwargs, "26 Jul 2024")


def _render_llama32(messages: Messages, tools: Tools, gen: bool, kwargs: Kwargs) -> str:
    # Llama 3.2's template takes today's date from strftime_now, which transformers gives it
    return _llama3(messages, tools, gen, kwargs, datetime.now().strftime("%d %b %Y"))


def _llama3(messages: Messages, tools: Tools, gen: bool, kwargs: Kwargs, today: str) -> str:
    """Llama 3.1's template (3.3's is the same text); Llama 3.2's differs in the date it
    writes when the request gives no ``date_string`` (and in built-in tools, not written
    here)."""
    out = [str(kwargs.get("bos_token", "<|begin_of_text|>"))]
    loop = list(messages)
    system = ""
    if loop and loop[0].get("role") == "system":
        system = content_text(loop[0].get("content")).strip()
        loop = loop[1:]
    date = str(kwargs.get("date_string", today))
    head = "Environment: ipython\n" if tools is not None else ""
    out.append(
        "<|start_header_id|>system<|end_header_id|>\n\n"
        + head
        + f"Cutting Knowledge Date: December 2023\nToday Date: {date}\n\n{system}<|eot_id|>"
    )
    if tools is not None:
        if not loop:
            raise ValueError(
                "llama3_json: the tools go in the first user message, and there is none"
            )
        first = content_text(loop[0].get("content")).strip()
        loop = loop[1:]
        listed = "".join(json.dumps(t, ensure_ascii=False, indent=4) + "\n\n" for t in tools)
        out.append(
            "<|start_header_id|>user<|end_header_id|>\n\n"
            + _LLAMA_ASK
            + listed
            + first
            + "<|eot_id|>"
        )
    for message in loop:
        role = message.get("role")
        if role in ("tool", "ipython"):
            # the template writes any iterable content, a string included, with tojson
            content = message.get("content")
            out.append(_llama_turn("ipython", json.dumps(content, ensure_ascii=False)))
        elif "tool_calls" in message:
            calls = tool_calls(message)
            if len(calls) != 1:
                raise ValueError("llama3_json: Llama 3.1 writes one tool call per turn")
            out.append(_llama_turn("assistant", _render_calls("llama3_json", calls)))
        else:
            out.append(_llama_turn(str(role), content_text(message.get("content")).strip()))
    if gen:
        out.append("<|start_header_id|>assistant<|end_header_id|>\n\n")
    return "".join(out)


# -- Mistral (v11+ tokenizers: [TOOL_CALLS]name[ARGS]{...}) ----------------------------------


def _render_mistral(messages: Messages, tools: Tools, gen: bool, kwargs: Kwargs) -> str:
    out = [str(kwargs.get("bos_token", "<s>"))]
    loop = list(messages)
    if loop and loop[0].get("role") == "system":
        out.append(f"[SYSTEM_PROMPT]{content_text(loop[0].get('content'))}[/SYSTEM_PROMPT]")
        loop = loop[1:]
    last_user = max((i for i, m in enumerate(loop) if m.get("role") == "user"), default=-1)
    for i, message in enumerate(loop):
        role = message.get("role")
        if role == "user":
            if tools and i == last_user:
                out.append(
                    "[AVAILABLE_TOOLS]"
                    + json.dumps(list(tools), ensure_ascii=False)
                    + "[/AVAILABLE_TOOLS]"
                )
            out.append(f"[INST]{content_text(message.get('content'))}[/INST]")
        elif role == "system":
            out.append(f"[SYSTEM_PROMPT]{content_text(message.get('content'))}[/SYSTEM_PROMPT]")
        elif role == "assistant":
            out.append(content_text(message.get("content")))
            calls = tool_calls(message)
            if calls:
                out.append(_render_calls("mistral", calls))
            out.append(str(kwargs.get("eos_token", "</s>")))
        elif role == "tool":
            call_id = str(message.get("tool_call_id") or "")
            out.append(
                f"[TOOL_RESULTS]{call_id}[TOOL_CONTENT]{content_text(message.get('content'))}[/TOOL_RESULTS]"
            )
    return "".join(out)


# -- DeepSeek V3.1 -----------------------------------------------------------------------

_DS_TOOLS = "\n\n## Tools\nYou have access to the following tools:\n"
_DS_TOOLS_END = (
    "\nIMPORTANT: ALWAYS adhere to this exact format for tool use:\n"
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>tool_call_name<｜tool▁sep｜>tool_call_arguments"
    "<｜tool▁call▁end｜>{{additional_tool_calls}}<｜tool▁calls▁end｜>\n\nWhere:\n\n"
    "- `tool_call_name` must be an exact match to one of the available tools\n"
    "- `tool_call_arguments` must be valid JSON that strictly follows the tool's Parameters "
    "Schema\n- For multiple tool calls, chain them directly without separators or spaces\n"
)


def _render_deepseek_v31(messages: Messages, tools: Tools, gen: bool, kwargs: Kwargs) -> str:
    thinking = bool(kwargs.get("thinking", kwargs.get("enable_thinking", False)))
    system = "\n\n".join(
        content_text(m.get("content")) for m in messages if m.get("role") == "system"
    )
    if tools:
        listed = "".join(
            f"\n### {_function(t).get('name')}\nDescription: {_function(t).get('description', '')}"
            f"\n\nParameters: {json.dumps(_function(t).get('parameters', {}), ensure_ascii=False)}\n"
            for t in tools
        )
        system += _DS_TOOLS + listed + _DS_TOOLS_END
    out = [str(kwargs.get("bos_token", "<｜begin▁of▁sentence｜>")), system]
    # as the checkpoint's template: "</think>" opens an answer without thinking, and the
    # generation prompt follows a user message only (after tool output the model answers
    # in the same turn; after an assistant message it has answered)
    last_user = is_tool = False
    for message in messages:
        role = message.get("role")
        content = content_text(message.get("content"))
        if role == "user":
            is_tool = False
            last_user = True
            out.append("<｜User｜>" + content)
        elif role == "assistant":
            calls = tool_calls(message)
            if calls:
                if last_user:
                    out.append("<｜Assistant｜></think>")
                out.append(content + _render_calls("deepseek_v31", calls) + "<｜end▁of▁sentence｜>")
            else:
                if last_user:
                    prefix = message.get("prefix") and thinking
                    out.append("<｜Assistant｜>" + ("<think>" if prefix else "</think>"))
                if not is_tool and "</think>" in content:
                    content = content.split("</think>", 1)[1]
                out.append(content + "<｜end▁of▁sentence｜>")
            last_user = is_tool = False
        elif role == "tool":
            last_user = False
            is_tool = True
            out.append(f"<｜tool▁output▁begin｜>{content}<｜tool▁output▁end｜>")
    if gen and last_user and not is_tool:
        out.append("<｜Assistant｜>" + ("<think>" if thinking else "</think>"))
    return "".join(out)


# -- Granite 4 ---------------------------------------------------------------------------

_GRANITE_TOOLS = (
    "You are a helpful assistant with access to the following tools. You may call one or "
    "more tools to assist with the user query.\n\nYou are provided with function signatures "
    "within <tools></tools> XML tags:\n<tools>"
)
_GRANITE_TOOLS_END = (
    "\n</tools>\n\nFor each tool call, return a json object with function name and arguments "
    "within <tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>. If a tool does '
    "not exist in the provided list of tools, notify the user that you do not have the "
    "ability to fulfill the request."
)
_GRANITE_DEFAULT_SYSTEM = (
    "You are a helpful assistant. Please ensure responses are professional, accurate, and safe."
)


def _granite_text(content: Any) -> str:
    """Granite's content: a string, or its text parts joined by newlines."""
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", ""))
            for p in content
            if isinstance(p, Mapping) and p.get("type") == "text"
        )
    return content_text(content)


def _render_granite4(messages: Messages, tools: Tools, gen: bool, kwargs: Kwargs) -> str:
    tools_text = ""
    if tools:
        listed = "".join("\n" + json.dumps(t, ensure_ascii=False) for t in tools)
        tools_text = _GRANITE_TOOLS + listed + _GRANITE_TOOLS_END
    system = ""
    if messages and messages[0].get("role") == "system":
        system = _granite_text(messages[0].get("content"))
        if tools_text:
            system += "\n\n" + tools_text
    else:
        system = tools_text
    out = [
        f"<|start_of_role|>system<|end_of_role|>{system or _GRANITE_DEFAULT_SYSTEM}<|end_of_text|>\n"
    ]
    for i, message in enumerate(messages):
        role = message.get("role")
        text = _granite_text(message.get("content"))
        if role == "user" or (role == "system" and i > 0):
            out.append(f"<|start_of_role|>{role}<|end_of_role|>{text}<|end_of_text|>\n")
        elif role == "assistant":
            out.append("<|start_of_role|>assistant<|end_of_role|>" + text)
            for n, call in enumerate(tool_calls(message)):
                if n or text:
                    out.append("\n")
                # Granite 4's template writes Hermes' object form, which granite4 reads
                out.append(_render_calls("hermes", [call]))
            out.append("<|end_of_text|>\n")
        elif role == "tool":
            if i == 0 or messages[i - 1].get("role") != "tool":
                out.append("<|start_of_role|>user<|end_of_role|>")
            out.append(f"\n<tool_response>\n{text}\n</tool_response>")
            if i == len(messages) - 1 or messages[i + 1].get("role") != "tool":
                out.append("<|end_of_text|>\n")
    if gen:
        out.append("<|start_of_role|>assistant<|end_of_role|>")
    return "".join(out)


# -- GLM-4.5 / 4.6 -----------------------------------------------------------------------

_GLM_TOOLS = (
    "<|system|>\n# Tools\n\nYou may call one or more functions to assist with the user query."
    "\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
)
_GLM_TOOLS_END = (
    "</tools>\n\nFor each function call, output the function name and arguments within the "
    "following XML format:\n<tool_call>{function-name}\n<arg_key>{arg-key-1}</arg_key>\n"
    "<arg_value>{arg-value-1}</arg_value>\n<arg_key>{arg-key-2}</arg_key>\n"
    "<arg_value>{arg-value-2}</arg_value>\n...\n</tool_call>"
)


def _render_glm45(messages: Messages, tools: Tools, gen: bool, kwargs: Kwargs) -> str:
    out = ["[gMASK]<sop>"]
    if tools:
        listed = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tools)
        out.append(_GLM_TOOLS + listed + _GLM_TOOLS_END)
    thinking_off = "enable_thinking" in kwargs and not kwargs["enable_thinking"]
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    for i, message in enumerate(messages):
        role = message.get("role")
        text = content_text(message.get("content"))
        if role == "user":
            nothink = "/nothink" if thinking_off and not text.endswith("/nothink") else ""
            out.append(f"<|user|>\n{text}{nothink}")
        elif role == "assistant":
            reasoning, content = _split_reasoning(message)
            if i > last_user and reasoning:
                out.append(f"<|assistant|>\n<think>{reasoning.strip()}</think>")
            else:
                out.append("<|assistant|>\n<think></think>")
            if content.strip():
                out.append("\n" + content.strip())
            for call in tool_calls(message):
                out.append("\n" + _render_calls("glm45", [call]))
        elif role == "tool":
            if i == 0 or messages[i - 1].get("role") != "tool":
                out.append("<|observation|>")
            out.append(f"\n<tool_response>\n{text}\n</tool_response>")
        elif role == "system":
            out.append(f"<|system|>\n{text}")
    if gen:
        out.append("<|assistant|>" + ("\n<think></think>" if thinking_off else ""))
    return "".join(out)


# -- Kimi K2 -----------------------------------------------------------------------------


def _render_kimi_k2(messages: Messages, tools: Tools, gen: bool, kwargs: Kwargs) -> str:
    from streamcall.formats.kimi import KimiK2Parser

    out: list[str] = []
    if tools:
        out.append(
            "<|im_system|>tool_declare<|im_middle|>"
            + json.dumps(list(tools), ensure_ascii=False)
            + "<|im_end|>"
        )
    if messages and messages[0].get("role") != "system":
        out.append(
            "<|im_system|>system<|im_middle|>You are Kimi, an AI assistant created by "
            "Moonshot AI.<|im_end|>\n"  # the template keeps this line's newline
        )
    counter = 0
    pending: list[str] = []  # the ids of calls whose results have not come yet
    for message in messages:
        role = str(message.get("role"))
        name = str(message.get("name") or role)
        head = {"user": "<|im_user|>", "assistant": "<|im_assistant|>"}.get(role, "<|im_system|>")
        out.append(f"{head}{name}<|im_middle|>")
        calls = tool_calls(message) if role == "assistant" else []
        if calls:
            out.append(content_text(message.get("content")))
            out.append(KimiK2Parser.render(calls, counter))
            pending.extend(f"functions.{n}:{counter + i}" for i, (n, _) in enumerate(calls))
            counter += len(calls)
        elif role == "tool":
            call_id = (
                pending.pop(0)
                if pending
                else f"functions.{message.get('name', 'unknown')}:{counter}"
            )
            out.append(f"## Return of {call_id}\n{content_text(message.get('content'))}")
        else:
            out.append(content_text(message.get("content")))
        out.append("<|im_end|>")
    if gen:
        out.append("<|im_assistant|>assistant<|im_middle|>")
    return "".join(out)


_QWEN3_SOURCE = "Qwen/Qwen3-0.6B tokenizer_config.json chat_template (Apache-2.0)"

FAMILIES: tuple[Family, ...] = (
    Family(
        "chatml_hermes",
        ("hermes", "qwen3_json"),
        _render_hermes,
        ("<|im_end|>",),
        _QWEN3_SOURCE,
    ),
    Family(
        "qwen3_coder",
        ("qwen3_coder", "qwen3_xml", "mimo"),
        _render_qwen3_coder,
        ("<|im_end|>",),
        "Qwen/Qwen3-Coder-30B-A3B-Instruct chat_template.jinja (Apache-2.0)",
    ),
    Family(
        "llama3_json",
        ("llama3_json",),
        _render_llama3,
        ("<|eot_id|>", "<|eom_id|>"),
        "meta-llama/Llama-3.1-8B-Instruct tokenizer_config.json chat_template",
    ),
    Family(
        "mistral",
        ("mistral",),
        _render_mistral,
        ("</s>",),
        "mistralai/Mistral-Small-3.2-24B-Instruct-2506 chat template (tool part), v11+ tokens",
    ),
    Family(
        "granite4",
        ("granite4",),
        _render_granite4,
        ("<|end_of_text|>",),
        "ibm-granite/granite-4.0-h-small chat_template (Apache-2.0)",
    ),
    Family(
        "deepseek_v31",
        ("deepseek_v31",),
        _render_deepseek_v31,
        ("<｜end▁of▁sentence｜>",),
        "vllm-project/vllm examples/tool_chat_template_deepseekv31.jinja (Apache-2.0)",
    ),
    Family(
        "glm45",
        ("glm45",),
        _render_glm45,
        ("<|user|>", "<|observation|>"),
        "zai-org/GLM-4.6 chat_template.jinja (MIT)",
    ),
    Family(
        "kimi_k2",
        ("kimi_k2",),
        _render_kimi_k2,
        ("<|im_end|>",),
        "moonshotai/Kimi-K2-Instruct chat_template.jinja (modified MIT)",
    ),
    # a model's own variant of a family, chosen by its model id only (``_MODEL_FAMILIES``)
    Family(
        "qwen25",
        (),
        _render_qwen25,
        ("<|im_end|>",),
        "Qwen/Qwen2.5-7B-Instruct tokenizer_config.json chat_template (Apache-2.0)",
        calls="hermes",
    ),
    Family(
        "qwen35",
        (),
        _render_qwen35,
        ("<|im_end|>",),
        "Qwen/Qwen3.5-4B chat_template.jinja (Apache-2.0)",
        calls="qwen3_coder",
    ),
    Family(
        "qwen36",
        (),
        _render_qwen36,
        ("<|im_end|>",),
        "Qwen/Qwen3.5-4B chat_template.jinja, with Qwen3.6's preserve_thinking switch",
        calls="qwen3_coder",
    ),
    Family(
        "llama32_json",
        (),
        _render_llama32,
        ("<|eot_id|>", "<|eom_id|>"),
        "meta-llama/Llama-3.2-3B-Instruct tokenizer_config.json chat_template",
        calls="llama3_json",
    ),
)

_BY_FORMAT = {fmt: family for family in FAMILIES for fmt in family.formats}
_BY_NAME = {family.name: family for family in FAMILIES}

#: model ids whose chat template is not the one their parser's format suggests: Qwen3's
#: parser route is ``qwen3_xml`` (it reads both syntaxes), but Qwen2.5/QwQ/Qwen3 were
#: trained on the Hermes prompt (Qwen2.5 with its own default system prompt), Qwen3-Coder
#: on the XML one, and Qwen3.5 and later on their own (tools as JSON, XML calls); Llama 3.2
#: writes today's date. Case-insensitive substrings, first match wins; the value is a
#: family's name.
_MODEL_FAMILIES = (
    ("qwen3-coder", "qwen3_coder"),
    ("qwen3.5", "qwen35"),
    ("qwen3.6", "qwen36"),
    ("qwen2.5", "qwen25"),
    ("qwen", "chatml_hermes"),
    ("llama-3.2", "llama32_json"),
)


def family_for(format: str) -> Family | None:
    """The built-in template for a tool-call format, or None where streamcall has none."""
    return _BY_FORMAT.get(format)


def family_named(name: str) -> Family | None:
    """A built-in template by its name (``Family.name``)."""
    return _BY_NAME.get(name)


def family_for_model(model_id: str) -> Family | None:
    """The built-in template for a model id (``_MODEL_FAMILIES``, else its format's)."""
    from streamcall.formats.registry import format_for_model

    lowered = model_id.lower()
    for pattern, name in _MODEL_FAMILIES:
        if pattern in lowered:
            return _BY_NAME[name]
    routed = format_for_model(model_id)
    return _BY_FORMAT.get(routed) if routed else None
