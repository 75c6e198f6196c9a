"""Text normalisation shared by storage and search."""

from __future__ import annotations

import re
import unicodedata

_SPACES = re.compile(r"\s+")


def fold(text: str) -> str:
    """Lower case without accents, single spaces: 'João  D'Ávila' -> "joao d'avila"."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _SPACES.sub(" ", stripped).strip().casefold()


def clean_name(text: str) -> str:
    """A person's name as typed, with outer and repeated spaces removed (accents, apostrophes kept)."""
    return _SPACES.sub(" ", unicodedata.normalize("NFC", text or "")).strip()


def digits(text: str | None) -> str:
    return "".join(ch for ch in (text or "") if ch.isdigit())
