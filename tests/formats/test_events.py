"""The event types: frozen, slotted dataclasses, with the faster ``__init__`` of events.py."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle

import pytest

import streamcall
from streamcall import events

CLASSES = [
    events.Text,
    events.Reasoning,
    events.ToolCallStart,
    events.ToolCallArgs,
    events.ToolCallEnd,
    events.UsageEvent,
    events.Finish,
    events.StreamError,
]


def _sample(cls: type) -> object:
    values = {
        "int": 3,
        "str": "x",
        "bool": True,
        "Mapping[str, Any] | None": {"cached_tokens": 1},  # UsageEvent's details
        "type": {"cached_tokens": 1},  # (the same, as the compiled build's fields name it)
    }
    # (the pure build's field types are the annotations' text, the compiled build's classes)
    kinds = [
        f.type if isinstance(f.type, str) else f.type.__name__ for f in dataclasses.fields(cls)
    ]
    return cls(*(values[kind] for kind in kinds))


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_event_class_is_a_frozen_slotted_dataclass(cls: type) -> None:
    params = dataclasses.fields(cls)
    assert dataclasses.is_dataclass(cls)
    assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    if not streamcall.compiled():  # (compiled, the class is a native struct: no __slots__)
        assert set(cls.__slots__) == {f.name for f in params}  # type: ignore[attr-defined]
    event = _sample(cls)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(event, params[0].name, None)
    assert not hasattr(event, "__dict__")
    # the __init__ set every field, by position and by keyword alike
    by_keyword = cls(**{f.name: getattr(event, f.name) for f in params})
    assert by_keyword == event and hash(by_keyword) == hash(event)
    assert pickle.loads(pickle.dumps(event)) == event
    assert copy.copy(event) == event
    assert dataclasses.replace(event) == event


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_event_init_signature_is_the_dataclass_one(cls: type) -> None:
    """Same parameters, order and defaults as ``@dataclass`` would generate."""
    sig = inspect.signature(cls)
    expected = [
        (f.name, inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default)
        for f in dataclasses.fields(cls)
    ]
    assert [(p.name, p.default) for p in sig.parameters.values()] == expected
    required = [f for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING]
    with pytest.raises(TypeError):
        cls(*[None] * (len(required) - 1))


def test_defaults_apply() -> None:
    assert events.ToolCallEnd(0, "{}").incomplete is False
    assert events.Finish("stop").choice == 0
    assert events.StreamError("bad").where == "" and events.StreamError("bad").data == ""
