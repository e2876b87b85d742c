"""Snapshots of a ``PartialJSON``: how ``.value`` is built, and reused between reads.

Snapshots (`.value`, unless live=True): the open containers (the spine) are copied, with
the unfinished tail put in. Once one is big (_REUSE_MIN entries), the copies down to it are
kept for the next read, and if by then the caller has dropped that snapshot (CPython's
sys.getrefcount says only the parser holds it: a UI that renders and discards), each is
brought up to date in place instead of copied again: what the last read put in is taken
back, the entries completed since are added, the new tail is put in (_take_back). A read is
then O(depth + new entries), not O(size of the open containers). A snapshot the caller
still holds, or any container inside it, is never changed: the read copies, and so do the
next 1, 3, 7 ... 63 without keeping (a caller that holds one likely holds the next). The
kept copies cost the memory of one snapshot's open containers, until the document ends.

Rules: ``SnapshotReads`` is ``PartialJSON``'s base class: the methods that build a
snapshot (``_build_value``) and bring the kept one up to date (``_take_back``), and the
slots of the kept snapshot; ``PartialJSON.__init__`` sets every slot, these included.
The module's helpers put a child or the tail into a snapshot container and take it out again
(``_put``, ``_take_out``), or into the parser's own containers for ``live=True``
(``_install``, ``_uninstall``); ``_joined`` reads the open string without copying it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from itertools import islice
from typing import Any, Final

from streamcall.partial.tokens import (
    _COLON,
    _DONE,
    _LITERAL,
    _NOTHING,
    _STRING,
    _VALUE,
    _classify,
)


def _no_refcount(obj: object) -> int:
    return -1  # never a count _take_back accepts


# Snapshot reuse (PartialJSON._take_back) asks sys.getrefcount whether anyone but the parser
# still holds the last snapshot's containers. PyPy has no such count, and a free-threaded
# build's is not trusted (split between threads, partly deferred): there every read copies.
_refcount: Callable[[object], int] = getattr(sys, "getrefcount", _no_refcount)


def _count_in_one_list() -> int:
    """``_refcount(spine[i])`` of an object that one list alone holds, asked as _take_back
    asks it: the list's reference and the argument's (the subscript's result, a new one)."""
    spine: list[Any] = [[]]
    return _refcount(spine[0])


_ALONE: Final = _count_in_one_list()  # 2 on CPython 3.11 to 3.14
# An open container is kept between reads from this many entries on: below it, copying it
# again costs less than keeping it (the crossing, measured, is at 128 to 256 entries by
# shape: docs/performance.md). Without exact counts, never.
_REUSE_MIN: Final = (
    256 if _ALONE == 2 and getattr(sys, "_is_gil_enabled", lambda: True)() else sys.maxsize
)
_SKIP_MAX: Final = 63  # reads copied without keeping after the caller held a snapshot


class SnapshotReads:
    """The snapshot half of ``PartialJSON`` (its base class; see the module)."""

    # The kept snapshot (see _take_back); PartialJSON.__init__ sets these with the rest.
    __slots__ = ("_misses", "_skip", "_spine", "_spine_puts", "_spine_src")

    # PartialJSON's state, as these methods read it (declared for the type checker).
    _state: int
    _stack: list[Any]
    _keys: list[Any]
    _result: Any
    _parts: list[str]
    _is_key: bool
    _lit: list[str]
    _lit_state: int
    _live: bool
    _installed: list[tuple[Any, Any, Any]]
    _spine: list[Any]
    _spine_src: list[Any]
    _spine_puts: list[tuple[Any, Any] | None]
    _grown: bool
    _skip: int
    _misses: int
    _overwritten: list[dict[Any, Any]]

    def _build_value(self) -> Any:
        state = self._state
        spine = self._spine
        if state == _DONE:
            if spine:
                spine.clear()
                self._spine_puts.clear()
                self._spine_src.clear()
            return self._result
        stack = self._stack
        keys = self._keys
        # First, so that the last snapshot no longer holds the open string: _joined extends
        # it in place only when nothing else does.
        reused = self._take_back() if spine else 0
        has_tail = False  # an entry to add to the innermost container
        tail_key: Any = keys[-1] if keys else None
        tail: Any = None
        if state == _STRING:
            text = _joined(self._parts)
            has_tail = True
            if self._is_key:
                # R2: a cut key gets a null value, unless it equals a key already there: a
                # prefix of a longer key must not overwrite a complete entry.
                tail_key = text
                has_tail = text not in stack[-1]
            else:
                tail = text  # R1
        elif state == _LITERAL:
            lit = self._lit
            run = "".join(lit)
            if len(lit) > 1:
                lit[:] = [run]
            kind, number, _ = _classify(run)
            if kind == _NOTHING:
                state = self._lit_state
            else:
                has_tail = True
                tail = number  # None for a half keyword (R3) or a bare '-'
        if not has_tail:
            if state == _VALUE:
                if not stack:
                    return {}  # R0
                has_tail = type(stack[-1]) is dict  # R5 after ':'; R4 after ',' in a list
            elif state == _COLON:
                has_tail = True  # R2: a key without a value
        if not stack:
            return tail if has_tail else {}
        if self._live:
            installed = self._installed
            for i in range(len(stack) - 1):
                installed.append(_install(stack[i], keys[i], stack[i + 1]))
            if has_tail:
                installed.append(_install(stack[-1], tail_key, tail))
            return stack[0]
        # Keep for the next read (_take_back) the open containers down to the deepest big
        # one, and copy the rest, innermost first; finished children are shared. Until some
        # container has grown big (feed notes it), no sizes are checked: all are copied.
        depth = len(stack)
        keep = 0
        if spine or self._grown:
            if self._skip:
                self._skip -= 1  # see _take_back
            else:
                keep = depth
                while keep and len(stack[keep - 1]) < _REUSE_MIN:
                    keep -= 1
        if keep < depth:
            node = stack[-1].copy()
            if has_tail:
                if type(node) is dict:
                    node[tail_key] = tail
                else:
                    node.append(tail)
            for i in range(depth - 2, keep - 1, -1):
                parent = stack[i].copy()
                if type(parent) is dict:
                    parent[keys[i]] = node
                else:
                    parent.append(node)
                node = parent
            if not keep:
                return node
            has_tail = True
            tail_key = keys[keep - 1]
            tail = node
        # The kept ones: those _take_back brought up to date, then copies of the rest; each
        # holds the next, the last the tail (or the copied containers below it).
        puts = self._spine_puts
        if reused > keep:  # small ones whose big child closed: copied above, not kept
            del spine[keep:]
            del puts[keep:]
            reused = keep
        if reused < keep:
            for i in range(reused, keep):
                spine.append(stack[i].copy())
                puts.append(None)
            self._spine_src[reused:] = stack[reused:keep]
        elif len(self._spine_src) > keep:
            del self._spine_src[keep:]
        if keep > 1:
            # A put still in place above the last kept level holds the same child at the same
            # key: nothing was completed there since, so the key did not move on.
            for i in range(keep - 1):
                if i >= reused - 1 or puts[i] is None:
                    puts[i] = _put(spine[i], puts[i], keys[i], spine[i + 1])
        put = puts[-1]
        last = spine[-1]
        if not has_tail:
            if put is not None:
                _take_out(last, put)
                puts[-1] = None
        elif put is None:
            puts[-1] = _put(last, None, tail_key, tail)
        elif type(last) is list:
            last[-1] = tail
        elif put[0] == tail_key:
            last[tail_key] = tail  # in place: the old value (put[1]) stays the same
        else:
            puts[-1] = _put(last, put, tail_key, tail)
        return spine[0]

    def _take_back(self) -> int:
        """Bring the last snapshot's open containers up to date where no one else can see
        them; return how many, from the top. ``_build_value`` copies the rest.

        The last snapshot's container at a level is private if (1) the parser's container at
        that level is still the one it was copied from (still open), (2) every level above is
        private (whoever holds a parent can reach the child), (3) no duplicate key overwrote
        an entry of it since (that changes an entry in place, not at the end), and (4) by
        ``sys.getrefcount``, nothing holds it but this parser: the caller dropped the
        snapshot (a UI that renders and discards; ``pj.value`` as a statement). The `_snap`
        cache holds the top too, but every ``feed`` empties it, and this runs only after one.

        A private container is the parser's as it was at the last read, plus what that read
        put in (the child or the tail). If entries were completed since, that put is taken
        back (a duplicate key's old value goes back in its old place, else the entry is
        deleted or popped) and they are added, in order: a list or an object only ever
        appends (but see (3)). Otherwise the put stays, for ``_put`` to overwrite in place.
        None is kept unless one of them is big (_REUSE_MIN): small ones copy faster.
        """
        spine = self._spine
        stack = self._stack
        src = self._spine_src
        puts = self._spine_puts
        overwritten = self._overwritten
        n = len(stack) if len(stack) < len(spine) else len(spine)
        last = len(spine) - 1
        # What sys.getrefcount counts for a container no one else holds: at the top,
        # `self._spine`'s reference and getrefcount's argument (_ALONE); below, the parent's
        # put too, which is still in place if the child is still the same open container (the
        # parent gains entries only once the child has closed). `snap` and `put` are the
        # parent's here: they do not hold the child.
        held = _ALONE
        big = False  # a kept one is big enough to be worth keeping
        i = 0
        while i < n:
            frame = stack[i]
            if frame is not src[i]:
                break
            if _refcount(spine[i]) != held:
                if not i:
                    # The caller holds the last snapshot (to diff frames, say), and will
                    # likely hold the next: copy without keeping for 1, 3, 7 ... 63 reads,
                    # then try again (keeping what cannot be reused costs a read more).
                    self._skip = self._misses = min(2 * self._misses + 1, _SKIP_MAX)
                break
            if overwritten and any(o is frame for o in overwritten):
                break
            size = len(frame)
            if size >= _REUSE_MIN:
                big = True
            snap = spine[i]
            put = puts[i]
            if type(snap) is list:
                added = size - len(snap) + (put is not None)
                if not added:
                    if put is not None and i == last:
                        snap[-1] = None  # let go of the tail: it may be the open string
                else:
                    if put is not None:
                        snap.pop()
                        puts[i] = put = None
                    snap += frame[len(snap) :]
            else:
                added = size - len(snap) + (put is not None and put[1] is _ABSENT)
                if not added:
                    if put is not None and i == last:
                        snap[put[0]] = None  # let go of the tail, as above
                else:
                    if put is not None:
                        _take_out(snap, put)
                        puts[i] = put = None
                    if added == 1:
                        k, v = next(reversed(frame.items()))
                        snap[k] = v
                    else:
                        items = list(islice(reversed(frame.items()), added))
                        items.reverse()
                        snap.update(items)
            held = _ALONE + 1
            i += 1
        if i:
            self._misses = 0
        if not big:
            i = 0  # all small now: _build_value copies them
        if i < len(spine):
            del spine[i:]
            del puts[i:]
        if overwritten:
            overwritten.clear()
        return i


_ABSENT: Final = object()


def _joined(parts: list[str]) -> str:
    """``"".join(parts)``, left in ``parts`` as its only piece, and cheap when read often.

    The open string is read after every chunk (``value``), so joining all of it each time
    would copy it each time: quadratic. Instead the first piece is extended by the rest
    with ``+=``, which CPython does in place when nothing else holds the first piece (the
    parser took its own references out first; a snapshot or a string the caller still
    holds makes it copy, as it must). On a 64 KB string read after every 7-character
    chunk: 82 against 11 ms (CPU time).
    """
    if len(parts) < 2:
        return parts[0] if parts else ""
    rest = parts[1] if len(parts) == 2 else "".join(parts[1:])
    text = parts[0]
    parts.clear()
    text += rest
    parts.append(text)
    return text


_APPENDED: Final = (None, _ABSENT)


def _put(container: Any, put: tuple[Any, Any] | None, key: Any, value: Any) -> tuple[Any, Any]:
    """Put ``value`` into a snapshot container, at ``key`` or at a list's end, where ``put``
    (what the last read put there) may still be in place; return how to take it out."""
    if type(container) is list:
        if put is None:
            container.append(value)
        else:
            container[-1] = value
        return _APPENDED
    if put is not None:
        if put[0] == key:
            container[key] = value  # in place: the old value (put[1]) stays the same
            return put
        _take_out(container, put)
    previous = container.get(key, _ABSENT)
    container[key] = value
    return key, previous


def _take_out(container: Any, put: tuple[Any, Any]) -> None:
    """Undo ``_put``: a list's last entry is popped, an object's entry deleted, or the
    value a duplicate key had is put back, in its old place."""
    if type(container) is list:
        container.pop()
    elif put[1] is _ABSENT:
        del container[put[0]]
    else:
        container[put[0]] = put[1]


def _install(container: Any, key: Any, value: Any) -> tuple[Any, Any, Any]:
    if type(container) is list:
        container.append(value)
        return container, None, _ABSENT
    previous = container.get(key, _ABSENT)
    container[key] = value
    return container, key, previous


def _uninstall(installed: list[tuple[Any, Any, Any]]) -> None:
    for container, key, previous in reversed(installed):
        if type(container) is list:
            container.pop()
        elif previous is _ABSENT:
            del container[key]
        else:
            container[key] = previous  # a duplicate key: its old value, in its old place
    installed.clear()
