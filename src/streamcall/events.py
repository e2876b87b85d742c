"""The events every layer speaks.

Parsers turn text into a flat list of these. They are frozen, slotted dataclasses so that
they are cheap to make, safe to share and compare by value.

One change from what ``@dataclass`` generates: the ``__init__`` of a frozen dataclass sets
each field through ``object.__setattr__`` (to get past the frozen ``__setattr__``), which
costs more than a token of scanning per event. Each class here gets an ``__init__`` with
the same signature that sets its fields through the slot descriptors instead. The classes
stay frozen (assigning a field raises ``FrozenInstanceError``) and everything else is the
dataclass's own.

The first five are the public contract (README.md, "What the contract guarantees"). The rest
are what a whole stream adds on top of model text: usage, the finish reason, and chunks the
decoder rejected.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Protocol

__all__ = [
    "Event",
    "Finish",
    "Reasoning",
    "StreamError",
    "Text",
    "ToolCallArgs",
    "ToolCallEnd",
    "ToolCallStart",
    "UsageEvent",
    "usage_dict",
]


@dataclass(frozen=True, slots=True)
class Text:
    """Visible content delta."""

    text: str

    def __reduce__(self) -> tuple[type[Text], tuple[Any, ...]]:
        # (each event pickles as its class and fields: a compiled build's frozen class
        # cannot be restored by setting its fields one by one, as pickle's default does)
        return (Text, (self.text,))


@dataclass(frozen=True, slots=True)
class Reasoning:
    """Reasoning (thinking) delta."""

    text: str

    def __reduce__(self) -> tuple[type[Reasoning], tuple[Any, ...]]:
        return (Reasoning, (self.text,))


@dataclass(frozen=True, slots=True)
class ToolCallStart:
    """A call begins; its name is known."""

    index: int
    id: str
    name: str

    def __reduce__(self) -> tuple[type[ToolCallStart], tuple[Any, ...]]:
        return (ToolCallStart, (self.index, self.id, self.name))


@dataclass(frozen=True, slots=True)
class ToolCallArgs:
    """A fragment of the call's arguments JSON text."""

    index: int
    delta: str

    def __reduce__(self) -> tuple[type[ToolCallArgs], tuple[Any, ...]]:
        return (ToolCallArgs, (self.index, self.delta))


@dataclass(frozen=True, slots=True)
class ToolCallEnd:
    """The call is complete; ``arguments`` is the whole JSON object text.

    ``incomplete`` is true when the model stopped (end of stream, or malformed markup)
    before the arguments were closed. The parser then appended the shortest text that
    closes them, so ``arguments`` still loads as a JSON object and still equals the
    concatenation of the call's ``ToolCallArgs`` deltas.
    """

    index: int
    arguments: str
    incomplete: bool = False

    def __reduce__(self) -> tuple[type[ToolCallEnd], tuple[Any, ...]]:
        return (ToolCallEnd, (self.index, self.arguments, self.incomplete))


@dataclass(frozen=True, slots=True)
class UsageEvent:
    """Token usage reported by the server.

    The fields are those of ``streamcall.chunks.Usage``, whose docstring says what each
    holds: the three totals, ``cached_tokens`` and ``reasoning_tokens`` read out of the
    details, the ``prompt_tokens_details`` and ``completion_tokens_details`` objects as the
    server sent them, and every other member of its usage object in ``extra``. The
    mappings are read-only JSON values, left out of the hash. ``to_dict()`` is the usage
    object an OpenAI-compatible server sends (the proxy re-emits it as is).
    """

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    prompt_tokens_details: Mapping[str, Any] | None = field(default=None, hash=False)
    completion_tokens_details: Mapping[str, Any] | None = field(default=None, hash=False)
    extra: Mapping[str, Any] | None = field(default=None, hash=False)

    def to_dict(self) -> dict[str, Any]:
        """The usage object: totals, details, then the other members as sent."""
        return usage_dict(self)

    def __reduce__(self) -> tuple[type[UsageEvent], tuple[Any, ...]]:
        return (
            UsageEvent,
            (
                self.prompt_tokens,
                self.completion_tokens,
                self.total_tokens,
                self.cached_tokens,
                self.reasoning_tokens,
                self.prompt_tokens_details,
                self.completion_tokens_details,
                self.extra,
            ),
        )


