"""The code a fuzz run tested, as a digest per function: ``python -m fuzz.fingerprint TARGET``.

A run of 10 clean minutes counts for the code it ran on, and only while that code stays.
Which code that is: the functions of ``streamcall`` and of this package that the target
calls on its corpus (every input of ``fuzz/corpus/<target>/`` through the target, with a
profile hook recording each function entered and the class of its ``self`` or ``cls``).
Each gets a digest of what decides its behaviour:

- a function: its bytecode, the names it uses, its constants (a nested function's code
  in place of it; a docstring left out), its defaults, and the module-level data it names
  (numbers, strings, compiled patterns, tuples, dicts and dataclasses of them), in its own
  module or in a module it names. Line numbers are not in it: moving code keeps a digest;
- a class whose instance ran a method: its own class-level data (``ClassVar`` settings,
  patterns, tables), one entry per class in the instance's MRO.

``status(fingerprint)`` recomputes the same digests on the code as it is now and names the
ones that differ; a run counts while none does. Functions the corpus never reached are not
in the fingerprint: the run did not test them, so a change there does not undo it. A
function called through a name held in another module's attribute chain deeper than one
module, or data built at run time, can be missed: the digest is a strong hint, not a proof.

``python -m fuzz.fingerprint TARGET [--corpus DIR] [--time S]`` prints the fingerprint as
JSON (``partial`` is true when the corpus did not fit in the time; ``unindexed`` names code
that ran but has no key, which no digest covers).
"""

from __future__ import annotations

import argparse
import dataclasses
import dis
import enum
import hashlib
import importlib
import json
import re
import sys
import time
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: What a digest holds changes with this module: a fingerprint of another version is taken
#: again (``status`` does not compare across versions).
VERSION = 2
_ROOTS = ("streamcall", "fuzz")
_CODE = types.CodeType


def _package_dirs() -> tuple[str, ...]:
    dirs = []
    for root in _ROOTS:
        module = importlib.import_module(root)
        dirs.append(str(Path(module.__file__ or "").resolve().parent))
    return tuple(dirs)


def _ours(module: types.ModuleType) -> bool:
    return module.__name__.split(".")[0] in _ROOTS


# -- digests ---------------------------------------------------------------------------------


def _data(value: Any, depth: int = 0) -> str | None:
    """A stable text for a data value, or None for code and objects (their identity is
    not data: a function is digested when it runs)."""
    if depth > 6:
        return "..."
    if value is None or isinstance(value, bool | int | float | complex | str | bytes):
        return repr(value)
    if isinstance(value, re.Pattern):
        return f"re({value.pattern!r}, {value.flags})"
    if isinstance(value, enum.Enum):
        return f"{type(value).__qualname__}.{value.name}={value.value!r}"
    if isinstance(value, tuple | list):
        return "[" + ",".join(_data(v, depth + 1) or "?" for v in value) + "]"
    if isinstance(value, frozenset | set):
        return "{" + ",".join(sorted(_data(v, depth + 1) or "?" for v in value)) + "}"
    if isinstance(value, dict):
        items = sorted(
            (_data(k, depth + 1) or "?", _data(v, depth + 1) or "?") for k, v in value.items()
        )
        return "{" + ",".join(f"{k}:{v}" for k, v in items) + "}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = (
            f"{f.name}={_data(getattr(value, f.name), depth + 1)}"
            for f in dataclasses.fields(value)
        )
        return f"{type(value).__qualname__}({','.join(fields)})"
    return None


def _docstring(code: _CODE) -> bool:
    """Whether ``co_consts[0]`` is a docstring: a string the code never loads."""
    if not code.co_consts or not isinstance(code.co_consts[0], str):
        return False
    return not any(i.opname == "LOAD_CONST" and i.arg == 0 for i in dis.get_instructions(code))


def _globals_named(code: _CODE, module: types.ModuleType | None) -> list[str]:
    if module is None:
        return []
    space = vars(module)
    modules = [v for v in space.values() if isinstance(v, types.ModuleType) and _ours(v)]
    out = []
    for name in sorted(set(_all_names(code))):
        if name.startswith("__") and name.endswith("__"):
            continue  # __name__, __path__...: where the code is, not what it does
        for where, ns in [("", space), *((m.__name__ + ".", vars(m)) for m in modules)]:
            if name in ns:
                text = _data(ns[name])
                if text is not None:
                    out.append(f"{where}{name}={text}")
    return out


