"""JSON calls between a start marker and (usually) an end marker: the simple configs.

Every format here is a configuration of the JSON-call engine (``_jsoncalls``): a start
marker, a JSON object or array of call objects, an optional end marker. Arguments are
streamed verbatim as the model writes them; a string value is decoded incrementally and
streamed the same way; a call with no arguments gets ``{}``. What is held back: a partial
start marker in text, a partial end marker between calls, a key or name not yet closed,
a growing token of the arguments. Grammars (``call`` is ``{"name": .., "arguments": ..}``
in any key order unless said otherwise; ``calls`` is ``call`` or ``[call, ...]``):

- ``internlm`` (internlm2_5-7b-chat): ``<|action_start|><|plugin|> call <|action_end|>``
  (or ``<|action_start|> <|plugin|>``, as detokenized with spaces between special tokens);
  ``parameters`` or ``arguments``.
- ``jamba`` (AI21 Jamba 1.5): ``<tool_calls> [call, ...] </tool_calls>``.
- ``hunyuan_a13b`` (Hunyuan-A13B): ``<tool_calls> [call, ...] </tool_calls>``.
- ``ernie45`` (ERNIE 4.5): ``<tool_call> call </tool_call>``, repeated.
- ``longcat`` (LongCat-Flash-Chat): ``<longcat_tool_call> call </longcat_tool_call>``.
- ``phi4_mini_json`` (Phi-4-mini): ``functools[call, ...]``, no end marker.
- ``gigachat3`` (GigaChat 3 / 3.1): ``<|message_sep|>\\n\\nfunction call<|role_sep|>\\n``
  (or just ``function call<|role_sep|>``) or ``<|function_call|>``, then one call; a
  ``</s>`` after it is markup.
- ``cohere_command3`` / ``cohere_command4`` (Command A): ``<|START_ACTION|>
  [{"tool_call_id": .., "tool_name": .., "parameters": {..}}, ...] <|END_ACTION|>``;
  ``tool_call_id`` (a string) is the call id (``ID_KEYS``).
- ``minimax`` (MiniMax-M1): ``<tool_calls>`` then one call per line ``</tool_calls>``.
- ``apertus`` (swiss-ai Apertus): ``<|tools_prefix|>[{"NAME": {args}}, ...]
  <|tools_suffix|>``: single-key objects whose key is the function name (``NAME_AS_KEY``).
"""

from __future__ import annotations

import json
from typing import Any

from streamcall.formats._jsoncalls import JsonCallsParser

_STREAMS = "Streams arguments verbatim without re-parsing the buffer each delta"
_AFTER = (
    "text after the calls is kept as content (vLLM's one-shot path returns only the text "
    "before them)."
)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _objects(calls: list[tuple[str, dict[str, Any]]], name: str, args: str) -> list[Any]:
    return [{name: n, args: a} for n, a in calls]


class InternLMParser(JsonCallsParser):
    names = ("internlm",)
    family = "InternLM 2.5"
    vllm_differences = (
        _STREAMS
        + " (vLLM: partial_json_parser over the whole text); "
        + ("parallel calls in repeated blocks are all kept (vLLM handles one); ")
        + _AFTER
    )
    # A detokenizer that puts spaces between special tokens (vLLM's and SGLang's default,
    # ``spaces_between_special_tokens``) writes "<|action_start|> <|plugin|>".
    START = ("<|action_start|><|plugin|>", "<|action_start|> <|plugin|>")
    END = "<|action_end|>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(
            f"<|action_start|><|plugin|>\n{_dumps({'name': n, 'parameters': a})}<|action_end|>"
            for n, a in calls
        )


class JambaParser(JsonCallsParser):
    names = ("jamba",)
    family = "AI21 Jamba 1.5"
    vllm_differences = _STREAMS + "; keeps text after </tool_calls>."
    START = ("<tool_calls>",)
    END = "</tool_calls>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return f"<tool_calls>{_dumps(_objects(calls, 'name', 'arguments'))}</tool_calls>"


class HunyuanA13BParser(JambaParser):
    names = ("hunyuan_a13b",)
    family = "tencent Hunyuan-A13B"
    vllm_differences = _STREAMS + " (vLLM: a regex over the whole text each delta); " + _AFTER

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return f"<tool_calls>[{', '.join(_dumps(o) for o in _objects(calls, 'name', 'arguments'))}]</tool_calls>"


