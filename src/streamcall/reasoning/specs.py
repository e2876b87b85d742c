"""Every marker-driven reasoning format, as one table of ``ReasoningSpec`` rows.

Names are the ones vLLM users pass to ``--reasoning-parser`` (listed in docs/formats.md).
Each row says which markers open and close reasoning, whether the chat template usually
opens reasoning in the prompt (``opened``: the output then starts inside
reasoning, and only the end marker appears), and which tool markers end reasoning
implicitly. The grammar and the hold-back rules are ``_engine.py``'s.

Facts are from vLLM's parsers and tests (``vllm/reasoning/``, ``tests/reasoning/``,
Apache-2.0), and from SGLang's and llama.cpp's for the formats vLLM lacks (``kimi_vl``,
``apertus``, ``apriel``, Granite 3.3's tags; docs/research/formats16.md); where a default
is a judgement call the row says why.
"""

from __future__ import annotations

import re

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


def _prefixes(literal: str) -> str:
    """A regex matching every prefix of ``literal`` (the empty one included)."""
    out = ""
    for ch in reversed(literal):
        out = f"(?:{re.escape(ch)}{out})?"
    return out


# Solar Open 2's <|tool_call:start|> ends reasoning only when a call follows it: the name
# on the rest of its line, then its first argument or its closer (what vLLM's one-shot
# path moves out of reasoning); a mention of the marker stays reasoning. Bounded, as above.
_SOLAR2_CALL_CONFIRM = (
    r"[^\S\n]{0,16}[^\s<>|]{1,64}[^\S\n]{0,16}\n\s{0,16}"
    r"(?:<\|tool_arg:start\|>|<\|tool_call:end\|>)"
)
_SOLAR2_CALL_MAYBE = (
    r"[^\S\n]{0,16}(?:[^\s<>|]{1,64}[^\S\n]{0,16}(?:\n\s{0,16}(?:"
    + _prefixes("<|tool_arg:start|>")
    + "|"
    + _prefixes("<|tool_call:end|>")
    + "))?)?"
)
_SOLAR2_CALL_WINDOW = 16 + 64 + 16 + 1 + 16 + len("<|tool_arg:start|>")

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
        # Granite 3.2 writes the phrases; the 3.3 template asks for <think></think> and
        # then <response></response> (llama.cpp's GRANITE format), whose tags are dropped.
        # Starts and ends are not paired: any END ends the block.
        start=("Here is my thought process:", "Here's my thought process:", "<think>"),
        end=("Here is my response:", "Here's my response:", "</think>"),
        start_at_beginning=True,
        text_drop=("<response>", "</response>"),
        vllm_differences="Reasoning without a response phrase is reasoning in both "
        "streaming and one-shot use (vLLM's one-shot path calls it content). Granite "
        "3.3's <think>…</think><response>…</response> is read too (vLLM knows only the "
        "phrases).",
    ),
    ReasoningSpec(
        "granite_thinking_parser",
        family="IBM Granite 4.2 (thinking)",
        opened=True,  # thinking is on by default; the template pre-fills <think>
        implicit_end=("<tool_call>",),
        implicit_confirm=_TOOL_CALL_CONFIRM,
        implicit_maybe=_TOOL_CALL_MAYBE,
        lstrip_after_end="\n",  # the template writes '\n</think>\n'
        vllm_differences="No reasoning-to-content swap (enable_thinking=false or "
        "force_nonempty_content with no answer): reasoning already streamed stays "
        "reasoning; thinking off starts the output as content instead.",
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
        family="Magistral, Ministral 3 Reasoning, Mistral with [THINK]",
        # Magistral Small/Medium 2506 write their reasoning as plain text, <think>…</think>
        # (the system prompt they were trained with asks for it; [THINK] came in 2507), so
        # those markers are read too.
        start=("[THINK]", "<think>"),
        end=("[/THINK]", "</think>"),
        # vLLM's parser (and its tests since they changed): output without [THINK] is
        # content, text before [THINK] is content, and a [/THINK] with no opener is
        # dropped, the text on both sides of it content.
        drop_stray_end=True,
        vllm_differences="Magistral 2506's plain-text <think>…</think> is reasoning too, "
        "read like [THINK]…[/THINK] (a stray </think> is dropped like a stray [/THINK]). "
        "vLLM's mistral parser reads only the [THINK] control tokens and cannot load with "
        "a 2506 tokenizer, which has none, so there the whole output is content.",
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
        vllm_differences="No cohere_melody: citation tags (<co>…</co: 0:[1]>) are "
        "dropped and the cited text kept, in the text and the reasoning, as melody's "
        "filter does; the citation records are not reported (vLLM passes none on).",
    ),
    ReasoningSpec(
        "cohere_command4",
        family="Cohere Command A+ and the v4 templates",
        start=("<|START_THINKING|>",),
        end=("<|END_THINKING|>",),
        # The template opens reasoning when `reasoning` is on (a START the model echoes
        # is dropped); with it off the prompt holds both thinking markers, and the output
        # starts with its answer or action block, which ends the (empty) reasoning.
        opened=True,
        implicit_end=("<|START_TEXT|>", "<|START_RESPONSE|>", "<|START_ACTION|>"),
        text_drop=("<|START_TEXT|>", "<|END_TEXT|>", "<|START_RESPONSE|>", "<|END_RESPONSE|>"),
        vllm_differences="No cohere_melody: citation tags (<co>…</co: 0:[1]>) are "
        "dropped and the cited text kept, as melody's filter does (the citation records "
        "are not reported; vLLM passes none on); the text between the blocks stays in "
        "the text. No swap of reasoning into content when "
        "there is no answer (force_nonempty_content). Text outside <|START_TEXT|> is kept "
        "(SGLang drops it).",
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
        "minimax_m3",
        family="MiniMax-M3",
        start=("<mm:think>",),
        end=("</mm:think>",),
        # The template pre-fills <mm:think> only for thinking_mode "enabled" (switches.py).
        # Earlier non-thinking turns start with a bare </mm:think>, so a reply may too.
        drop_leading_end=True,
        vllm_differences="After a dropped leading </mm:think> a <mm:think> still opens "
        "reasoning (vLLM's one-shot path stops looking; its streaming path does not).",
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
    # Step-5's template pre-fills <think>, as DeepSeek-R1's does (vLLM's step5 reasoning
    # is the R1 parser); no tool marker ends it implicitly.
    ReasoningSpec("step5", family="StepFun Step-5", opened=True),
    ReasoningSpec("nemotron_v3", family="NVIDIA Nemotron v3", opened=True),
    # IQuest Q1 (SGLang ``iquest_q1``): <think>...</think>, opened by the template unless
    # the request's thinking/enable_thinking is false; its calls follow in
    # <iquest_tool_call>, which never ends reasoning
    ReasoningSpec("iquest_q1", family="IQuest Q1", opened=True),
    # ZAYA1 is Qwen3's grammar with another tool wrapper (vLLM 0.34's ZayaParser is a
    # Qwen3Parser): thinking on by default, and the wrapper ends reasoning when a call
    # follows it.
    ReasoningSpec(
        "zaya",
        family="Zyphra ZAYA1",
        opened=True,
        implicit_end=("<zyphra_tool_call>",),
        implicit_confirm=_TOOL_CALL_CONFIRM,
        implicit_maybe=_TOOL_CALL_MAYBE,
    ),
    # Ripple decides per turn whether to think: the prompt does not open <think>, and a
    # <think> block may open anywhere in the answer. The template frames every marker
    # with newlines ('<think>\n...\n</think>\n'), which vLLM counts as the markers'; a
    # <tool_call> (with its newline before it) ends reasoning and is the tool parser's.
    ReasoningSpec(
        "ripple",
        family="Ricursive Ripple (optional <think> per turn)",
        start=("<think>\n", "<think>"),
        end=("\n</think>\n", "\n</think>", "</think>\n", "</think>"),
        reopen=True,
        # vLLM drops a </think> met outside reasoning, before or after it
        text_drop=("\n</think>\n", "\n</think>", "</think>\n", "</think>"),
        implicit_end=("\n<tool_call>", "<tool_call>"),
        implicit_confirm=_TOOL_CALL_CONFIRM,
        implicit_maybe=_TOOL_CALL_MAYBE,
        vllm_differences="<tool_call> ends reasoning only when a JSON call follows it "
        "(vLLM ends it at the marker alone, so reasoning that mentions the tag is cut "
        "there); a <think> written again inside reasoning stays reasoning text (vLLM "
        "drops it).",
    ),
    # Inkling's typed blocks: every <|content_thinking|> block is reasoning, and a block
    # ends at its end token, or where the next block's marker (a new message, another
    # kind) cuts it short; those markers are the tool parser's (formats/inkling.py).
    ReasoningSpec(
        "inkling",
        family="Thinking Machines Inkling",
        start=("<|content_thinking|>",),
        end=("<|end_message|>", "<|content_model_end_sampling|>"),
        reopen=True,
        implicit_end=(
            "<|message_model|>",
            "<|content_text|>",
            "<|content_invoke_tool_json|>",
            "<|content_invoke_tool_text|>",
            "<|content_tool_error|>",
        ),
        # (reasoning/inkling.py: with no tool stage the framing is dropped from the text)
        vllm_differences="None known: the framing outside reasoning blocks "
        "(<|message_model|> and a header, the kind and end markers) is handed on to the "
        "tool parser, which drops it; with no tool stage it is dropped here, and a tool "
        "block stays in the content as written, as vLLM's reasoning pass has it.",
    ),
    # PLaMo 3: thinking is on by default (the prompt opens it); a tool section ends it;
    # <|plamo:tag|> is the end of the turn, dropped (and ending reasoning, as vLLM 0.33's
    # engine has it).
    ReasoningSpec(
        "plamo3",
        family="PFN PLaMo 3",
        start=("<|plamo:begin_think:plamo|>",),
        end=("<|plamo:end_think:plamo|>", "<|plamo:tag|>"),
        opened=True,
        implicit_end=("<|plamo:begin_tool_requests:plamo|>",),
        drop_stray_end=True,
        text_drop=("<|plamo:tag|>",),
        vllm_differences="A think marker cut by the end of the stream stays in the "
        "reasoning, as written (vLLM 0.33 too; its earlier parser dropped it). Text after "
        "<|plamo:tag|> is kept as content. With thinking off, a think block the model "
        "writes is still reasoning (vLLM: plain text).",
    ),
    # Solar Open: <|think|>REASONING<|end|><|begin|>assistant, then <|content|>TEXT or a
    # tool-calls turn. The turn framing is dropped; <|content|> also ends a think turn the
    # template opened, and <|tool_calls|> is handed on to the tool parser.
    ReasoningSpec(
        "solar_open",
        family="Upstage Solar Open",
        start=("<|think|>",),
        end=("<|end|>", "<|content|>"),
        implicit_end=("<|tool_calls|>",),
        drop_stray_end=True,
        text_drop=("<|begin|>assistant", "<|content|>", "<|flush|>", "<|calls|>", "<|end|>"),
        vllm_differences="Not a vLLM 0.33 name (from the oesni/vllm fork).",
    ),
    # Solar Open 2: the template pre-fills <|think:start|> and leaves it open for the
    # efforts medium, high and xhigh (and when none is given: the template's default is
    # high); any other effort closes it in the prompt (switches.py). A call written inside
    # the think block ends it, when a call really follows the marker.
    ReasoningSpec(
        "solar_open2",
        family="Upstage Solar Open 2",
        start=("<|think:start|>",),
        end=("<|think:end|>",),
        opened=True,
        implicit_end=("<|tool_call:start|>",),
        implicit_confirm=_SOLAR2_CALL_CONFIRM,
        implicit_maybe=_SOLAR2_CALL_MAYBE,
        implicit_window=_SOLAR2_CALL_WINDOW,
        # a <|think:end|> after reasoning ended (at a call) is the think block's, dropped
        text_drop=("<|think:end|>",),
        vllm_differences="A call written inside the think block ends reasoning, in "
        "one-shot use too, and what follows it is content (vLLM's one-shot path moves "
        "complete calls out of the reasoning and keeps the text around them reasoning; its "
        "streaming path ends reasoning at any <|tool_call:start|>, a mere mention too, "
        "where here a name and an argument or closer must follow); a <|think:start|> the "
        "model writes again is dropped.",
    ),
    # BerryLM: Qwen3's grammar in its own engine configuration (vLLM berrylm): thinking on
    # unless enable_thinking is false, <tool_call> ends reasoning, and a repeated </think>
    # after it is dropped.
    ReasoningSpec(
        "berrylm",
        family="RWB BerryLM",
        opened=True,
        implicit_end=("<tool_call>",),
        implicit_confirm=_TOOL_CALL_CONFIRM,
        implicit_maybe=_TOOL_CALL_MAYBE,
        text_drop=("</think>",),
        vllm_differences="<tool_call> ends reasoning only when a call follows it (vLLM ends "
        "it at the marker alone); with thinking off, a <think> the model writes still opens "
        "reasoning (vLLM returns it all as content).",
    ),
    # Kolibri 1: Qwen3's grammar; the template decides thinking by reasoning_effort first
    # (switches.py), and the model writes Hermes calls (formats/kolibri.py).
    ReasoningSpec(
        "kolibri1",
        family="Aleph Alpha Kolibri 1",
        opened=True,
        implicit_end=("<tool_call>",),
        implicit_confirm=_TOOL_CALL_CONFIRM,
        implicit_maybe=_TOOL_CALL_MAYBE,
    ),
    ReasoningSpec(
        "minicpmv",
        family="OpenBMB MiniCPM-V / MiniCPM-o",
        # Thinking is off unless enable_thinking turns it on (the template then opens
        # <think>); off, a </think> with no opener is dropped.
        implicit_end=("<tool_call>",),
        implicit_confirm=_TOOL_CALL_CONFIRM,
        implicit_maybe=_TOOL_CALL_MAYBE,
        drop_stray_end=True,
        drop=(
            "<|im_end|>",
            *(f"<reserved_{i}>" for i in range(12, 16)),
            *(f"<|reserved_{i}|>" for i in range(12, 16)),
        ),
        recover_newlines=True,  # the tokenizer decodes a newline as a backslash and 'n'
        vllm_differences="With thinking off, a <think>…</think> block the model writes is "
        "reasoning (vLLM hides it: neither reasoning nor content).",
    ),
    ReasoningSpec(
        "kimi_vl",
        family="Moonshot Kimi-VL Thinking, Kimi-Dev",
        # U+25C1 and U+25B7 around 'think': several tokens each, found as text.
        start=("\u25c1think\u25b7",),
        end=("\u25c1/think\u25b7",),
    ),
    ReasoningSpec(
        "apertus",
        family="Swiss AI Apertus",
        start=("<|inner_prefix|>",),
        end=("<|inner_suffix|>",),
        reopen=True,  # every inner block is reasoning
        # A tool block written inside reasoning is handed to the tool parser; reasoning
        # resumes after it (a bare <|tools_prefix|> without '[' stays reasoning).
        pass_through=(("<|tools_prefix|>[", "<|tools_suffix|>"),),
        vllm_differences="Every inner block is reasoning, and a tool block inside one goes "
        "to the tool parser (SGLang's apertus2509); vLLM's later apertus parser reads the "
        "first block only.",
    ),
    ReasoningSpec(
        "apriel",
        family="ServiceNow Apriel 1.5",
        start=("<thinking>",),
        end=("</thinking>",),
    ),
    ReasoningSpec(
        "poolside_v1",
        family="Poolside",
        opened=True,
    ),
)