def _all_names(code: _CODE) -> Iterator[str]:
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, _CODE):
            yield from _all_names(const)


def _code_text(code: _CODE) -> str:
    consts = list(code.co_consts)
    if _docstring(code):
        consts[0] = None
    parts = [
        code.co_qualname,
        code.co_code.hex(),
        ",".join(code.co_names),
        ",".join(code.co_varnames),
        str(code.co_argcount),
        str(code.co_kwonlyargcount),
        str(code.co_flags),
    ]
    for const in consts:
        if isinstance(const, _CODE):
            parts.append(f"<{_code_text(const)}>")
        else:  # a frozenset's repr follows the string hash seed: _data sorts it
            parts.append(_data(const) or repr(const))
    return "\x00".join(parts)


def code_digest(code: _CODE, module: types.ModuleType | None, defaults: str = "") -> str:
    """The digest of a function: its code, the module-level data it names, and its
    defaults (``_defaults``: evaluated where it is defined, so not in its code)."""
    text = _code_text(code) + "\x01" + "\x00".join(_globals_named(code, module)) + defaults
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def class_digest(cls: type) -> str:
    """The digest of a class's own class-level data (not its functions, not inherited)."""
    items = []
    for name, value in sorted(vars(cls).items()):
        if name.startswith("__") and name.endswith("__"):
            continue
        text = _data(value)
        if text is not None:
            items.append(f"{name}={text}")
    return hashlib.sha1("\x00".join(items).encode("utf-8", "surrogatepass")).hexdigest()[:16]


# -- where every function lives ---------------------------------------------------------------


def _modules() -> list[types.ModuleType]:
    return sorted(
        (m for name, m in list(sys.modules.items()) if name.split(".")[0] in _ROOTS and m),
        key=lambda m: m.__name__,
    )


def _functions_of(owner: Any, prefix: str, seen: set[int]) -> Iterator[tuple[str, Any]]:
    """(qualified name, function or class) for every function and class defined in
    ``owner`` (a module or a class), classes walked into; what it imports is left to
    the module that defines it."""
    home = owner.__name__ if isinstance(owner, types.ModuleType) else owner.__module__
    for name, value in list(vars(owner).items()):
        if isinstance(value, staticmethod | classmethod):
            value = value.__func__
        while not isinstance(value, types.FunctionType | type) and hasattr(value, "__wrapped__"):
            value = value.__wrapped__  # functools.cache and the like: the function inside
        if isinstance(value, property):
            for part in ("fget", "fset", "fdel"):
                fn = getattr(value, part)
                if isinstance(fn, types.FunctionType):
                    yield f"{prefix}{name}.{part}", fn
            continue
        if id(value) in seen:
            continue
        if isinstance(value, types.FunctionType) and value.__module__ == home:
            seen.add(id(value))
            yield f"{prefix}{name}", value
        elif isinstance(value, type) and value.__module__ == home:
            seen.add(id(value))
            yield f"{prefix}{name}", value
            yield from _functions_of(value, f"{prefix}{name}.", seen)


def _defaults(fn: types.FunctionType) -> str:
    kw = fn.__kwdefaults__ or {}
    if not fn.__defaults__ and not kw:
        return ""
    return "\x02" + (_data([fn.__defaults__ or (), kw]) or "?")


def _nested(code: _CODE, key: str) -> Iterator[tuple[str, _CODE]]:
    yield key, code
    index = 0
    for const in code.co_consts:
        if isinstance(const, _CODE):
            yield from _nested(const, f"{key}/{const.co_name}#{index}")
            index += 1


