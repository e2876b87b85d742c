r"""Response templates for streamcall's own formats: ``response_template_for(format)``.

A checkpoint that declares a ``response_template`` in its ``tokenizer_config.json`` can be
read by transformers' ``parse_response``, vLLM's ``hf`` parser and streamcall alike. This
module writes one for each built-in tool-call format the spec can express, so that the
ecosystem can use them. Each gives the message ``{"role": "assistant", "content": ...,
"tool_calls": [{"type": "function", "function": {"name", "arguments"}}]}`` that streamcall's
own parser gives for the format's output (``parse_tool_calls``, mapped to that dict), as
tests/response_templates/test_rt_export.py proves on the format's outputs and its test
strings, with transformers' ``parse_response`` and with streamcall's.

The shapes many formats share are built by ``export_shapes``, which says how each is
expressed.

``UNEXPRESSIBLE`` says, for the other formats, why the spec cannot express them.
"""

from __future__ import annotations

import copy
from typing import Any

from streamcall.response_templates.export_shapes import (
    BY_CONTENT,
    BY_NAME,
    CONTENT_FIELD,
    EACH,
    Exported,
    after_object,
    bare_json,
    calls_list,
    esc,
    header_json,
    json_after_marker,
    json_list,
    json_tagged,
    message_template,
    tagged_params,
    then_ws,
)

__all__ = ["EXPORTED", "UNEXPRESSIBLE", "Exported", "response_template_for"]


_QWEN = "<|im_start|>assistant\n"
_LLAMA3 = "<|start_header_id|>assistant<|end_header_id|>\n\n"
_LLAMA4 = "<|header_start|>assistant<|header_end|>\n\n"
_DEEPSEEK = "<｜Assistant｜>"
_QWEN_PARAM = r"<parameter=(?P<key>[^>\n]+)>\n?(?P<value>.*?)\n?</parameter>"
_NAMED_PARAM = r'<parameter name="(?P<key>[^"\n]+)">\n?(?P<value>.*?)\n?</parameter>'
_GLM_PARAM = r"<arg_key>(?P<key>.*?)</arg_key>\s*<arg_value>\n?(?P<value>.*?)\n?</arg_value>"
_MINIMAX_NS = "]<]minimax[>["
_HARMONY_START = r"(?:<\|start\|>assistant)?"
_HARMONY_CALL = _HARMONY_START + r"<\|channel\|>commentary to=functions\."


def _qwen_xml(start: str, block: str = "tool_call") -> Exported:
    return tagged_params(
        start,
        f"<{block}>\\s*<function=(?P<name>[^>\\n]+)>",
        f"</function>\\s*</{block}>",
        esc(f"<{block}>"),
        _QWEN_PARAM,
        markers=(f"<{block}>",),
    )


def _glm(start: str) -> Exported:
    return tagged_params(
        start,
        r"<tool_call>(?P<name>[^<\n]+)\n?",
        "</tool_call>",
        esc("<tool_call>"),
        _GLM_PARAM,
        markers=("<tool_call>",),
    )


# Tencent HY's structural tokens may carry a per-checkpoint suffix (``<tool_call:xyz>``).
_HY = "(?::[^>\\s]+)?>"


def _hy(header_end: str) -> Exported:
    def tag(name: str) -> str:
        return f"<{name}{_HY}"

    param = (
        f"{tag('arg_key')}(?P<key>.*?){tag('/arg_key')}\\s*{tag('arg_value')}\\n?(?P<value>.*?)\\n?"
        f"{tag('/arg_value')}"
    )
    return tagged_params(
        "<｜hy_Assistant｜>",
        f"{tag('tool_call')}(?P<name>[^<\\n]+?){header_end}",
        tag("/tool_call"),
        tag("tool_call"),
        param,
        section=((tag("tool_calls"),), tag("/tool_calls")),
        markers=("<tool_calls", "<tool_call"),
        section_regex=True,
    )


