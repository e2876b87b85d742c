"""The fingerprint tables ``detect`` reads a chat template with (``streamcall.detect``).

``TOOL_FINGERPRINTS`` and ``REASONING_FINGERPRINTS`` are ordered tables, most specific
first: the first rule whose markers all occur in a template wins. ``SAME_SYNTAX`` groups
the formats whose parsers read one syntax, ``THINK_FAMILIES`` names the reasoning format of
the family a tool format belongs to where that family writes think tags.
"""

from __future__ import annotations

from dataclasses import dataclass

from streamcall.reasoning.specs import SPECS

__all__ = [
    "REASONING_FINGERPRINTS",
    "SAME_SYNTAX",
    "THINK",
    "THINK_FAMILIES",
    "THINK_FORMATS",
    "TOOL_FINGERPRINTS",
    "Fingerprint",
]


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """One rule: when every marker occurs in a chat template, it writes ``format``."""

    #: the format, or None for a syntax that no streamcall format reads
    format: str | None
    #: literal substrings of the template text (after its string escapes are undone)
    markers: tuple[str, ...]
    #: the evidence in words, for ``Detected.why``
    says: str


def _fp(format: str | None, says: str, *markers: str) -> Fingerprint:
    return Fingerprint(format, markers, says)


# Most specific first: a rule whose markers are all among a later rule's would shadow it
# (``tests/test_detect.py`` checks that none does). Each rule's markers are its format's
# syntax as the format's parser reads it, and, for a syntax that several families write,
# a token of the family's own template.
TOOL_FINGERPRINTS: tuple[Fingerprint, ...] = (
    # -- DeepSeek DSML: the templates build every tag from a ``｜DSML｜`` token -------------
    _fp("deepseek_v41", "DSML tags with a space (<｜DSML｜ calls>)", "｜DSML｜ ", "calls>"),
    _fp("deepseek_v4", "DSML tags with a tool_calls block", "｜DSML｜", "tool_calls>"),
    _fp("deepseek_v32", "DSML tags with a function_calls block", "｜DSML｜", "function_calls>"),
    _fp("gigachat35", "GCML tags (<｜GCML｜tool_calls>)", "｜GCML｜"),
    # -- markers of one family each ------------------------------------------------------
    _fp("minimax_m3", "MiniMax-M3's namespaced tags (]<]minimax[>[)", "]<]minimax[>["),
    _fp("minimax_m2", "<minimax:tool_call> with <invoke name=", "<minimax:tool_call>"),
    _fp("seed_oss", "<seed:tool_call>", "<seed:tool_call>"),
    _fp("zaya", "<zyphra_tool_call>", "<zyphra_tool_call>"),
    _fp("dots", "<dots_function_call>", "<dots_function_call>"),
    _fp("kimi_k3", "<|open|>…<|close|> tags (Kimi K3's XTML)", "<|open|>", "<|close|>"),
    _fp("kimi_k2", "<|tool_calls_section_begin|>", "<|tool_calls_section_begin|>"),
    _fp("kimi_k2", "<|tool_call_section_begin|>", "<|tool_call_section_begin|>"),
    _fp("gemma4", "<|tool_call>call:NAME{...}<tool_call|>", "<|tool_call>"),
    _fp("functiongemma", "<start_function_call>", "<start_function_call>"),
    _fp("openai", "Harmony channels with <|call|>", "<|channel|>", "<|call|>"),
    _fp("cohere_command3", "<|START_ACTION|>", "<|START_ACTION|>"),
    _fp("internlm", "<|action_start|><|plugin|>", "<|action_start|>", "<|plugin|>"),
    _fp("apertus", "<|tools_prefix|>", "<|tools_prefix|>"),
    _fp("lfm2", "<|tool_call_start|>", "<|tool_call_start|>"),
    _fp("longcat", "<longcat_tool_call>", "<longcat_tool_call>"),
    _fp("step3", "<steptml:invoke", "<steptml:invoke"),
    _fp("k2_horizon", "K2 Horizon's <ifm|tool_call>", "<ifm|tool_call>"),
    _fp("iquest_q1", "<iquest_tool_call>", "<iquest_tool_call>"),
    _fp(
        "deepseek_v3",
        "<｜tool▁calls▁begin｜> with a ```json body",
        "<｜tool▁calls▁begin｜>",
        "```json",
    ),
    _fp("deepseek_v31", "<｜tool▁calls▁begin｜> with <｜tool▁sep｜>", "<｜tool▁calls▁begin｜>"),
    _fp("granite-20b-fc", "<function_call>", "<function_call>"),
    _fp("olmo3", "<function_calls>", "<function_calls>"),
    _fp("phi4_mini_json", "functools[...]", "functools["),
    _fp("gigachat3", "<|function_call|>", "<|function_call|>"),
    _fp("gigachat3", "a 'function call' role after <|role_sep|>", "function call", "<|role_sep|>"),
    _fp("minicpm5", '<function name="..."> with <param name=', "<function name=", "<param name="),
    _fp("mistral", "[TOOL_CALLS]", "[TOOL_CALLS]"),
    _fp("solar_open", "<|tool_call:begin|> (Upstage Solar Open)", "<|tool_call:begin|>"),
    _fp("solar_open2", "<|tool_call:start|> (Upstage Solar Open 2)", "<|tool_call:start|>"),
    _fp(
        "command_r_plus",
        'an Action: block of "tool_name" objects (Command R+)',
        "Action:",
        '"tool_name":',
    ),
    _fp("nemotron_toolcall", "<TOOLCALL>[...] (NVIDIA Nemotron)", "<TOOLCALL>"),
    _fp("functionary_v3_2", ">>>recipient turns (Functionary v3.2)", ">>>all"),
    _fp("plamo3", "<|plamo:begin_tool_request...|> (PFN PLaMo 3)", "plamo:begin_tool_request"),
    _fp("inkling", "<|content_invoke_tool_json|> (Inkling)", "<|content_invoke_tool_json|>"),
    _fp("muse_glimmer", "<atem:function_calls> (Muse's ATEM)", "<atem:function_calls>"),
    # -- syntaxes that no streamcall format reads ------------------------------------------
    _fp(None, "<iquestcoder_tool_call> (IQuest-Coder V2)", "<iquestcoder_tool_call>"),
    # -- HY: <tool_calls><tool_call>NAME<tool_sep><arg_key>..., tokens with a suffix --------
    _fp(
        "hy_v3",
        "HY's <tool_calls> with <tool_sep> and <arg_key>",
        "<tool_calls",
        "<tool_sep",
        "<arg_key",
    ),
    _fp("hy_v4", "HY's <tool_calls> with <arg_key>", "<tool_calls", "<arg_key"),
    # -- <tool_call> shared by several syntaxes: the body tells them apart -------------------
    _fp(
        "qwen3_coder",
        "<tool_call> with <function= and <parameter=",
        "<tool_call>",
        "<function=",
        "<parameter=",
    ),
    _fp(
        "functionary_v3_1",
        "<function=NAME>{json}</function> (Functionary v3.1)",
        "<function=",
        "</function>",
    ),
    _fp("telechat4", "<tool_call>NAME with <param_key>", "<tool_call>", "<param_key>"),
    _fp(
        "glm47",
        "<tool_call>NAME<arg_key> (no newline after the name)",
        "<tool_call>{function-name}<arg_key>",
    ),
    _fp("glm45", "<tool_call>NAME with <arg_key>", "<tool_call>", "<arg_key>"),
    _fp(
        "granite4",
        '<tool_call> with "arguments": in a Granite template (<|start_of_role|>)',
        "<tool_call>",
        '"arguments":',
        "<|start_of_role|>",
    ),
    _fp(
        "hunyuan_a13b",
        "<tool_calls>[...] in a Hunyuan template (<|extra_0|>)",
        "<tool_calls>[",
        "<|extra_0|>",
    ),
    _fp("jamba", "<tool_calls>[...] (a JSON list of calls)", "<tool_calls>["),
    _fp(
        "minimax",
        '<tool_calls> with one "arguments": object a line',
        "<tool_calls>",
        '"arguments":',
    ),
    _fp("hermes", '<tool_call> with "arguments":', "<tool_call>", '"arguments":'),
    _fp("granite", "<|tool_call|> and a JSON list", "<|tool_call|>"),
    # -- no marker around the calls: JSON or Python written bare ------------------------------
    _fp("xlam", 'a bare JSON list [{"name": ..., "arguments": ...}]', '[{"name":', '"arguments":'),
    _fp(
        "llama4_json",
        'bare {"name", "parameters": ...} in a Llama 4 template',
        '"parameters":',
        "<|header_start|>",
    ),
    _fp(
        "llama3_json",
        'bare {"name", "parameters": ...} in a Llama 3 template',
        '"parameters":',
        "<|start_header_id|>",
    ),
    _fp(
        "llama4_pythonic",
        "a Python list of calls in a Llama 4 template",
        "[func_name1(",
        "<|header_start|>",
    ),
    _fp("pythonic", "a Python list of calls [func_name1(params...)]", "[func_name1("),
)

