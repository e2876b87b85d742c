"""SGLang's parser names for streamcall's formats, so that a user moving from SGLang keeps
the names they know (``streamcall.tool_parser("deepseekv3")``, ``--tool-call-parser
streamcall_deepseekv3`` inside SGLang).

streamcall's format names are vLLM's. SGLang 0.5.23 registers 44 tool-call parser names
(``FunctionCallParser.ToolCallParserEnum``) and 36 reasoning parser names
(``ReasoningParser.DetectorMap``) in its own spellings. Every one of them is in exactly one
table here:

- ``SGLANG_TOOL`` / ``SGLANG_REASONING``: the streamcall format that reads the same wire
  (read from SGLang's detector source and its tests; ``tests/integrations/test_sglang_*``
  renders each format's calls and parses them with SGLang's detector of that name). A name
  that is spelled differently is an alias (``ALIASES`` / ``REASONING_ALIASES``); a name that
  is already streamcall's maps to itself.
- ``SGLANG_DIFFERENT``: a name both projects use for different things, so streamcall keeps
  its own meaning and says which format is SGLang's.
- ``SGLANG_NOT_SUPPORTED``: with the reason.

A reasoning alias may also fix the start state (``prompt_opened``): SGLang's
``qwen3-thinking`` and ``minimax`` are its Qwen3 detector forced to start inside
reasoning.
"""

from __future__ import annotations

__all__ = [
    "ALIASES",
    "REASONING_ALIASES",
    "SGLANG_DIFFERENT",
    "SGLANG_NOT_SUPPORTED",
    "SGLANG_REASONING",
    "SGLANG_TOOL",
    "reasoning_alias",
    "tool_alias",
]

#: SGLang's tool-call parser name -> the streamcall format with the same wire
SGLANG_TOOL: dict[str, str] = {
    "apertus2509": "apertus",
    "cohere_command4": "cohere_command4",
    "deepseekv3": "deepseek_v3",
    "deepseekv31": "deepseek_v31",
    "deepseekv32": "deepseek_v32",
    "deepseekv4": "deepseek_v4",
    "deepseekv41": "deepseek_v41",
    "dots": "dots",
    "glm": "glm45",  # SGLang's "glm" and "glm45" are one detector (Glm4MoeDetector)
    "glm45": "glm45",
    "glm47": "glm47",
    "gpt-oss": "openai",  # Harmony
    "k2_horizon": "k2_horizon",
    "kimi_k2": "kimi_k2",
    "kimi_k3": "kimi_k3",
    "lfm2": "lfm2",
    "ling3": "ling3",
    "llama3": "llama3_json",  # Llama32Detector: a bare JSON call, or <|python_tag|>
    # MiMo: the same tags; SGLang keeps the newlines around a value, streamcall (as vLLM)
    # takes the one the format puts there off
    "mimo": "mimo",
    "minicpm5": "minicpm5",
    "mistral": "mistral",
    "poolside_v1": "poolside_v1",
    "pythonic": "pythonic",
    "qwen": "hermes",  # Qwen25Detector: <tool_call>\n{json}\n</tool_call>
    "qwen25": "hermes",
    "qwen3_coder": "qwen3_coder",
    # Spark 2.5 writes GLM-4.7's calls: <tool_call>NAME<arg_key>K</arg_key>
    # <arg_value>V</arg_value></tool_call>, values typed by the schema (spark3's grammar).
    # SGLang's detector types three edge values otherwise: "null" is null for any type,
    # "1"/"0" are booleans for a boolean, an undeclared key's value stays a string;
    # spark3 keeps "null" and "1" as the strings written and reads an undeclared value
    # by its first character
    "spark25": "spark3",
    "step3": "step3",
    # SGLang reads Step-3.5 with its Qwen3-Coder detector (<function=NAME>); streamcall's
    # step3p5 reads that and Step-3.5's <function name="NAME"> too
    "step3p5": "step3p5",
    "minimax-m2": "minimax_m2",
    "minimax-m3": "minimax_m3",
    "nanbeige": "qwen3_coder",  # SGLang registers its Qwen3CoderDetector under this name
    # Trinity: Qwen 2.5's calls. SGLang's detector also deletes <think> and </think> from
    # the text, so that reasoning written without a reasoning parser is content without
    # its tags, and a call written inside it is read; hermes keeps the tags as written.
    # With a reasoning parser in front (streamcall_qwen3) a call inside <think> is read
    # (<tool_call> ends reasoning) and the </think> after it is content.
    "trinity": "hermes",
    "interns1": "internlm",  # InternlmDetector: <|action_start|> <|plugin|>\n{json}
    "hermes": "hermes",
    # HunyuanDetector reads Hy3's <tool_calls> (and Hy4's, which has no <tool_sep>: serve
    # Hy4 with streamcall_hy_v4)
    "hunyuan": "hy_v3",
    "gigachat3": "gigachat3",
    "gigachat35": "gigachat35",
    "gemma4": "gemma4",
    "inkling": "inkling",
    "iquest_q1": "iquest_q1",
    # the checkpoint's response template (tokenizer_config.json), as streamcall's hf reads it
    "response_template": "hf",
    "beam": "beam",
}