def _dsml(prefix: str, block: str, start: str = _DEEPSEEK) -> Exported:
    opener, closer = esc(prefix), esc("</" + prefix[1:])
    return tagged_params(
        start,
        opener + r'invoke name="(?P<name>[^"\n]+)">',
        closer + "invoke>",
        opener + "invoke",
        opener
        + r'parameter name="(?P<key>[^"\n]+)" string="(?:true|false)">\n?(?P<value>.*?)\n?'
        + closer
        + "parameter>",
        section=((prefix + block + ">",), "</" + prefix[1:] + block + ">"),
        markers=(prefix + block + ">", prefix + "invoke"),
        note=' A `string="false"` value is JSON to streamcall (and to vLLM) whatever the '
        "schema types it, so a JSON string there is the string it encodes; the template "
        "types it by the schema, and a string parameter keeps the quotes.",
    )


# streamcall's header names (``engines.header_json``): a word character, then word characters and
# ``.:-/``.
_HEADER_NAME = r"(?P<name>\w[\w.:\-/]*)"
# and one of at most 64 characters (Functionary v3.2's headers)
_HEADER_NAME_64 = r"(?P<name>\w[\w.:\-/]{0,63})"
_PLAMO = "<|plamo:{}:plamo|>".format
_PLAMO_ARGS = _PLAMO("begin_tool_arguments") + "<|plamo:constrain|>json<|plamo:msg|>"
_P_REQUEST = esc(_PLAMO("begin_tool_request"))
_P_END_REQUEST = esc(_PLAMO("end_tool_request"))
_P_END_REQUESTS = esc(_PLAMO("end_tool_requests"))
_P_END_ARGS = esc(_PLAMO("end_tool_arguments"))
_INKLING_LIMITS = (
    "A tool block must hold `name` and `args` (streamcall also takes `arguments` or "
    "`parameters`, and `{}` when there are none): one without them, or whose JSON does not "
    "parse, raises where streamcall keeps it as text. A tool block ends at its end marker "
    "or the next block's marker. Thinking blocks are `thinking`."
)
_INKLING_ENDS = r"<\|end_message\|>|<\|content_model_end_sampling\|>"
_INKLING_VISIBLE = r"<\|content_(?:text|invoke_tool_text|tool_error)\|>"
# a block's header (metadata, dropped) after <|message_model|> or at the start of the output
_INKLING_HEADER = r"(?:(?:<\|message_model\|>|\A)[^\s<]{0,256})?"
# the markers that end a thinking block and start the next one (kept for it)
_INKLING_STARTS = r"<\|message_model\|>|<\|content_(?:thinking|invoke_tool_json)\|>"
# any of its markers (each one is markup, and so are the blanks after a call before one)
_INKLING_MARKER = (
    r"<\|(?:message_model|end_message|content_(?:text|thinking|invoke_tool_json"
    r"|invoke_tool_text|tool_error|model_end_sampling))\|>"
)

_COHERE = json_list(
    "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
    "<|START_ACTION|>",
    "<|END_ACTION|>",
    name="tool_name",
    args="parameters",
)

