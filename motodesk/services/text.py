"""Text normalisation shared by storage and search.

**Hostile text.**  Free text that is stored (names, addresses, attachment names…) passes
:func:`text_problem` / :func:`clean_text`: a bidirectional control (U+202E turns "gpj.exe" into
"exe.jpg" on screen), an invisible character (zero-width space, joiner, BOM, soft hyphen…), any
other control character or a lone surrogate (which PostgreSQL cannot even store) is refused with a
pt_BR message naming the code point. A search query instead is cleaned quietly
(:func:`search_text`): whatever was pasted, a search never fails on it.

**LIKE.**  Every ``LIKE`` built from what a user typed escapes ``%``, ``_`` and ``\\`` with
:func:`escape_like` (and passes ``escape="\\\\"``, see :data:`LIKE_ESCAPE`), so they match
themselves: :func:`contains_pattern` and :func:`prefix_pattern` build the patterns.
"""

from __future__ import annotations

import re
import unicodedata

from motodesk.rules.text import fold as rules_fold

_SPACES = re.compile(r"\s+")

#: Bidirectional controls: embeddings, overrides, isolates and marks.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: Characters that show nothing but change what is stored (besides every other format character, Cf).
INVISIBLE = frozenset("\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200d\u2028\u2029"
                      "\u2060\u2061\u2062\u2063\u2064\u3164\ufeff\uffa0")
LIKE_ESCAPE = "\\"


def fold(text: str) -> str:
    """The rules' accent-free lower case, with single spaces: 'João  D'Ávila' -> "joao d'avila"."""
    return _SPACES.sub(" ", rules_fold(text)).strip()


def clean_name(text: str) -> str:
    """A person's name as typed, with outer and repeated spaces removed (accents, apostrophes kept)."""
    return _SPACES.sub(" ", unicodedata.normalize("NFC", text or "")).strip()


def digits(text: str | None) -> str:
    return "".join(ch for ch in (text or "") if ch.isdigit())


def _hostile(ch: str, multiline: bool) -> str | None:
    code = ord(ch)
    if 0xD800 <= code <= 0xDFFF:
        return "um caractere inválido (metade de um par UTF-16)"
    if ch in BIDI_CONTROLS:
        return "um controle de direção do texto"
    if ch in INVISIBLE or unicodedata.category(ch) == "Cf":
        return "um caractere invisível"
    if unicodedata.category(ch) == "Cc" and not (multiline and ch in "\n\t\r"):
        return "um caractere de controle"
    return None


def text_problem(text: str, *, multiline: bool = False) -> str | None:
    """Why ``text`` cannot be stored (pt_BR), or None: see the module's "hostile text"."""
    for ch in text:
        kind = _hostile(ch, multiline)
        if kind:
            return (f"O texto contém {kind} (U+{ord(ch):04X}), que não aparece na tela ou altera a ordem das "
                    "letras: apague-o e digite o texto de novo.")
    return None


def clean_text(text: str | None, *, field: str, label: str, max_length: int | None = None,
               multiline: bool = False) -> str:
    """Free text ready to store: NFC, single spaces (unless ``multiline``), hostile characters refused.

    Raises InvalidInputError naming ``label`` (and ``field`` in its fields).
    """
    from motodesk.services.errors import InvalidInputError

    value = unicodedata.normalize("NFC", text or "") if not _has_surrogate(text or "") else (text or "")
    value = value.strip() if multiline else _SPACES.sub(" ", value).strip()
    problem = text_problem(value, multiline=multiline)
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
