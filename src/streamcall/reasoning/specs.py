"""Every marker-driven reasoning format, as one table of ``ReasoningSpec`` rows.

Names are the ones vLLM users pass to ``--reasoning-parser`` (listed in docs/formats.md).
Each row says which markers open and close reasoning, whether the chat template usually
opens reasoning in the prompt (``opened``: the output then starts inside
reasoning, and only the end marker appears), and which tool markers end reasoning
implicitly. The grammar and the hold-back rules are ``_engine.py``'s.

Facts are from vLLM's parsers and tests (``vllm/reasoning/``, ``tests/reasoning/``,
Apache-2.0); where a default is a judgement call the row says why.
"""

from __future__ import annotations

from streamcall.reasoning._engine import ReasoningSpec

__all__ = ["SPECS"]

# Qwen3's ``<tool_call>`` ends reasoning only when a call really follows it (vLLM's
# lookahead for ``<function=``; a JSON object for the Hermes-style form), so that
# reasoning which merely mentions the tag stays reasoning. Bounded, so the decision is
# the same however the text is chunked.
_TOOL_CALL_CONFIRM = r"\s{0,32}(?:<function[\s=]|\{)"
_TOOL_CALL_MAYBE = r"\s{0,32}(?:<(?:f(?:u(?:n(?:c(?:t(?:i(?:o(?:n)?)?)?)?)?)?)?)?)?"

# GLM's <tool_call> (Ling 3) ends reasoning only when a call follows it: a name, then its
# first key or its closer. Bounded as Qwen3's is (a name of at most 64 characters).
_GLM_CALL_CONFIRM = r"[ \t\r\n]{0,16}[^\s<>]{1,64}[ \t\r\n]{0,16}(?:<arg_key>|</tool_call>)"
_GLM_CALL_MAYBE = (
    r"[ \t\r\n]{0,16}(?:[^\s<>]{1,64}[ \t\r\n]{0,16}"
    r"(?:<(?:a(?:r(?:g(?:_(?:k(?:e(?:y)?)?)?)?)?)?"
    r"|/(?:t(?:o(?:o(?:l(?:_(?:c(?:a(?:l(?:l)?)?)?)?)?)?)?)?)?)?)?)?"
)
_GLM_CALL_WINDOW = 16 + 64 + 16 + len("</tool_call>")

_THINK = ("<think>",)
_END_THINK = ("</think>",)

