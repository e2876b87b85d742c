"""Shrink a failing input while it fails the same way (same signature): delta debugging
over characters (text targets) or bytes, within a time budget."""

from __future__ import annotations

import time

from fuzz.targets import Target, failure_of


def minimise(target: Target, data: bytes, sig: str, seconds: float, *, text: bool) -> bytes:
    deadline = time.monotonic() + seconds
    # Units: characters (as their UTF-8) for text targets, so that a cut never splits one.
    units: list[bytes]
    if text:
        units = [ch.encode("utf-8", "surrogatepass") for ch in data.decode("utf-8", "replace")]
    else:
        units = [data[i : i + 1] for i in range(len(data))]

    def fails(parts: list[bytes]) -> bool:
        found = failure_of(target, b"".join(parts))
        return found is not None and found[0] == sig

    if not fails(units):
        return data
    size = max(1, len(units) // 2)
    while size >= 1 and time.monotonic() < deadline:
        i = 0
        shrunk = False
        while i < len(units) and time.monotonic() < deadline:
            candidate = units[:i] + units[i + size :]
            if candidate and fails(candidate):
                units = candidate
                shrunk = True
            else:
                i += size
        if not shrunk:
            size //= 2
    return b"".join(units)
