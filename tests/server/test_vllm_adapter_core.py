"""The vLLM adapter without vLLM: the pure per-delta core, and the registration wiring
against a minimal stand-in for vLLM's public ToolParser interface (vLLM itself is not
installable here; the stand-in has only the names the adapter uses)."""

from __future__ import annotations

import json
import sys
import types
from typing import Any, ClassVar

import pytest

from streamcall import parse_tool_calls
from streamcall.bundled import find_example
from streamcall.integrations.vllm import DeltaAdapter, register


def _stream(adapter: DeltaAdapter, text: str, size: int) -> list[dict[str, Any]]:
    out = []
    for i in range(0, len(text), size):
        shaped = adapter.delta(text[i : i + size])
        if shaped is not None:
            out.append(shaped)
    return out


def _merge(messages: list[dict[str, Any]]) -> tuple[str, dict[int, dict[str, Any]]]:
    content = "".join(m.get("content", "") for m in messages)
    calls: dict[int, dict[str, Any]] = {}
    for m in messages:
        for c in m.get("tool_calls", []):
            call = calls.setdefault(c["index"], {"name": None, "id": None, "args": ""})
            if "id" in c:
                assert call["id"] is None
                call.update(id=c["id"], name=c["function"]["name"])
            call["args"] += c["function"]["arguments"]
    return content, calls


@pytest.mark.parametrize("size", [1, 3, 7, 10_000])
@pytest.mark.parametrize("name", ["gemma4_flights.txt", "granite4_weather.txt"])
def test_deltas_add_up_to_the_one_shot_result(name: str, size: int) -> None:
    example = find_example(name)
    assert example is not None and example.format is not None
    text = example.read_bytes().decode()
    adapter = DeltaAdapter(example.format)
    content, calls = _merge(_stream(adapter, text, size))
    expected = parse_tool_calls(text, example.format)
    assert content == expected.content
    assert [(c["name"], c["args"]) for _, c in sorted(calls.items())] == [
        (c.name, c.arguments) for c in expected.tool_calls
    ]
    # what vLLM's serving layer reads at the end of the stream agrees with what was sent
    assert adapter.streamed_args_for_tool == [c.arguments for c in expected.tool_calls]
    assert [a["arguments"] for a in adapter.prev_tool_call_arr] == adapter.streamed_args_for_tool
    one_shot = DeltaAdapter(example.format).extract(text)
    assert one_shot["tools_called"] is True
    assert [c["function"]["arguments"] for c in one_shot["tool_calls"]] == [
        c.arguments for c in expected.tool_calls
    ]


def test_vllm_end_of_stream_check_sends_nothing_twice() -> None:
    """vLLM re-derives the last delta's arguments as ``expected.replace(actual, "", 1)``."""
    adapter = DeltaAdapter("hermes")
    messages = _stream(
        adapter, '<tool_call>{"name": "f", "arguments": {"a": [1, 2]}}</tool_call>', 4
    )
    last_args = [c["function"]["arguments"] for c in messages[-1]["tool_calls"]][-1]
    index = len(adapter.prev_tool_call_arr) - 1
    expected = adapter.prev_tool_call_arr[index]["arguments"]
    assert isinstance(expected, str)
    actual = adapter.streamed_args_for_tool[index][: -len(last_args)]
    assert expected.replace(actual, "", 1) == last_args


def test_plain_text_and_empty_deltas() -> None:
    adapter = DeltaAdapter("hermes")
    assert adapter.delta("") is None
    assert adapter.delta("hello ") == {"content": "hello "}
    assert adapter.delta("<tool") is None  # held back: it may be a marker
    assert adapter.delta("box>") == {"content": "<toolbox>"}


# --- registration, against a stand-in of vLLM's interface ---------------------------------


class _Model:
    def __init__(self, **kwargs: Any) -> None:
        self.__dict__.update(kwargs)


class _ToolParser:
    def __init__(self, tokenizer: Any) -> None:
        self.prev_tool_call_arr: list[dict[str, Any]] = []
        self.current_tool_id = -1
        self.current_tool_name_sent = False
        self.streamed_args_for_tool: list[str] = []
        self.model_tokenizer = tokenizer

    def adjust_request(self, request: Any) -> Any:
        return request


class _Manager:
    tool_parsers: ClassVar[dict[str, type]] = {}

    @classmethod
    def register_module(cls, name: str, force: bool = True, module: type | None = None) -> Any:
        assert module is not None
        cls.tool_parsers[name] = module
        return module


@pytest.fixture
def fake_vllm(monkeypatch: pytest.MonkeyPatch) -> type[_Manager]:
    parser_mod = types.ModuleType("vllm.tool_parsers.abstract_tool_parser")
    parser_mod.ToolParser = _ToolParser  # type: ignore[attr-defined]
    parser_mod.ToolParserManager = _Manager  # type: ignore[attr-defined]
    protocol = types.ModuleType("vllm.entrypoints.openai.protocol")
    for name in ("DeltaMessage", "DeltaToolCall", "DeltaFunctionCall",
                 "ExtractedToolCallInformation", "FunctionCall", "ToolCall"):  # fmt: skip
        setattr(protocol, name, type(name, (_Model,), {}))
    for name in ("vllm", "vllm.tool_parsers", "vllm.entrypoints", "vllm.entrypoints.openai"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, parser_mod.__name__, parser_mod)
    monkeypatch.setitem(sys.modules, protocol.__name__, protocol)
    monkeypatch.setattr("streamcall.integrations.vllm._registered", [])
    _Manager.tool_parsers = {}
    return _Manager


def test_register_and_stream_through_the_interface(fake_vllm: type[_Manager]) -> None:
    names = register()
    assert "streamcall" in names and "streamcall_gemma4" in names
    tokenizer = _Model(name_or_path="google/gemma-4-31b-it")
    request = _Model(model="gemma", tools=None, tool_choice="auto", skip_special_tokens=True)
    parser = fake_vllm.tool_parsers["streamcall"](tokenizer)  # routes from the tokenizer name
    parser.adjust_request(request)
    text = '<|tool_call>call:f{a:1,b:<|"|>x<|"|>}<tool_call|>'
    deltas = []
    previous = ""
    for i in range(0, len(text), 5):
        piece = text[i : i + 5]
        msg = parser.extract_tool_calls_streaming(
            previous, previous + piece, piece, [], [], [], request
        )
        previous += piece
        if msg is not None:
            deltas.append(msg)
    args = "".join(tc.function.arguments for m in deltas for tc in m.tool_calls)
    assert json.loads(args) == {"a": 1, "b": "x"}
    assert deltas[0].tool_calls[0].function.name == "f"
    assert deltas[0].tool_calls[0].id.startswith("call_")
    assert parser.streamed_args_for_tool == [args]
    request = _Model(
        model="m", tools=[{"type": "function"}], tool_choice="auto", skip_special_tokens=True
    )
    hermes = fake_vllm.tool_parsers["streamcall_hermes"](tokenizer)
    assert hermes.adjust_request(request).skip_special_tokens is False
    info = hermes.extract_tool_calls(
        'ok <tool_call>{"name": "g", "arguments": {}}</tool_call>', request
    )
    assert info.tools_called and info.content == "ok " and info.tool_calls[0].function.name == "g"


def test_register_without_vllm_is_a_clear_import_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("streamcall.integrations.vllm._registered", [])
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(ImportError, match="needs vLLM"):
        register()
