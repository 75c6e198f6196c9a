"""The judged step: the one door through which legal state is written (issue #24).

::

    verdicts = check_transition("extend", permit.state, user.role, tctx)   # the rules, in this transaction
    with judged(s, verdicts, Permit.extended, Permit.term_end):
        permit.extended = True
        permit.term_end = new_end

:func:`judged` refuses to open unless the verdicts it is given accept the act (none blocking) and the
session is inside a transaction; then, until the block ends, the flush hook of
:mod:`motodesk.models.guarded` lets the named columns change, and only those. Passing a model class
(``Permit``) allows creating a row of it and writing any of its guarded columns. Steps nest: an
inner step adds its columns to the outer one's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy.orm import InstrumentedAttribute, Session

from motodesk.models.guarded import GUARDED, INSERT, JUDGED_KEY
from motodesk.rules.common import Status, Verdict
from motodesk.services.errors import RuleViolationError

_TABLES = {g.model: g for g in GUARDED}


def _keys(allows: Sequence[Any]) -> set[str]:
    keys: set[str] = set()
    for allowed in allows:
        if isinstance(allowed, type):
            guard = _TABLES.get(allowed)
            if guard is None:
                raise TypeError(f"{allowed.__name__} has no guarded columns")
            keys |= set(guard.keys()) | {f"{guard.table}.{INSERT}"}
            continue
        if not isinstance(allowed, InstrumentedAttribute):
            raise TypeError(f"judged() allows model columns, not {allowed!r}")
        guard = _TABLES.get(allowed.class_)  # type: ignore[arg-type]
        if guard is None or allowed.key not in guard.columns:
            raise TypeError(f"{allowed.class_.__name__}.{allowed.key} is not a guarded column")
        keys.add(f"{guard.table}.{allowed.key}")
    return keys


@contextmanager
def judged(session: Session, verdicts: Sequence[Verdict], *allows: Any, intro: str | None = None) -> Iterator[None]:
    """Open a judged step for the columns ``allows``, if ``verdicts`` accept the act.

    ``verdicts`` are what the rules returned for this act in this transaction: an empty list, or verdicts
    that are all met. A blocking one raises :class:`RuleViolationError` with its article, and nothing
    opens. A flush inside the block checks the guard while the step is open; the block flushes on exit
    so its writes are judged with it.
    """
    blocking = [v for v in verdicts if v.status is not Status.MET]
    if blocking:
        raise RuleViolationError(blocking, intro)
    if not session.in_transaction():
        raise RuntimeError("a judged step runs inside the transaction that judged it")
    keys = _keys(allows)
    steps: list[set[str]] = session.info.setdefault(JUDGED_KEY, [])
    steps.append(keys)
    try:
        yield
        session.flush()
    finally:
        steps.remove(keys)

