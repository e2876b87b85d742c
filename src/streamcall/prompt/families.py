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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from streamcall.prompt.qwen import (
    _render_hermes,
    _render_qwen3_coder,
    _render_qwen25,
    _render_qwen35,
    _render_qwen36,
)
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

__all__ = ["FAMILIES", "Family", "family_for", "family_for_model", "family_named"]


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