class Index:
    """Every function and class of the loaded modules, by a key that stays when code
    moves: ``module.Qual.name`` (``/inner#i`` for a nested function)."""

    def __init__(self) -> None:
        self.codes: dict[int, tuple[str, _CODE, types.ModuleType]] = {}
        self.by_key: dict[str, tuple[_CODE, types.ModuleType, str]] = {}
        self.classes: dict[str, type] = {}
        for module in _modules():
            seen: set[int] = set()
            for name, value in _functions_of(module, f"{module.__name__}.", seen):
                if isinstance(value, type):
                    self.classes[name] = value
                    continue
                code = getattr(value, "__code__", None)
                if not isinstance(code, _CODE):
                    continue
                defaults = _defaults(value)  # a nested function's are in its parent's code
                for key, inner in _nested(code, name):
                    if id(inner) not in self.codes:
                        self.codes[id(inner)] = (key, inner, module)
                        self.by_key[key] = (inner, module, defaults if inner is code else "")

    def class_key(self, cls: type) -> str | None:
        key = f"{cls.__module__}.{cls.__qualname__}"
        return key if self.classes.get(key) is cls else None

    def digest(self, key: str) -> str | None:
        """The digest now of a fingerprint's key, or None if nothing has that key now."""
        if key.startswith("class "):
            cls = self.classes.get(key[6:])
            return None if cls is None else class_digest(cls)
        found = self.by_key.get(key)
        return None if found is None else code_digest(*found)


# -- taking a fingerprint ----------------------------------------------------------------------


def reached(run: Any, inputs: list[bytes], seconds: float) -> tuple[set[_CODE], set[type], bool]:
    """The code objects and ``self`` classes entered while ``run`` takes each input, under
    a profile hook; the third value is False when time ran out first."""
    dirs = _package_dirs()
    codes: set[_CODE] = set()
    classes: set[type] = set()
    ours: dict[_CODE, bool] = {}

    def hook(frame: types.FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        mine = ours.get(code)
        if mine is None:
            mine = ours[code] = code.co_filename.startswith(dirs)
        if not mine:
            return
        codes.add(code)
        if code.co_argcount and code.co_varnames[0] in ("self", "cls"):
            first = frame.f_locals.get(code.co_varnames[0])
            classes.add(first if isinstance(first, type) else type(first))

    deadline = time.monotonic() + seconds
    complete = True
    for data in inputs:
        if time.monotonic() > deadline:
            complete = False
            break
        sys.setprofile(hook)
        try:
            run(data)
        except Exception:
            pass  # a failing input still ran its code
        finally:
            sys.setprofile(None)
    return codes, classes, complete


def load() -> None:
    """Import every module a target may run (as ``fuzz.run_target`` does)."""
    import fuzz.targets  # noqa: F401
    import streamcall
    import streamcall.reasoning

    streamcall.formats()


def take(target: str, corpus: Path, seconds: float = 300.0) -> dict[str, Any]:
    """The fingerprint of ``target`` over the inputs in ``corpus`` (sorted by name)."""
    load()
    from fuzz.targets import get_target

    run = get_target(target)
    files = sorted(p for p in corpus.iterdir() if p.is_file()) if corpus.is_dir() else []
    inputs = [p.read_bytes() for p in files]
    # every digest is taken before the corpus runs: module-level data that a run fills
    # (a cache) is read as the code left it, as ``status`` reads it
    index = Index()
    before = {key: index.digest(key) for key in index.by_key}
    before.update({"class " + key: index.digest("class " + key) for key in index.classes})
    codes, classes, complete = reached(run, inputs, seconds)
    digests: dict[str, str | None] = {}
    unindexed = set()
    for code in codes:
        found = index.codes.get(id(code))
        if found is not None:
            digests[found[0]] = before[found[0]]
        else:  # code made at run time, or a function the index cannot find by name
            unindexed.add(f"{Path(code.co_filename).name}:{code.co_qualname}")
    for cls in classes:
        for base in cls.__mro__:
            name = index.class_key(base)
            if name is not None:
                digests["class " + name] = before["class " + name]
    return {
        "version": VERSION,
        "target": target,
        "inputs": len(inputs),
        "partial": not complete,
        "digests": dict(sorted(digests.items())),
        "unindexed": sorted(unindexed),
    }


def changed(digests: dict[str, str], index: Index | None = None) -> list[str]:
    """The keys of ``digests`` whose digest differs now (or that are gone)."""
    if index is None:
        load()
        index = Index()
    return [key for key, value in digests.items() if index.digest(key) != value]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m fuzz.fingerprint", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("target")
    parser.add_argument("--corpus", help="default: fuzz/corpus/<target>")
    parser.add_argument("--time", type=float, default=300, help="seconds at most (300)")
    args = parser.parse_args(argv)
    corpus = Path(args.corpus or Path(__file__).parent / "corpus" / args.target.replace(":", "-"))
    print(json.dumps(take(args.target, corpus, args.time)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
