"""One target under atheris: ``python -m fuzz.run_target TARGET [libFuzzer flags] [CORPUS]``.

A contract break does not stop the run: the input is counted, the first input of each new
failure signature is written to ``$FUZZ_CRASHES`` (``<signature hash>.input``, with a
``.txt`` beside it giving the failure), and fuzzing goes on, so that one run reports every
kind of failure it meets. Counts are written to ``$FUZZ_STATS`` (JSON) as it goes. Only a
hang, a crash of the interpreter or running out of memory stops libFuzzer itself (it writes
its own artifact then).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path

import atheris

# Every streamcall module is imported here, inside the hook, so that all of them report
# coverage (the format modules are loaded by the registry's first call); the checking
# harness and the parts no target reaches are left out (coverage costs per line run).
_NOT_FUZZED = [
    "streamcall.testing",
    "streamcall.cli",
    "streamcall.server",
    "streamcall.integrations",
    "streamcall.bundled",
]
with atheris.instrument_imports(include=["streamcall"], exclude=_NOT_FUZZED):
    import streamcall
    import streamcall.reasoning

    streamcall.formats()
    from fuzz.targets import failure_of, get_target


def main() -> None:
    name = sys.argv[1]
    target = get_target(name)
    crashes = Path(os.environ.get("FUZZ_CRASHES", f"fuzz/crashes/{name.replace(':', '-')}"))
    crashes.mkdir(parents=True, exist_ok=True)
    stats_path = os.environ.get("FUZZ_STATS")
    started = time.monotonic()
    stats = {"target": name, "inputs": 0, "failures": 0, "signatures": {}, "last_failure_s": None}
    seen: dict[str, int] = stats["signatures"]  # type: ignore[assignment]
    last_write = [started]

    def write_stats() -> None:
        last_write[0] = time.monotonic()
        if stats_path:
            tmp = stats_path + ".tmp"
            Path(tmp).write_text(json.dumps(stats))
            os.replace(tmp, stats_path)

    def one_input(data: bytes) -> None:
        stats["inputs"] += 1  # type: ignore[operator]
        failure = failure_of(target, data)
        if failure is not None:
            sig, message = failure
            stats["failures"] += 1  # type: ignore[operator]
            stats["last_failure_s"] = round(time.monotonic() - started, 1)
            if sig not in seen:
                seen[sig] = 0
                key = hashlib.sha1(sig.encode()).hexdigest()[:12]
                (crashes / f"{key}.input").write_bytes(data)
                (crashes / f"{key}.txt").write_text(
                    f"target: {name}\nsignature: {sig}\ninput: {data!r}\n\n{message}\n"
                )
            seen[sig] += 1
            write_stats()
        elif time.monotonic() - last_write[0] > 2:
            write_stats()

    sys.argv = [sys.argv[0], *sys.argv[2:]]
    atheris.Setup(sys.argv, one_input)
    write_stats()
    atheris.Fuzz()


if __name__ == "__main__":
    main()