#: SGLang's reasoning parser name -> (streamcall reasoning format, prompt_opened or None)
SGLANG_REASONING: dict[str, tuple[str, bool | None]] = {
    "apertus2509": ("apertus", None),
    "deepseek-r1": ("deepseek_r1", None),
    "deepseek-v3": ("deepseek_v3", None),
    "deepseek-v4": ("deepseek_v4", None),
    "deepseek-v41": ("deepseek_v41", None),
    "dots": ("qwen3", None),  # SGLang's Qwen3Detector
    "glm45": ("glm45", None),
    "ling3": ("ling3", None),
    "hunyuan": ("hy_v3", None),
    "gpt-oss": ("openai_gptoss", None),
    "k2_horizon": ("k2_horizon", None),
    "kimi": ("kimi_vl", None),  # ◁think▷ ... ◁/think▷ (Kimi-VL Thinking)
    "kimi_k2": ("kimi_k2", None),
    "kimi_k3": ("kimi_k3", None),
    "mimo": ("mimo", None),
    "poolside_v1": ("poolside_v1", None),
    "qwen3": ("qwen3", None),
    "qwen3-thinking": ("qwen3", True),  # SGLang forces reasoning on for this name
    "minimax": ("minimax_m2", True),  # SGLang's Qwen3Detector, forced on
    "minimax-append-think": ("minimax_m2_append_think", None),
    "minimax-m3": ("minimax_m3", None),
    "nanbeige": ("qwen3", None),
    "step3": ("step3", None),
    "step3p5": ("step3p5", None),
    "mistral": ("mistral", None),
    "nemotron_3": ("nemotron_v3", None),
    "granite_thinking_parser": ("granite_thinking_parser", None),
    "interns1": ("qwen3", None),
    "gemma4": ("gemma4", None),
    # SGLang's detector is DeepSeek-R1's (forced on); streamcall's gigachat35 starts
    # outside reasoning unless the request turns it on (its template's default)
    "gigachat35": ("gigachat35", None),
    "inkling": ("inkling", None),
    # IQuest Q1: <think>...</think>, on unless the request's thinking/enable_thinking is
    # false (as SGLang's IQuestQ1ReasoningDetector)
    "iquest_q1": ("iquest_q1", None),
    "cohere_command4": ("cohere_command4", None),
    "response_template": ("hf", None),
    "beam": ("beam", None),
}

#: names both projects use, for different formats: (kind, name) -> SGLang's meaning
SGLANG_DIFFERENT: dict[tuple[str, str], str] = {
    ("tool", "muse"): "muse_glimmer",  # streamcall's muse is Muse Spark's channel table
    ("reasoning", "muse"): "muse_glimmer",
}

#: (kind, name) -> why streamcall has no format for it
SGLANG_NOT_SUPPORTED: dict[tuple[str, str], str] = {}

#: tool aliases: SGLang's spellings that are not streamcall format names
ALIASES: dict[str, str] = {
    name: fmt
    for name, fmt in SGLANG_TOOL.items()
    if name != fmt and ("tool", name) not in SGLANG_DIFFERENT
}
#: reasoning aliases: (format, prompt_opened) per SGLang spelling
REASONING_ALIASES: dict[str, tuple[str, bool | None]] = {
    name: entry
    for name, entry in SGLANG_REASONING.items()
    if (name != entry[0] or entry[1] is not None) and ("reasoning", name) not in SGLANG_DIFFERENT
}


def tool_alias(name: str) -> str:
    """The streamcall tool format an SGLang spelling names; other names unchanged."""
    return ALIASES.get(name, name)


def reasoning_alias(name: str) -> tuple[str, bool | None]:
    """(format, prompt_opened) for an SGLang reasoning spelling; (name, None) otherwise."""
    return REASONING_ALIASES.get(name, (name, None))
