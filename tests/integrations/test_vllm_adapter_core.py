"""The vLLM adapter's pure core, without vLLM: what ``DeltaAdapter`` sends per delta and at
the end of the stream, and how ``streamcall`` routes a tokenizer. Everything that needs
vLLM itself (loading, registration, vLLM's serving code) is in test_vllm_real.py, which
runs against real vLLM 0.33.0 and 0.34.0 (``scripts/test-vllm VERSION``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from streamcall import parse_tool_calls
from streamcall.bundled import find_example
from streamcall.integrations.vllm import (
    DeltaAdapter,
    register,
    route_tokenizer,
    tool_phase_reasoning,
)


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


def test_register_without_vllm_is_a_clear_import_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("streamcall.integrations.vllm._registered", [])
    for name in ["vllm", *(n for n in sys.modules if n.startswith("vllm."))]:
        monkeypatch.setitem(sys.modules, name, None)  # as if vLLM were not installed
    with pytest.raises(ImportError, match="needs vLLM"):
        register()


def test_a_call_starts_with_its_name_and_only_set_members() -> None:
    """The first delta of a call carries id, type, name and the first arguments; the next
    ones only the index and arguments (vLLM serialises with ``exclude_unset``)."""
    adapter = DeltaAdapter("hermes", id_prefix="x_")
    first = adapter.delta('<tool_call>{"name": "f", "arguments": {"a": ')
    assert first == {
        "tool_calls": [
            {
                "index": 0,
                "id": "x_0",
                "type": "function",
                "function": {"name": "f", "arguments": '{"a": '},
            }
        ]
    }
    assert adapter.delta('1, "b": 2}}</tool_call>') == {
        "tool_calls": [{"index": 0, "function": {"arguments": '1, "b": 2}'}}]
    }
    assert adapter.finish() is None
    assert adapter.prev_tool_call_arr == [{"name": "f", "arguments": '{"a": 1, "b": 2}'}]


def test_finish_flushes_a_held_marker_and_closes_a_cut_call() -> None:
    held = DeltaAdapter("hermes")
    assert held.delta("The marker is <tool") == {"content": "The marker is "}
    assert held.finish() == {"content": "<tool"}
    assert held.finish() is None  # once
    cut = DeltaAdapter("hermes")
    streamed = _stream(cut, '<tool_call>{"name": "f", "arguments": {"q": "abc', 5)
    last = cut.finish()
    assert last is not None
    content, calls = _merge([*streamed, last])
    assert content == "" and json.loads(calls[0]["args"]) == {"q": "abc"}
    # what vLLM re-derives at the end agrees with what was sent: nothing is sent twice
    assert cut.prev_tool_call_arr[0]["arguments"] == cut.streamed_args_for_tool[0]
    assert cut.delta("more") is None  # nothing after the end


def test_reasoning_in_front_of_the_tool_parser_starts_closed() -> None:
    """With ``reasoning``, markup the model writes in the tool phase is reasoning; plain text
    before it stays content (the tool phase starts outside reasoning)."""
    adapter = DeltaAdapter("gemma4", reasoning=tool_phase_reasoning("gemma4"))
    text = "Hi.<|channel>thought\nhmm<channel|>Ok.<|tool_call>call:f{a:1}<tool_call|>"
    messages = [*_stream(adapter, text, 3)]
    last = adapter.finish()
    if last is not None:
        messages.append(last)
    assert "".join(m.get("reasoning", "") for m in messages) == "hmm"
    content, calls = _merge(messages)
    assert content == "Hi.Ok." and calls[0]["name"] == "f"
    assert json.loads(calls[0]["args"]) == {"a": 1}


def test_routing_reads_the_tokenizer_name(tmp_path: Path) -> None:
    """A model id routes as a whole; a local checkpoint by its directory's name only."""
    local = tmp_path / "qwen-runs" / "my-finetune"
    local.mkdir(parents=True)
    with pytest.raises(ValueError, match="my-finetune"):
        route_tokenizer(SimpleNamespace(name_or_path=str(local)))
    (tmp_path / "qwen-runs" / "Hermes-3-8B").mkdir()
    assert (
        route_tokenizer(SimpleNamespace(name_or_path=str(tmp_path / "qwen-runs" / "Hermes-3-8B")))
        == "hermes"
    )
    assert route_tokenizer(SimpleNamespace(name_or_path="/models/gemma-4-31b-it")) == "gemma4"
    assert route_tokenizer(SimpleNamespace(name_or_path="Qwen/Qwen3-Coder-30B")) == "qwen3_coder"
    for tokenizer in (SimpleNamespace(name_or_path="/models/my-finetune"), SimpleNamespace()):
        with pytest.raises(ValueError, match=r"--tool-call-parser streamcall_<format>.*hermes"):
            route_tokenizer(tokenizer)


