"""What a feed-loop step returns: ``python -m benchmarks steps``.

``streamcall.text.loop`` dispatches a mode table of steps, each returning where it stopped
and whether to hold the rest. This measures four ways to say that, on one toy parser with
two modes and two steps per 7-character chunk, interleaved in one process (CPU time, best
of many rounds): a plain tuple ``(pos, hold)`` (the one in use), a ``NamedTuple``, a
``hold`` attribute set by the step, and the old encoding of a hold as ``-(pos + 1)``.
"""

from __future__ import annotations

import time
from typing import NamedTuple

from benchmarks._util import table

CHUNKS = ["abcdefg"] * 20000
ROUNDS = 30


class _Named(NamedTuple):
    pos: int
    hold: bool


class _Tuple:
    def __init__(self) -> None:
        self._tail = ""
        self._mode = 0
        self._hold = False
        self._steps = (self._first, self._second)

    def feed(self, text: str) -> list[object]:
        out: list[object] = []
        buf = self._tail + text if self._tail else text
        n = len(buf)
        pos = 0
        steps = self._steps
        while pos < n:
            pos, hold = steps[self._mode](buf, pos, out, False)
            if hold:
                break
        self._tail = buf[pos:] if pos < n else ""
        return out

    def _first(self, buf: str, pos: int, out: list[object], final: bool) -> tuple[int, bool]:
        self._mode = 1
        return pos + 3, False

    def _second(self, buf: str, pos: int, out: list[object], final: bool) -> tuple[int, bool]:
        self._mode = 0
        return len(buf) - 2, True


class _NamedTuple(_Tuple):
    def _first(self, buf: str, pos: int, out: list[object], final: bool) -> tuple[int, bool]:
        self._mode = 1
        return _Named(pos + 3, False)

    def _second(self, buf: str, pos: int, out: list[object], final: bool) -> tuple[int, bool]:
        self._mode = 0
        return _Named(len(buf) - 2, True)


class _Attribute(_Tuple):
    def feed(self, text: str) -> list[object]:
        out: list[object] = []
        buf = self._tail + text if self._tail else text
        n = len(buf)
        pos = 0
        steps = self._steps
        self._hold = False
        while pos < n:
            pos = steps[self._mode](buf, pos, out, False)  # type: ignore[assignment]
            if self._hold:
                break
        self._tail = buf[pos:] if pos < n else ""
        return out

    def _first(self, buf: str, pos: int, out: list[object], final: bool) -> int:  # type: ignore[override]
        self._mode = 1
        return pos + 3

    def _second(self, buf: str, pos: int, out: list[object], final: bool) -> int:  # type: ignore[override]
        self._mode = 0
        self._hold = True
        return len(buf) - 2


class _Negative(_Tuple):
    def feed(self, text: str) -> list[object]:
        out: list[object] = []
        buf = self._tail + text if self._tail else text
        n = len(buf)
        pos = 0
        steps = self._steps
        while pos < n:
            pos = steps[self._mode](buf, pos, out, False)  # type: ignore[assignment]
            if pos < 0:
                pos = -pos - 1
                break
        self._tail = buf[pos:] if pos < n else ""
        return out

    def _first(self, buf: str, pos: int, out: list[object], final: bool) -> int:  # type: ignore[override]
        self._mode = 1
        return pos + 3

    def _second(self, buf: str, pos: int, out: list[object], final: bool) -> int:  # type: ignore[override]
        self._mode = 0
        return -(len(buf) - 2) - 1


SHAPES = {
    "tuple (pos, hold)": _Tuple,
    "NamedTuple": _NamedTuple,
    "hold attribute": _Attribute,
    "-(pos + 1)": _Negative,
}


def _per_chunk(cls: type[_Tuple]) -> float:
    feed = cls().feed
    start = time.process_time()
    for chunk in CHUNKS:
        feed(chunk)
    return (time.process_time() - start) / len(CHUNKS) * 1e9


def main() -> None:
    best = dict.fromkeys(SHAPES, float("inf"))
    for _ in range(ROUNDS):
        for name, cls in SHAPES.items():
            best[name] = min(best[name], _per_chunk(cls))
    base = best["tuple (pos, hold)"]
    print("feed-loop step return shape: 2 steps per 7-char chunk, interleaved, best of", ROUNDS)
    print(
        table(
            ["shape", "ns/chunk", "vs tuple"],
            [[name, t, f"{t / base:.2f}x"] for name, t in best.items()],
        )
    )


if __name__ == "__main__":
    main()
