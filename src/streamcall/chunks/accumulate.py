"""Chunk layer: merge ``ChunkDelta``s into the final ``Message``.

State, per choice: content and reasoning pieces (lists, joined once when read), the finish
reason, the role, and the tool calls keyed by (choice, server index) in order of first
appearance. The usage is the last one a chunk carried; a later chunk without usage keeps
it. Nothing is held back: every delta is applied as it comes.

The provider quirks each of which breaks the openai SDK's accumulation today:
- ``id``, ``name`` and ``role`` repeated on every chunk are set once, never concatenated
  (a name sent in pieces still joins: a piece that is not the whole name so far is added);
- a fragment without ``index`` continues the call with the same id, or opens a new call
  when its id is new, or else continues the last call;
- a first index of 1 (or any sparse numbering) is just a key; ``Message.tool_calls`` are
  in key order, renumbered 0, 1, 2...;
- content given as parts, and ``reasoning`` for ``reasoning_content``, are already folded
  by ``decode_chunk``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from streamcall.chunks.decode import ChunkDelta, ToolCallFragment, Usage

__all__ = ["ChatAccumulator", "Message", "MessageToolCall"]


@dataclass(frozen=True, slots=True)
class MessageToolCall:
    """One finished tool call. ``index`` is its position in ``Message.tool_calls``."""

    index: int
    id: str
    name: str
    arguments: str
    type: str = "function"


@dataclass(frozen=True, slots=True)
class Message:
    """The assistant message a stream adds up to."""

    content: str = ""
    reasoning: str = ""
    tool_calls: tuple[MessageToolCall, ...] = ()
    finish_reason: str | None = None
    usage: Usage | None = None
    role: str = "assistant"


class _CallState:
    __slots__ = ("arguments", "id", "name", "type")

    def __init__(self) -> None:
        self.id = ""
        self.name = ""
        self.type = "function"
        self.arguments: list[str] = []


@dataclass(slots=True)
class _ChoiceState:
    content: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    finish_reason: str | None = None
    role: str | None = None
    calls: dict[int, _CallState] = field(default_factory=dict)
    by_id: dict[str, int] = field(default_factory=dict)
    last_key: int | None = None
    next_free_key: int = 0


class ChatAccumulator:
    """Feed ``ChunkDelta``s with ``add``; read the merged ``message`` at any time."""

    __slots__ = ("_choices", "_usage")

    def __init__(self) -> None:
        self._choices: dict[int, _ChoiceState] = {}
        self._usage: Usage | None = None

    def add(self, delta: ChunkDelta) -> None:
        """Merge one chunk's delta (every choice it carries, and its usage)."""
        if delta.usage is not None:
            self._usage = delta.usage
        self._add_choice(delta)
        for other in delta.others:
            self._add_choice(other)

    def _add_choice(self, delta: ChunkDelta) -> None:
        state = self._choices.get(delta.choice)
        if state is None:
            state = self._choices[delta.choice] = _ChoiceState()
        if delta.content:
            state.content.append(delta.content)
        if delta.reasoning:
            state.reasoning.append(delta.reasoning)
        if delta.role and state.role is None:
            state.role = delta.role
        if delta.finish_reason:
            state.finish_reason = delta.finish_reason
        for fragment in delta.tool_calls:
            self._add_call(state, fragment)

    def _add_call(self, state: _ChoiceState, fragment: ToolCallFragment) -> None:
        key = self._key_for(state, fragment)
        call = state.calls.get(key)
        if call is None:
            call = state.calls[key] = _CallState()
            state.next_free_key = max(state.next_free_key, key + 1)
        state.last_key = key
        if fragment.id and not call.id:
            call.id = fragment.id
            state.by_id.setdefault(fragment.id, key)
        if fragment.type:
            call.type = fragment.type
        name = fragment.name
        if name and name != call.name:
            # Repeated whole names are the common quirk; a name sent in pieces still joins.
            call.name = name if name.startswith(call.name) and call.name else call.name + name
        if fragment.arguments:
            call.arguments.append(fragment.arguments)

    @staticmethod
    def _key_for(state: _ChoiceState, fragment: ToolCallFragment) -> int:
        if fragment.index_given:
            return fragment.index
        if fragment.id:
            known = state.by_id.get(fragment.id)
            return state.next_free_key if known is None else known
        if state.last_key is not None:
            return state.last_key
        return state.next_free_key

    @property
    def usage(self) -> Usage | None:
        """The last usage any chunk carried."""
        return self._usage

    def message_for(self, choice: int = 0) -> Message:
        """The message of one choice, as merged so far."""
        state = self._choices.get(choice)
        if state is None:
            return Message(usage=self._usage)
        calls = tuple(
            MessageToolCall(position, call.id, call.name, "".join(call.arguments), call.type)
            for position, (_, call) in enumerate(sorted(state.calls.items()))
        )
        return Message(
            "".join(state.content),
            "".join(state.reasoning),
            calls,
            state.finish_reason,
            self._usage,
            state.role or "assistant",
        )

    @property
    def message(self) -> Message:
        """The message of the first choice (choice 0, or the lowest one seen)."""
        if not self._choices or 0 in self._choices:
            return self.message_for(0)
        return self.message_for(min(self._choices))

    @property
    def choices(self) -> list[int]:
        """The choice indexes seen so far."""
        return sorted(self._choices)