EXPORTED: dict[str, Exported] = {
    "hermes": json_tagged(_QWEN, "<tool_call>", "</tool_call>"),
    "kolibri1": json_tagged(_QWEN, "<tool_call>", "</tool_call>"),
    "qwen3_json": json_tagged(_QWEN, "<tool_call>", "</tool_call>"),
    "ernie45": json_tagged("Assistant:", "<tool_call>", "</tool_call>"),
    "longcat": json_tagged("[Round 0] ASSISTANT:", "<longcat_tool_call>", "</longcat_tool_call>"),
    "internlm": json_tagged(
        _QWEN,
        "<|action_start|><|plugin|>",
        "<|action_end|>",
        args="parameters",
        opener_pattern=r"<\|action_start\|>\s*<\|plugin\|>",
    ),
    "jamba": json_list("<|start_of_role|>assistant", "<tool_calls>", "</tool_calls>"),
    "hunyuan_a13b": json_list("<|extra_0|>", "<tool_calls>", "</tool_calls>"),
    "cohere_command3": _COHERE,
    "cohere_command4": _COHERE,
    "granite": json_list("<|start_of_role|>assistant<|end_of_role|>", "<|tool_call|>", None),
    "phi4_mini_json": json_list("<|assistant|>", "functools", None),
    "gigachat3": json_after_marker(
        "assistant<|role_sep|>\n",
        esc("<|function_call|>"),
        esc("<|function_call|>"),
        by_name=False,
        markers=("<|function_call|>",),
    ),
    "granite-20b-fc": json_after_marker(
        "<|assistant|>\n",
        r"<function_call>\s*",
        esc("<function_call>"),
        by_name=False,
        markers=("<function_call>",),
    ),
    "mistral": json_after_marker(
        "[/INST]",
        r"\[TOOL_CALLS\](?P<name>[^\[\]]+?)\[ARGS\]",
        esc("[TOOL_CALLS]"),
        by_name=True,
        markers=("[TOOL_CALLS]",),
    ),
    "llama3_json": bare_json(_LLAMA3, "parameters"),
    "llama4_json": bare_json(
        _LLAMA4, "arguments", r"(?:<\|python_tag\|>)?", ("<|python_tag|>", '{"name"')
    ),
    "kimi_k2": header_json(
        "<|im_assistant|>assistant<|im_middle|>",
        (
            ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"),
            "<|tool_calls_section_end|>",
        ),
        r"<\|tool_call_begin\|>\s*(?:functions\.)?(?P<name>[^\s:<]+)(?::\d+)?\s*<\|tool_call_argument_begin\|>",
        r"<\|tool_call_end\|>",
        ("<|tool_calls_section_begin|>", "<|tool_call_begin|>"),
    ),
    "deepseek_v3": header_json(
        _DEEPSEEK,
        (("<｜tool▁calls▁begin｜>",), "<｜tool▁calls▁end｜>"),
        r"<｜tool▁call▁begin｜>function<｜tool▁sep｜>(?P<name>[^\n]+)\n(?:```json\n)?",
        r"(?:\n```)?<｜tool▁call▁end｜>",
        ("<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>"),
    ),
    "deepseek_v31": header_json(
        _DEEPSEEK,
        (("<｜tool▁calls▁begin｜>",), "<｜tool▁calls▁end｜>"),
        r"<｜tool▁call▁begin｜>(?P<name>[^<]+?)<｜tool▁sep｜>",
        r"<｜tool▁call▁end｜>",
        ("<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>"),
    ),
    "openai": Exported(
        {
            "defaults": {"role": "assistant"},
            "start_anchor": "<|start|>assistant",
            "fields": {
                "content": {
                    **CONTENT_FIELD,
                    # the headers and terminators of final and commentary messages
                    "close_pattern": _HARMONY_START
                    + r"<\|channel\|>(?:final|commentary)<\|message\|>|<\|end\|>|<\|return\|>",
                },
                "thinking": {
                    **CONTENT_FIELD,
                    "open_pattern": _HARMONY_START + r"<\|channel\|>analysis<\|message\|>",
                    "close_pattern": r"<\|end\|>",
                },
                "tool_calls": {
                    "open_pattern": _HARMONY_CALL
                    + r"(?P<name>[^\s<]+)\s*(?:<\|constrain\|>json)?<\|message\|>",
                    "close_pattern": then_ws(r"<\|call\|>", _HARMONY_CALL),
                    "repeats": True,
                    "content": "json",
                    "transform": BY_NAME,
                },
            },
        },
        ("<|channel|>commentary to=",),
        "Reads messages with their header in the canonical order (channel, recipient, "
        "constraint): the analysis channel is `thinking`, final and commentary messages "
        "are content, and commentary messages to `functions.NAME` are calls.",
    ),
    "gemma4": Exported(
        message_template(
            ["<|turn>model\n", "<tool_response|>"],
            {
                "open_pattern": r"<\|tool_call>call:(?P<name>[\w.-]+)",
                "close_pattern": then_ws(esc("<tool_call|>"), esc("<|tool_call>")),
                "repeats": True,
                "content": "json",
                "content_args": {"unquoted_keys": True, "string_delims": [['<|"|>', '<|"|>']]},
                "transform": BY_NAME,
            },
        ),
        ("<|tool_call>",),
        'Arguments must become JSON once keys are quoted and `<|"|>` strings replaced.',
    ),
    "functiongemma": Exported(
        message_template(
            "<start_of_turn>model\n",
            {
                "open_pattern": r"<start_function_call>call:(?P<name>[\w.-]+)",
                "close_pattern": then_ws(esc("<end_function_call>"), esc("<start_function_call>")),
                "repeats": True,
                "content": "json",
                "content_args": {
                    "unquoted_keys": True,
                    "string_delims": [["<escape>", "<escape>"]],
                },
                "transform": BY_NAME,
            },
        ),
        ("<start_function_call>",),
        "Arguments must become JSON once keys are quoted and `<escape>` strings replaced.",
    ),
    "qwen3_coder": _qwen_xml(_QWEN),
    "qwen3_xml": _qwen_xml(_QWEN),
    "mimo": _qwen_xml(_QWEN),
    "seed_oss": _qwen_xml("<seed:bos>assistant\n", "seed:tool_call"),
    "step5": _qwen_xml(_QWEN),
    # ZAYA1's turns are ChatML's (vLLM 0.34's ZayaParser keeps Qwen3's turn boundaries)
    "zaya": _qwen_xml(_QWEN, "zyphra_tool_call"),
    "zaya_xml": _qwen_xml(_QWEN, "zyphra_tool_call"),
    # BerryLM's turns are ChatML's (vLLM's BerryLM parser keeps <|im_start|>/<|im_end|>)
    "berrylm": _qwen_xml(_QWEN),
    "step3p5": tagged_params(
        "<|im_start|>assistant\n",
        r'<tool_call>\s*<function name="(?P<name>[^"\n]+)">',
        r"</function>\s*</tool_call>",
        esc("<tool_call>"),
        _NAMED_PARAM,
        markers=("<tool_call>",),
    ),
    "glm45": _glm("<|assistant|>"),
    "glm47": _glm("<|assistant|>"),
    "poolside_v1": _glm("<assistant>\n"),
    "ling3": _glm("<role>ASSISTANT</role>"),
    "hy_v3": _hy("<tool_sep" + _HY),
    "hy_v4": _hy("(?=<arg_key|</tool_call)"),
    "minimax_m2": tagged_params(
        "]~b]ai\n",
        r'<invoke name="(?P<name>[^"\n]+)">',
        "</invoke>",
        esc("<invoke"),
        _NAMED_PARAM,
        section=(("<minimax:tool_call>",), "</minimax:tool_call>"),
        markers=("<minimax:tool_call>", "<invoke"),
    ),
    "minimax_m3": tagged_params(
        "]~b]ai\n",
        esc(_MINIMAX_NS) + r'<invoke name="(?P<name>[^"\n]+)">',
        esc(_MINIMAX_NS) + "</invoke>",
        esc(_MINIMAX_NS + "<invoke"),
        esc(_MINIMAX_NS)
        + r"<(?P<key>[^>/\n]+)>\n?(?P<value>.*?)\n?"
        + esc(_MINIMAX_NS)
        + r"</(?P=key)>",
        section=((_MINIMAX_NS + "<tool_call>",), _MINIMAX_NS + "</tool_call>"),
        markers=(_MINIMAX_NS + "<tool_call>", _MINIMAX_NS + "<invoke"),
    ),
    "minicpm5": tagged_params(
        _QWEN,
        r'<function name="(?P<name>[^"\n]+)">',
        "</function>",
        esc("<function name="),
        r'<param name="(?P<key>[^"\n]+)">\n?(?P<value>.*?)\n?</param>',
        markers=("<function name=",),
    ),
    "step3": tagged_params(
        "<|BOT|>assistant\n",
        r'<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="(?P<name>[^"\n]+)">',
        r"</steptml:invoke><｜tool_call_end｜>",
        esc("<｜tool_call_begin｜>"),
        r'<steptml:parameter name="(?P<key>[^"\n]+)">(?P<value>.*?)</steptml:parameter>',
        section=(("<｜tool_calls_begin｜>",), "<｜tool_calls_end｜>"),
        markers=("<｜tool_calls_begin｜>", "<｜tool_call_begin｜>"),
    ),
    "deepseek_v32": _dsml("<｜DSML｜", "function_calls"),
    "deepseek_v4": _dsml("<｜DSML｜", "tool_calls"),
    "deepseek_v41": _dsml("<｜DSML｜ ", "calls"),
    "gigachat35": _dsml("<｜GCML｜", "tool_calls", "assistant<|role_sep|>\n"),
    # (the anchor is dots.llm1's assistant turn, <|response|>)
    "dots": tagged_params(
        "<|response|>",
        r'<invoke name="(?P<name>[^"\n]+)">',
        "</invoke>",
        esc("<invoke"),
        _NAMED_PARAM,
        section=(("<dots_function_call>",), "</dots_function_call>"),
        markers=("<dots_function_call>", "<invoke"),
    ),
    # (Nemotron Nano v2's assistant turn, and the Llama-Nemotron models' Llama 3 one)
    "nemotron_toolcall": json_list(
        ["<SPECIAL_11>Assistant\n", _LLAMA3],
        "<TOOLCALL>",
        "</TOOLCALL>",
        note=" A lone call object (no list) or a call with no arguments raises, and arguments "
        "written as a JSON string stay that string (streamcall reads all three as calls); a "
        "block that does not parse raises where streamcall keeps it as text.",
    ),
    "functionary_v3_1": Exported(
        message_template(
            _LLAMA3,
            {
                "open_pattern": r"<function=\s*" + _HEADER_NAME + r"\s*>\s*(?=\{)",
                "close_pattern": then_ws(r"\s*</function>", esc("<function=")),
                "repeats": True,
                "content": "json",
                "transform": BY_NAME,
            },
        ),
        ("<function=",),
        "Reads `<function=NAME>` JSON `</function>`; raw Python after `<|python_tag|>` (to "
        'streamcall a call to `python` with `{"code": ...}`) stays text, a `</function>` '
        "inside a string ends the call early, and arguments that do not parse raise instead "
        "of becoming text.",
    ),
    # (the generation prompt ends with the first segment's ">>>")
    "functionary_v3_2": Exported(
        message_template(
            _LLAMA3 + ">>>",
            {
                "open_pattern": r"(?:\A|>>>)(?![^\S\n]*all[^\S\n]*\n)[^\S\n]*"
                + _HEADER_NAME_64
                + r"[^\S\n]*\n\s*(?=\{)",
                "close_pattern": after_object(">>>"),
                "repeats": True,
                "content": "json",
                "transform": BY_NAME,
            },
            {"close_pattern": r"(?:\A|>>>)[^\S\n]*all[^\S\n]*\n"},
        ),
        (">>>",),
        "The anchor takes in the prompt's `>>>`. A call ends after its JSON object (there is "
        "no closer): text after a call must hold no `{` or `}`, and a `>>>` inside a string "
        "ends the call early. An `all` segment's header is dropped; a `python` segment "
        'of raw code (to streamcall a call to `python` with `{"code": ...}`) stays text, with '
        "its header.",
    ),
    # (the generation prompt ends with <|message_model|>; a block's header is metadata)
    "inkling": Exported(
        {
            "defaults": {"role": "assistant"},
            "start_anchor": "<|message_model|>",
            "fields": {
                "content": {
                    **CONTENT_FIELD,
                    # (an empty thinking block first: alternatives are tried in order)
                    "close_pattern": _INKLING_HEADER
                    + rf"<\|content_thinking\|>(?={_INKLING_STARTS})"
                    + r"|<\|message_model\|>(?:[^\s<]{0,256}(?="
                    + _INKLING_VISIBLE
                    + "))?|"
                    + _INKLING_VISIBLE
                    + "|"
                    + _INKLING_ENDS,
                },
                "thinking": {
                    **CONTENT_FIELD,
                    "open_pattern": _INKLING_HEADER
                    + rf"<\|content_thinking\|>(?!{_INKLING_STARTS})",
                    "close_pattern": f"{_INKLING_ENDS}|{_INKLING_VISIBLE}|(?={_INKLING_STARTS})",
                },
                "tool_calls": {
                    "open_pattern": _INKLING_HEADER + r"<\|content_invoke_tool_json\|>",
                    # its end marker (and the blanks after it, before a marker or the
                    # end), or (zero-width) the next block's marker
                    "close_pattern": then_ws(f"(?:{_INKLING_ENDS})", _INKLING_MARKER)
                    + f"|(?={_INKLING_STARTS}|{_INKLING_VISIBLE})",
                    "repeats": True,
                    "content": "json",
                    "transform": {
                        "type": "function",
                        "function": {"name": "{content.name}", "arguments": "{content.args}"},
                    },
                },
            },
        },
        ("<|content_invoke_tool_json|>",),
        _INKLING_LIMITS,
    ),
    # (PLaMo 3's chat template writes a turn as ROLE<|plamo:msg|>CONTENT<|plamo:tag|>)
    "plamo3": header_json(
        "assistant<|plamo:msg|>",
        ((_PLAMO("begin_tool_requests"),), _PLAMO("end_tool_requests")),
        rf"{_P_REQUEST}\s*{esc(_PLAMO('begin_tool_name'))}\s*{_HEADER_NAME}\s*"
        rf"{esc(_PLAMO('end_tool_name'))}\s*{esc(_PLAMO_ARGS)}",
        # both closers are optional: after the object, the next call or the section's end
        # ends the call too
        rf"\s*(?:{_P_END_ARGS}\s*(?:{_P_END_REQUEST})?|{_P_END_REQUEST}"
        rf"|(?<=\}})(?=\s*(?:{_P_REQUEST}|{_P_END_REQUESTS})))",
        (_PLAMO("begin_tool_requests"), _PLAMO("begin_tool_request")),
        next_call=_P_REQUEST,
    ),
    # (the model-written call id before <|tool_call:name|> is not read)
    "solar_open": header_json(
        "<|begin|>assistant",
        (
            (
                "<|end|><|begin|>assistant<|tool_calls|>",
                "<|begin|>assistant<|tool_calls|>",
                "<|tool_calls|>",
            ),
            "<|calls|>",
        ),
        r"<\|tool_call:begin\|>[^<]*<\|tool_call:name\|>\s*"
        + _HEADER_NAME
        + r"\s*<\|tool_call:args\|>",
        r"<\|tool_call:end\|>",
        ("<|tool_calls|>", "<|tool_call:begin|>"),
        next_call=esc("<|tool_call:begin|>"),
        note=" Python-literal arguments (`{'city': 'Seoul'}`), which streamcall reads as"
        " their JSON equivalent, raise.",
    ),
    "llama4_pythonic": calls_list(_LLAMA4, "<|python_start|>", "<|python_end|>"),
    "lfm2": calls_list(_QWEN, "<|tool_call_start|>", "<|tool_call_end|>"),
    "pythonic": Exported(
        message_template(
            _LLAMA3,
            {
                "open_pattern": r"\A[ \t\r\n]*(?=\[)",
                "close_pattern": r"(?<=\)\])(?:\s*\Z)?",
                "content": "python-call-list",
                "transform_each": True,
                "transform": EACH,
            },
        ),
        ("[",),
        "The list must open the output and end at its first `)]`; whitespace before it is "
        "dropped (streamcall keeps it as text), and python-call-list's strict grammar "
        "applies.",
    ),
    "xlam": Exported(
        message_template(
            "<|im_start|>assistant\n",
            {
                "open_pattern": r"```json\s*|<tool_call>",
                "close_pattern": r"\s*(?:```|</tool_call>)(?:\s*\Z)?",
                "content": "json",
                "transform_each": True,
                "transform": EACH,
            },
        ),
        ("```json", "<tool_call>"),
        "Reads a list of calls in a ```json fence or <tool_call> tags; a bare list at the "
        "start of the output (which streamcall also reads) stays text.",
    ),
    "minimax": Exported(
        message_template(
            "<beginning_of_sentence>ai name=assistant\n",
            {
                "open_pattern": r"(?<=<tool_calls>\n)(?=\{)|(?<=\}\n)(?=\{)",
                "close_pattern": r"(?<=\})\n(?=\{)|(?<=\})(?=\n?</tool_calls>)",
                "repeats": True,
                "content": "json",
                "transform": BY_CONTENT,
            },
            {"close_pattern": r"<tool_calls>\n|\n?</tool_calls>(?:\s*\Z)?"},
        ),
        ("<tool_calls>",),
        "Reads one JSON object a line between `<tool_calls>\\n` and `</tool_calls>`; other "
        "layouts of the block raise or stay text.",
    ),
}