SPECS: tuple[ReasoningSpec, ...] = (
    ReasoningSpec(
        "deepseek_r1",
        family="DeepSeek-R1 and its distills",
        opened=True,  # the template pre-fills <think>
        vllm_differences="Text before a leading <think> is kept as reasoning (vLLM's "
        "streaming does the same; its one-shot path drops it).",
    ),
    ReasoningSpec(
        "deepseek_v3",
        family="DeepSeek-V3.1/V3.2 (thinking is off unless the request turns it on)",
        # The template's default is non-thinking (its prompt then ends with </think>),
        # and vLLM's deepseek_v3 is identity unless chat_template_kwargs turns it on.
        opened=False,
        vllm_differences="vLLM is identity when thinking is off (the default); here the "
        "output starts outside reasoning, and a <think> the model writes still opens it.",
    ),
    ReasoningSpec("deepseek_v4", family="DeepSeek-V4", opened=True),
    ReasoningSpec("deepseek_v41", family="DeepSeek-V4.1", opened=True),
    ReasoningSpec(
        "qwen3",
        family="Qwen3, Qwen3.5/3.6, QwQ",
        opened=True,  # thinking is on by default; Qwen3.5 templates pre-fill <think>
        implicit_end=("<tool_call>",),
        implicit_confirm=_TOOL_CALL_CONFIRM,
        implicit_maybe=_TOOL_CALL_MAYBE,
    ),
    ReasoningSpec(
        "mimo",
        family="Xiaomi MiMo",
        opened=True,
        implicit_end=("<tool_call>",),
        implicit_confirm=_TOOL_CALL_CONFIRM,
        implicit_maybe=_TOOL_CALL_MAYBE,
    ),
    ReasoningSpec(
        "granite",
        family="IBM Granite 3.2/3.3 (thinking=True)",
        start=("Here is my thought process:", "Here's my thought process:"),
        end=("Here is my response:", "Here's my response:"),
        start_at_beginning=True,
        vllm_differences="Reasoning without a response phrase is reasoning in both "
        "streaming and one-shot use (vLLM's one-shot path calls it content).",
    ),
    ReasoningSpec(
        "gemma4",
        family="Google Gemma 4",
        start=("<|channel>",),
        end=("<channel|>",),
        start_prefix="thought\n",
        reopen=True,  # every <|channel>…<channel|> block is a thought, not just the first
        vllm_differences="A stray <channel|> outside reasoning is kept as text "
        "(vLLM's streaming path drops the special token).",
    ),
    ReasoningSpec(
        "mistral",
        family="Magistral, Mistral with [THINK]",
        start=("[THINK]",),
        end=("[/THINK]",),
        # vLLM's parser (and its tests since they changed): output without [THINK] is
        # content, text before [THINK] is content, and a [/THINK] with no opener is
        # dropped, the text on both sides of it content.
        drop_stray_end=True,
    ),
    ReasoningSpec(
        "seed_oss",
        family="ByteDance Seed-OSS",
        start=("<seed:think>",),
        end=("</seed:think>",),
        opened=True,
    ),
    ReasoningSpec(
        "cohere_command3",
        family="Cohere Command A Reasoning",
        start=("<|START_THINKING|>",),
        end=("<|END_THINKING|>",),
        text_drop=("<|START_RESPONSE|>", "<|END_RESPONSE|>"),
        vllm_differences="No cohere_melody: citations (<co>…</co: …>) stay in the text.",
    ),
    ReasoningSpec(
        "cohere_command4",
        family="Cohere Command A Reasoning (v4 template)",
        start=("<|START_THINKING|>",),
        end=("<|END_THINKING|>",),
        text_drop=("<|START_RESPONSE|>", "<|END_RESPONSE|>"),
        vllm_differences="No cohere_melody: citations (<co>…</co: …>) stay in the text.",
    ),
    ReasoningSpec(
        "ernie45",
        family="Baidu ERNIE-4.5 Thinking",
        opened=True,
        # The answer may be wrapped in <response>…</response>.
        text_drop=("<response>\n", "<response>", "\n</response>", "</response>"),
    ),
    ReasoningSpec(
        "hunyuan_a13b",
        family="Tencent Hunyuan-A13B",
        start=("<think>\n", "<think>"),
        end=("\n</think>\n<answer>\n", "</think>\n<answer>\n", "\n</think>", "</think>"),
        text_drop=("<answer>\n", "\n</answer>", "</answer>"),
    ),
    # HY checkpoints suffix every special token (``</think:opensource>``; vLLM and SGLang
    # take the suffix from the tokenizer): either spelling ends reasoning.
    ReasoningSpec("hy_v3", family="Tencent HY v3", opened=True, suffixed=True),
    ReasoningSpec("hy_v4", family="Tencent HY v4", opened=True, suffixed=True),
    ReasoningSpec(
        "kimi_k2",
        family="Moonshot Kimi-K2 / K2.5 thinking",
        opened=True,
        implicit_end=("<|tool_calls_section_begin|>",),
    ),
    ReasoningSpec(
        "minimax_m2",
        family="MiniMax-M2",
        opened=True,  # the template pre-fills <think>
        text_drop=("</think>",),  # vLLM strips a re-emitted </think> from the content
    ),
    ReasoningSpec("glm45", family="GLM-4.5/4.6/4.7, GLM-5"),
    ReasoningSpec("glm47", family="GLM-4.7"),
    ReasoningSpec(
        "ling3",
        family="inclusionAI Ling 3 / Ring 3 (thinking on by default)",
        opened=True,  # thinking is on unless the request turns it off
        implicit_end=("<tool_call>",),
        implicit_confirm=_GLM_CALL_CONFIRM,
        implicit_maybe=_GLM_CALL_MAYBE,
        implicit_window=_GLM_CALL_WINDOW,
        vllm_differences="With thinking off, a <think> the model writes still opens "
        "reasoning (vLLM's ling3 is identity then); <tool_call> ends reasoning only when a "
        "call follows it.",
    ),
    ReasoningSpec(
        "k2_horizon",
        family="K2 Horizon / K2-V3 (one marker pair per reasoning_effort)",
        start=("<ifm|think>", "<ifm|think_fast>", "<ifm|think_faster>"),
        end=("</ifm|think>", "</ifm|think_fast>", "</ifm|think_faster>"),
        opened=True,  # the template pre-fills the effort's start marker
        implicit_end=("<ifm|tool_calls>",),
        vllm_differences="Every effort's markers are read, whatever the request's "
        "reasoning_effort (vLLM reads only its pair); reasoning cut off with no end marker "
        "and no tool group is reasoning in one-shot use too (vLLM's extract_reasoning calls "
        "it content; its streaming path, reasoning).",
    ),
    # TeleChat4 and XingChen4 templates pre-fill <think> when thinking is on (the default)
    # and write <think></think> into the prompt when it is off.
    ReasoningSpec("telechat4", family="China Telecom TeleChat4", opened=True),
    ReasoningSpec("xingchen4", family="XingChen4 / Xing4.0", opened=True),
    ReasoningSpec("xing4_0", family="Xing4.0 (as xingchen4)", opened=True),
    # Holo2's template opens <think> in the prompt, as DeepSeek-R1's does (vLLM's holo2
    # parser is deepseek_r1 with thinking on).
    ReasoningSpec("holo2", family="H Company Holo2", opened=True),
    ReasoningSpec("olmo3", family="AllenAI Olmo-3 Think", opened=True),
    ReasoningSpec("step3", family="StepFun Step-3", opened=True),
    ReasoningSpec(
        "step3p5",
        family="StepFun Step-3.5",
        opened=True,
        implicit_end=("<tool_call>",),
        implicit_confirm=_TOOL_CALL_CONFIRM,
        implicit_maybe=_TOOL_CALL_MAYBE,
    ),
    ReasoningSpec("nemotron_v3", family="NVIDIA Nemotron v3", opened=True),
    ReasoningSpec(
        "poolside_v1",
        family="Poolside",
        opened=True,
    ),
)