@dataclass(frozen=True, slots=True)
class Finish:
    """The server reported a finish reason for a choice."""

    reason: str
    choice: int = 0

    def __reduce__(self) -> tuple[type[Finish], tuple[Any, ...]]:
        return (Finish, (self.reason, self.choice))


@dataclass(frozen=True, slots=True)
class StreamError:
    """Input that was rejected: reported, never silently dropped.

    ``where`` says where in the stream (for example ``"event 12"``) and ``message`` what
    was wrong. ``data`` is the rejected input, kept so that nothing is lost.
    """

    message: str
    where: str = ""
    data: str = ""

    def __reduce__(self) -> tuple[type[StreamError], tuple[Any, ...]]:
        return (StreamError, (self.message, self.where, self.data))


class UsageFields(Protocol):
    """What ``usage_dict`` reads: the fields of ``UsageEvent`` and ``chunks.Usage``."""

    @property
    def prompt_tokens(self) -> int: ...
    @property
    def completion_tokens(self) -> int: ...
    @property
    def total_tokens(self) -> int: ...
    @property
    def cached_tokens(self) -> int: ...
    @property
    def reasoning_tokens(self) -> int: ...
    @property
    def prompt_tokens_details(self) -> Mapping[str, Any] | None: ...
    @property
    def completion_tokens_details(self) -> Mapping[str, Any] | None: ...
    @property
    def extra(self) -> Mapping[str, Any] | None: ...


def usage_dict(usage: UsageFields) -> dict[str, Any]:
    """The usage object that ``Usage`` and ``UsageEvent`` fields describe (their ``to_dict``).

    The totals, the details objects when there are any, then the ``extra`` members (which
    never replace a total or a details object). ``cached_tokens`` and ``reasoning_tokens``
    are read out of the details, so they are not written again; only a count that no
    details object holds (an instance built by hand) is written into its own one, so that
    no count set is lost.
    """
    prompt_tokens_details = usage.prompt_tokens_details
    completion_tokens_details = usage.completion_tokens_details
    extra = usage.extra
    cached_tokens, reasoning_tokens = usage.cached_tokens, usage.reasoning_tokens
    out: dict[str, Any] = {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
    }
    details = [prompt_tokens_details, completion_tokens_details]
    if extra:
        details.extend(v for k, v in extra.items() if k.endswith("_details"))
    held = {name for d in details if isinstance(d, Mapping) for name in d}
    for name, key, count, given in (
        ("cached_tokens", "prompt_tokens_details", cached_tokens, prompt_tokens_details),
        (
            "reasoning_tokens",
            "completion_tokens_details",
            reasoning_tokens,
            completion_tokens_details,
        ),
    ):
        if count and name not in held:
            out[key] = {**(given or {}), name: count}
        elif given is not None:
            out[key] = dict(given)
    if extra:
        for key, value in extra.items():
            if key not in _USAGE_OWN:
                out[key] = value
    return out


_USAGE_OWN = frozenset(
    {
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "prompt_tokens_details",
        "completion_tokens_details",
    }
)


Event = (
    Text
    | Reasoning
    | ToolCallStart
    | ToolCallArgs
    | ToolCallEnd
    | UsageEvent
    | Finish
    | StreamError
)


def _fast_init(cls: type) -> None:
    """Give a frozen slotted dataclass an ``__init__`` that sets fields through its slots."""
    names = [f.name for f in fields(cls)]
    scope: dict[str, Any] = {}
    params = []
    for f in fields(cls):
        if f.default is MISSING:
            params.append(f.name)
        else:
            scope[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        scope[f"_set_{f.name}"] = cls.__dict__[f.name].__set__
    body = "".join(f"\n    _set_{name}(self, {name})" for name in names)
    exec(f"def __init__(self, {', '.join(params)}):{body}", scope)
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[misc]


for _cls in (
    Text,
    Reasoning,
    ToolCallStart,
    ToolCallArgs,
    ToolCallEnd,
    UsageEvent,
    Finish,
    StreamError,
):
    _fast_init(_cls)
del _cls
