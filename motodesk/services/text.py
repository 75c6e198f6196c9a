"""Text normalisation shared by storage and search."""

from __future__ import annotations

import re
import unicodedata

from motodesk.rules.text import fold as rules_fold

_SPACES = re.compile(r"\s+")


def fold(text: str) -> str:
    """The rules' accent-free lower case, with single spaces: 'João  D'Ávila' -> "joao d'avila"."""
    return _SPACES.sub(" ", rules_fold(text)).strip()


def clean_name(text: str) -> str:
    """A person's name as typed, with outer and repeated spaces removed (accents, apostrophes kept)."""
    return _SPACES.sub(" ", unicodedata.normalize("NFC", text or "")).strip()


def digits(text: str | None) -> str:
    return "".join(ch for ch in (text or "") if ch.isdigit())