REASONING_FINGERPRINTS: tuple[Fingerprint, ...] = (
    _fp("openai_gptoss", "Harmony's analysis channel", "<|channel|>", "analysis"),
    _fp("muse_glimmer", "Muse's to=self channel", "to=self", "<|message|>"),
    _fp("gemma4", "Gemma 4's <|channel>thought channel", "<|channel>"),
    _fp("mistral", "[THINK]…[/THINK]", "[THINK]"),
    _fp(
        "cohere_command4",
        "<|START_THINKING|> with the <|START_TEXT|> answer wrapper",
        "<|START_THINKING|>",
        "<|START_TEXT|>",
    ),
    _fp("cohere_command3", "<|START_THINKING|>", "<|START_THINKING|>"),
    _fp("seed_oss", "<seed:think>", "<seed:think>"),
    _fp("minimax_m3", "<mm:think>", "<mm:think>"),
    _fp("kimi_vl", "\u25c1think\u25b7 (Kimi-VL, Kimi-Dev)", "\u25c1think\u25b7"),
    _fp(
        "granite",
        "<think></think> then <response></response> (Granite 3.3)",
        "<response></response>",
    ),
    _fp("k2_horizon", "K2 Horizon's <ifm|think>", "<ifm|think"),
    _fp(
        "kimi_k3", "Kimi K3's XTML think channel (<|open|>…<|close|> tags)", "<|open|>", "<|close|>"
    ),
    _fp("granite", "'Here is my thought process:'", "Here is my thought process"),
    _fp("granite", "'Here's my thought process:'", "Here's my thought process"),
    _fp("apertus", "<|inner_prefix|>…<|inner_suffix|>", "<|inner_prefix|>"),
    _fp("solar_open", "Solar Open's <|think|> turn", "<|think|>", "<|end|>"),
    _fp("solar_open2", "Solar Open 2's <|think:start|>", "<|think:end|>"),
    _fp("plamo3", "<|plamo:begin_think:plamo|>", "plamo:begin_think"),
    _fp("inkling", "<|content_thinking|> blocks (Inkling)", "<|content_thinking|>"),
    _fp(None, "plain reasoning ended by [BEGIN FINAL RESPONSE] (Apriel)", "[BEGIN FINAL RESPONSE]"),
)