_MUSE = (
    "Muse's values are JSON when they load, else the text byte-exact, where the `json` "
    "parser's `allow_non_json` gives the text stripped (`line1\\nline2\\n` loses its last "
    "newline); and the template's doubled name `NAME.NAME` is `NAME` only when that is a "
    "tool of the request, which no transform can read."
)

UNEXPRESSIBLE: dict[str, str] = {
    "kimi_k3": (
        'Each argument is typed by its own `type` attribute (`<|open|>argument key="n" '
        'type="integer"<|sep|>7…`): xml-inline passes every value through one value parser '
        "(typed by the request's tools), so the attribute cannot type it; and names and keys "
        "are XML-escaped (`&amp;`, `&quot;`), which no transform undoes."
    ),
    "apertus": (
        'Each call is `{"NAME": {arguments}}`: the function name is a JSON key, and a '
        "transform can only place values, never read a key."
    ),
    "granite4": (
        'The arguments are a JSON string holding the object (`"arguments": "{\\"city\\": '
        '...}"`): no content parser decodes a string inside a parsed value, so the template '
        "would give the string, where streamcall gives the object."
    ),
    "muse": _MUSE,
    "musespark": _MUSE,
    "musespark1x": _MUSE,
    "muse_glimmer": _MUSE,
    "granite_toolcall_parser": (
        "streamcall has no chat template of Granite 4.2, so the assistant turn's start, which "
        "a response template anchors on, is not known (its calls are Qwen3-Coder's XML, "
        "exported as qwen3_coder)."
    ),
    "ripple": (
        "streamcall has no chat template of Ripple, so the assistant turn's start, which a "
        "response template anchors on, is not known (its calls are Hermes JSON, exported as "
        "hermes, with the newline before <tool_call> as markup)."
    ),
    "iquest_q1": (
        "streamcall has no chat template of IQuest Q1, so the assistant turn's start, which "
        "a response template anchors on, is not known (its calls are GLM-4.7's in "
        "<iquest_tool_call> tags, string values kept as written)."
    ),
    "k2_horizon": (
        "A call may be written in any of three dialects, and a region has one content "
        "parser: the JSON dialect's values are typed by the tools (a json parser keeps them "
        "as written), and the typed dialect's <ifm|arg_type> narrows a parameter's type, "
        "which xml-inline cannot read."
    ),
    "olmo3": (
        "The calls are Python calls one a line (`f(a=1)\\ng()`), not a list: python-call-list "
        "reads only `[...]`, and a region holds one value, so there is no way to read the "
        "lines as calls."
    ),
    "telechat4": (
        "A call's body is tags, NAME{json} or a JSON call, and a region has one content "
        "parser; and streamcall has no chat template of TeleChat4 to anchor the assistant "
        "turn on."
    ),
    "generic_json": (
        "The output is one JSON object whose keys say what it holds: the answer is the "
        'decoded value of the `"response"` string, where the content field can only be the '
        "text around the envelope verbatim (streamcall keeps text after the envelope, so "
        'content cannot be a region read as JSON); and `"tool_call"` holds one call object '
        'where `"tool_calls"` holds a list, which one field cannot read both of '
        "(`transform_each` is fixed); members come in any order."
    ),
    "xingchen4": "As telechat4 (the same format).",
    "solar_open2": (
        "streamcall has no chat template of Solar Open 2, so the assistant turn's start, "
        "which a response template anchors on, is not known."
    ),
    "spark3": (
        "streamcall has no chat template of Spark3, so the assistant turn's start, which a "
        "response template anchors on, is not known (its calls are GLM's tags, values kept "
        "as written)."
    ),
    "spark": "As spark3 (the same format).",
    "command_r_plus": (
        "The calls' opener is written several ways (`Action:` then a newline, a blank "
        "line, a space or nothing before the fence), and a list region opens at one literal; "
        "and streamcall has no chat template of Command R+ to anchor the assistant turn on."
    ),
    "xing4_0": "As telechat4 (the same format).",
}


def response_template_for(format: str) -> dict[str, Any] | None:
    """A response template for a built-in tool-call format, or None when the spec cannot
    express it (``UNEXPRESSIBLE`` says why). A fresh dict, ready to be the
    ``response_template`` of a ``tokenizer_config.json``. Unknown names raise
    ``ValueError``, as ``tool_parser`` does."""
    from streamcall.formats.registry import parser_class

    parser_class(format)  # an unknown name raises, naming the known ones
    exported = EXPORTED.get(format)
    if exported is None:
        if format in UNEXPRESSIBLE:
            return None
        raise LookupError(f"format {format!r} has neither a response template nor a reason why not")
    return copy.deepcopy(dict(exported.template))
