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
    # Kimi K3's channels are XTML elements of special tokens. Reasoning also ends where
    # the response or tools channel opens without the think channel's closer (SGLang's
    # detector does the same); the response channel's wrapper and the end-of-message
    # markers are dropped from the text, before reasoning too (the answer is wrapped when
    # thinking is off), as vLLM's parser does when no tool parser follows it.
    ReasoningSpec(
        "kimi_k3",
        family="Moonshot Kimi K3 (XTML think channel)",
        start=("<|open|>think<|sep|>",),
        end=("<|close|>think<|sep|>", "<|open|>response<|sep|>"),
        opened=True,  # thinking mode pre-fills <|open|>think<|sep|>
        implicit_end=("<|open|>tools<|sep|>",),
        text_drop=(
            "<|open|>response<|sep|>",
            "<|close|>response<|sep|>",
            "<|close|>message<|sep|>",
            "<|end_of_msg|>",
        ),
        drop_before=True,
        vllm_differences="Reasoning also ends where <|open|>response<|sep|> or "
        "<|open|>tools<|sep|> opens without <|close|>think<|sep|> (as SGLang's detector "
        "does; vLLM keeps it reasoning); with thinking on, a think channel the model writes "
        "again is dropped; with thinking off, one the model writes still opens reasoning "
        "(vLLM then returns it all as content).",
    ),
    # GigaChat 3.5's base template turns reasoning on with the ``reasoning`` switch
    # (off by default: vLLM's parser is identity then), and then pre-fills <think>; the
    # Reasoning checkpoints' template always does (prompt_opened=True).
    ReasoningSpec(
        "gigachat35",
        family="ai-sage GigaChat 3.5",
        opened=False,
        vllm_differences="With reasoning off (the default), a <think> the model writes "
        "still opens reasoning (vLLM is identity then).",
    ),
    ReasoningSpec(
        "minimax_m2",
        family="MiniMax-M2",
        opened=True,  # the template pre-fills <think>
        text_drop=("</think>",),  # vLLM strips a re-emitted </think> from the content
    ),
    ReasoningSpec("glm45", family="GLM-4.5/4.6/4.7, GLM-5"),
    ReasoningSpec("glm47", family="GLM-4.7"),
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
    # Step-5's template pre-fills <think>, as DeepSeek-R1's does (vLLM's step5 reasoning
    # is the R1 parser); no tool marker ends it implicitly.
    ReasoningSpec("step5", family="StepFun Step-5", opened=True),
    ReasoningSpec("nemotron_v3", family="NVIDIA Nemotron v3", opened=True),
    ReasoningSpec(
        "poolside_v1",
        family="Poolside",
        opened=True,
    ),
)