class Ernie45Parser(JsonCallsParser):
    names = ("ernie45",)
    family = "Baidu ERNIE 4.5"
    vllm_differences = _STREAMS + " (vLLM: a regex over the whole text each delta); " + _AFTER
    START = ("<tool_call>",)
    END = "</tool_call>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(
            f"<tool_call>\n{_dumps({'name': n, 'arguments': a})}\n</tool_call>\n" for n, a in calls
        )


class LongcatParser(JsonCallsParser):
    names = ("longcat",)
    family = "Meituan LongCat-Flash-Chat"
    vllm_differences = _STREAMS + " (vLLM: the Hermes parser with other markers); " + _AFTER
    START = ("<longcat_tool_call>",)
    END = "</longcat_tool_call>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(
            f"<longcat_tool_call>\n{_dumps({'name': n, 'arguments': a})}\n</longcat_tool_call>"
            for n, a in calls
        )


class Phi4MiniJsonParser(JsonCallsParser):
    names = ("phi4_mini_json",)
    family = "Microsoft Phi-4-mini"
    vllm_differences = (
        "Streams calls; vLLM's phi4_mini_json parser does not stream at all. Text around "
        "the calls is kept as content (vLLM returns none once a call is made)."
    )
    START = ("functools",)
    END = None

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return f"functools{_dumps(_objects(calls, 'name', 'arguments'))}"


class GigaChat3Parser(JsonCallsParser):
    names = ("gigachat3",)
    family = "ai-sage GigaChat 3 / 3.1"
    vllm_differences = (
        _STREAMS + "; several calls after one header are all kept; " + _AFTER + " A "
        "trailing </s> is optional: it is the stop token, which servers strip."
    )
    START = (
        "<|message_sep|>\n\nfunction call<|role_sep|>",
        "function call<|role_sep|>",
        "<|function_call|>",
    )
    END = "</s>"
    END_OPTIONAL = True  # the end-of-sequence token, which servers strip
    ARRAY = False

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(f"<|function_call|>{_dumps({'name': n, 'arguments': a})}" for n, a in calls)


class CohereCommandParser(JsonCallsParser):
    names = ("cohere_command3", "cohere_command4")
    family = "Cohere Command A / Command A Reasoning"
    vllm_differences = (
        "Pure Python (vLLM 0.23 needs the cohere_melody package); streams arguments "
        "verbatim. Like vLLM, the model's tool_call_id is the call id (made unique within "
        "the stream with a ~2 suffix if repeated; a call whose arguments start before its "
        "tool_call_id keeps a generated id)."
    )
    START = ("<|START_ACTION|>",)
    END = "<|END_ACTION|>"
    NAME_KEYS = ("tool_name",)
    ARGS_KEYS = ("parameters",)
    ID_KEYS = ("tool_call_id",)

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        body = [
            {"tool_call_id": str(i), "tool_name": n, "parameters": a}
            for i, (n, a) in enumerate(calls)
        ]
        return f"<|START_ACTION|>{json.dumps(body, ensure_ascii=False, indent=4)}<|END_ACTION|>"


class MiniMaxParser(JsonCallsParser):
    names = ("minimax",)
    family = "MiniMax-M1"
    vllm_differences = _STREAMS + " (vLLM: a regex over the whole text each delta)."
    START = ("<tool_calls>",)
    END = "</tool_calls>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        lines = "\n".join(_dumps({"name": n, "arguments": a}) for n, a in calls)
        return f"<tool_calls>\n{lines}\n</tool_calls>"


class ApertusParser(JsonCallsParser):
    names = ("apertus",)
    family = "swiss-ai Apertus"
    vllm_differences = (
        _STREAMS + " (vLLM: partial_json_parser over the whole text); the text around the "
        "calls is kept as written (vLLM strips it and joins the parts with a newline)."
    )
    START = ("<|tools_prefix|>",)
    END = "<|tools_suffix|>"
    NAME_AS_KEY = True

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return f"<|tools_prefix|>{_dumps([{n: a} for n, a in calls])}<|tools_suffix|>"


FORMATS = (
    InternLMParser,
    JambaParser,
    HunyuanA13BParser,
    Ernie45Parser,
    LongcatParser,
    Phi4MiniJsonParser,
    GigaChat3Parser,
    CohereCommandParser,
    MiniMaxParser,
    ApertusParser,
)
