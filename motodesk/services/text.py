"""Text normalisation shared by storage and search.

**Hostile text.**  Free text that is stored (names, addresses, attachment names…) passes
:func:`text_problem` (from :mod:`motodesk.rules.text`) / :func:`clean_text`: a bidirectional control
(U+202E turns "gpj.exe" into "exe.jpg" on screen), an invisible character (zero-width space, joiner, BOM, soft hyphen…), any
other control character or a lone surrogate (which PostgreSQL cannot even store) is refused with a
pt_BR message naming the code point. A person's name passes one cleaner on every path (typed, the
register import, the tender import): :func:`clean_name`, then :func:`name_problem`, which also refuses
variation selectors (U+FE0F) and combining marks that stand alone or follow a Latin, Greek or Cyrillic
letter after NFC (see :func:`motodesk.rules.text.mark_problem`). A search query instead is cleaned
quietly (:func:`search_text`): whatever was pasted, a search never fails on it.

**LIKE.**  Every ``LIKE`` built from what a user typed escapes ``%``, ``_`` and ``\\`` with
:func:`escape_like` (and passes ``escape="\\\\"``, see :data:`LIKE_ESCAPE`), so they match
themselves: :func:`contains_pattern` and :func:`prefix_pattern` build the patterns.
"""

from __future__ import annotations

import re
import unicodedata

from motodesk.rules.text import BIDI_CONTROLS, INVISIBLE, clean_name, mark_problem, name_problem, text_problem
from motodesk.rules.text import _hostile as _hostile
from motodesk.rules.text import fold as rules_fold
from motodesk.services.errors import InvalidInputError

__all__ = [
    "BIDI_CONTROLS",
    "INVISIBLE",
    "LIKE_ESCAPE",
    "clean_name",
    "clean_text",
    "contains_pattern",
    "digits",
    "escape_like",
    "fold",
    "mark_problem",
    "name_problem",
    "prefix_pattern",
    "search_text",
    "text_problem",
]

_SPACES = re.compile(r"\s+")

LIKE_ESCAPE = "\\"


def fold(text: str) -> str:
    """The rules' accent-free lower case, with single spaces: 'João  D'Ávila' -> "joao d'avila"."""
    return _SPACES.sub(" ", rules_fold(text)).strip()


def digits(text: str | None) -> str:
    return "".join(ch for ch in (text or "") if ch.isdigit())


def clean_text(text: str | None, *, field: str, label: str, max_length: int | None = None,
               multiline: bool = False, name: bool = False) -> str:
    """Free text ready to store: NFC, single spaces (unless ``multiline``), hostile characters refused.

    ``name``: a person's name, checked by :func:`name_problem` (marks no script needs refused too).

    Raises InvalidInputError naming ``label`` (and ``field`` in its fields).
    """
    value = unicodedata.normalize("NFC", text or "") if not _has_surrogate(text or "") else (text or "")
    value = value.strip() if multiline else _SPACES.sub(" ", value).strip()
    problem = name_problem(value) if name else text_problem(value, multiline=multiline)
    if problem:
        raise InvalidInputError(f"{label}: {problem}", {field: problem})
    if max_length is not None and len(value) > max_length:
        reason = f"Texto longo demais: no máximo {max_length} caracteres (recebidos {len(value)})."
        raise InvalidInputError(f"{label}: {reason}", {field: reason})
    return value


def _has_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)


def search_text(text: str | None) -> str:
    """A typed or pasted query, made harmless: hostile characters become spaces, never an error."""
    raw = text or ""
    cleaned = "".join(" " if _hostile(ch, False) else ch for ch in raw)
    return _SPACES.sub(" ", unicodedata.normalize("NFC", cleaned)).strip()


def escape_like(value: str) -> str:
    """``value`` as a literal inside a LIKE pattern (with ``escape=LIKE_ESCAPE``)."""
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def contains_pattern(value: str) -> str:
    """LIKE pattern: contains ``value`` literally (use with ``escape=LIKE_ESCAPE``)."""
    return f"%{escape_like(value)}%"


def prefix_pattern(value: str) -> str:
    """LIKE pattern: starts with ``value`` literally (use with ``escape=LIKE_ESCAPE``)."""
    return f"{escape_like(value)}%"