def test_tool_phase_reasoning_follows_vllms_engines_and_the_thinking_switch() -> None:
    """Gemma 4's engine reads its channel in the tool phase always; GLM's only while the
    request's thinking switch is not off (either key, as vLLM reads them)."""
    assert tool_phase_reasoning("hermes") is None
    assert tool_phase_reasoning("gemma4", {"chat_template_kwargs": {"enable_thinking": False}})
    assert tool_phase_reasoning("glm47") is not None
    assert tool_phase_reasoning("glm47", {"chat_template_kwargs": {"thinking": True}})
    for off in ({"enable_thinking": False}, {"thinking": False}, {"thinking": "disabled"}):
        assert tool_phase_reasoning("glm45", {"chat_template_kwargs": off}) is None
    request = SimpleNamespace(
        chat_template_kwargs={"enable_thinking": False}, reasoning_effort=None
    )
    assert tool_phase_reasoning("glm47", request) is None
    # several blocks between calls (GLM's interleaved thinking)
    adapter = DeltaAdapter("glm47", reasoning=tool_phase_reasoning("glm47"))
    text = "<think>a</think>Hi.<think>b</think><tool_call>f<arg_key>x</arg_key><arg_value>1</arg_value></tool_call>"
    messages = [m for m in [*_stream(adapter, text, 4), adapter.finish()] if m is not None]
    assert "".join(m.get("reasoning", "") for m in messages) == "ab"
    content, calls = _merge(messages)
    assert content == "Hi." and json.loads(calls[0]["args"]) == {"x": 1}


# -- the routing parser and the tokenizer's response template ---------------------------------

_HAS_HF = hasattr(__import__("streamcall"), "response_parser")


def test_response_template_of_reads_the_tokenizers_template() -> None:
    from streamcall.integrations.vllm import response_template_of
    from streamcall.response_templates import response_template_for

    template = response_template_for("hermes")
    assert template is not None
    # transformers' attribute, else vLLM's other place for it
    assert response_template_of(SimpleNamespace(response_template=template)) == template
    init = SimpleNamespace(response_template=None, init_kwargs={"response_template": template})
    assert response_template_of(init) == template
    for none in (SimpleNamespace(), SimpleNamespace(response_template=None, init_kwargs={})):
        assert response_template_of(none) is None
    # a broken one stops the server at startup, naming the problem
    with pytest.raises(ValueError, match="response_template must be a JSON object"):
        response_template_of(SimpleNamespace(response_template="<tool_call>"))
    with pytest.raises(ValueError, match="response_template is not valid"):
        response_template_of(SimpleNamespace(response_template={"fields": {}}))


@pytest.mark.skipif(
    not _HAS_HF, reason="needs the hf format (streamcall.response_parser, issue 17's stream part)"
)
def test_an_adapter_on_a_response_template_is_the_hf_parser() -> None:
    from streamcall.response_templates import response_template_for

    text = 'Sure.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    template = response_template_for("hermes")
    for size in (1, 7, len(text)):
        adapter = DeltaAdapter("ignored", template=template)
        messages = _stream(adapter, text, size)
        tail = adapter.finish()
        if tail is not None:
            messages.append(tail)
        content, calls = _merge(messages)
        assert content == "Sure."
        assert [(c["name"], json.loads(c["args"])) for c in calls.values()] == [
            ("get_weather", {"city": "Paris"})
        ]