#: stems of think tags: ``<think>``, ``</think>``, ``<thinking>``, HY's ``<think:...>``; a
#: template that pre-fills ``<think>`` in the prompt may show only the closer
THINK: tuple[str, ...] = ("<think", "</think")

# Groups of formats whose parsers read one syntax: the template cannot tell them apart,
# the model id can. ``tests/test_detect.py`` checks that each member parses every other
# member's rendering of the same calls to the same calls.
SAME_SYNTAX: tuple[tuple[str, ...], ...] = (
    ("hermes", "qwen3_json", "granite4", "ernie45", "ripple", "kolibri1"),
    (
        "qwen3_coder",
        "qwen3_xml",
        "mimo",
        "step3p5",
        "step5",
        "granite_toolcall_parser",
        "berrylm",
    ),
    ("zaya", "zaya_xml"),
    ("glm45", "glm47", "poolside_v1", "ling3", "spark3", "spark"),
    ("telechat4", "xingchen4", "xing4_0"),
    ("jamba", "hunyuan_a13b"),
    ("llama3_json", "llama4_json"),
    ("cohere_command3", "cohere_command4"),
    ("muse_glimmer", "muse", "musespark", "musespark1x"),  # one wire; the channel rules differ
)

# The reasoning format of the family a tool format belongs to, where that family writes
# think tags: what generic think tags mean when the model id does not say.
THINK_FAMILIES: dict[str, str] = {
    "deepseek_v3": "deepseek_r1",  # the R1 templates; V3-0324's has no think tags
    "deepseek_v31": "deepseek_v3",
    "deepseek_v32": "deepseek_v3",
    "deepseek_v4": "deepseek_v4",
    "deepseek_v41": "deepseek_v41",
    "glm45": "glm45",
    "glm47": "glm45",
    "hunyuan_a13b": "hunyuan_a13b",
    "hy_v3": "hy_v3",
    "hy_v4": "hy_v4",
    "kimi_k2": "kimi_k2",
    "ling3": "ling3",
    "telechat4": "telechat4",
    "xingchen4": "xingchen4",
    "xing4_0": "xing4_0",
    "mimo": "mimo",
    "minimax_m2": "minimax_m2",
    "olmo3": "olmo3",
    "poolside_v1": "poolside_v1",
    "qwen3_coder": "qwen3",  # Qwen3.5/3.6; the Qwen3-Coder templates write no think tags
    "qwen3_xml": "qwen3",
    "step3": "step3",
    "step3p5": "step3p5",
    "step5": "step5",
    "granite_toolcall_parser": "granite_thinking_parser",
    "zaya": "zaya",
    "zaya_xml": "zaya",
    "ripple": "ripple",
    "gigachat35": "gigachat35",
    "ernie45": "ernie45",
    "berrylm": "berrylm",
    "kolibri1": "kolibri1",
    "nemotron_toolcall": "deepseek_r1",  # Nemotron Nano v2 opens <think> in the prompt
}

#: reasoning formats whose markers are think tags
THINK_FORMATS = frozenset(s.name for s in SPECS if all(m.startswith("<think") for m in s.start))
