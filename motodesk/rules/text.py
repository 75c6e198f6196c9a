"""Portuguese text for verdicts: dates, durations, numbers, accent-free comparison.

Verdict messages are read by clerks and by the holders themselves, so dates are
written ``dd/mm/aaaa``, counts in words ("1 ano", "2 anos") and numbers with the
Brazilian thousands separator ("89.826").
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date
from decimal import ROUND_HALF_UP, Decimal


def format_date(value: date) -> str:
    """``date(2026, 3, 1)`` → ``"01/03/2026"``."""
    return value.strftime("%d/%m/%Y")


_DMY = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})", re.ASCII)
_ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})", re.ASCII)


def parse_day(text: str, *, iso: bool = False) -> date:
    """``" 29/02/2024 "`` → ``date(2024, 2, 29)``: the one parser of a typed ``dd/mm/aaaa`` date
    (one-digit day or month accepted, the year always with four digits); with ``iso`` also
    ``aaaa-mm-dd``. ValueError for anything else, and for a day the calendar lacks (31/02)."""
    text = text.strip()
    m = _DMY.fullmatch(text)
    if m is not None:
        day, month, year = (int(g) for g in m.groups())
    elif iso and (m := _ISO.fullmatch(text)) is not None:
        year, month, day = (int(g) for g in m.groups())
    else:
        raise ValueError(f"not a dd/mm/aaaa date: {text!r}")
    return date(year, month, day)


def format_int(value: int) -> str:
    """``89826`` → ``"89.826"``."""
    return f"{value:,}".replace(",", ".")


def format_decimal(value: Decimal, places: int = 2) -> str:
    """``Decimal("1234.5")`` → ``"1.234,50"`` (half-up rounding)."""
    quantum = Decimal(1).scaleb(-places)
    text = f"{value.quantize(quantum, rounding=ROUND_HALF_UP):,.{places}f}"
    return text.replace(",", "\x00").replace(".", ",").replace("\x00", ".")


def format_brl(value: Decimal) -> str:
    """``Decimal("500")`` → ``"R$ 500,00"``."""
    return f"R$ {format_decimal(value)}"


def format_ufm(value: Decimal) -> str:
    """``Decimal("5")`` → ``"5 UFM"``; ``Decimal("1.5")`` → ``"1,5 UFM"``."""
    text = format(value.normalize(), "f").replace(".", ",")
    return f"{text} UFM"


def plural(count: int, singular: str, plural_form: str) -> str:
    """``plural(1, "ano", "anos")`` → ``"1 ano"``; ``plural(2, ...)`` → ``"2 anos"``."""
    return f"{count} {singular if count == 1 else plural_form}"


def join_words(parts: list[str]) -> str:
    """``["a", "b", "c"]`` → ``"a, b e c"``."""
    if not parts:
        return ""
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " e " + parts[-1]


def fold(text: str) -> str:
    """Lower case without accents, for comparisons: ``"Patrocínio"`` → ``"patrocinio"``."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


# --- hostile text: one check for every stored text, one cleaner for every name ---------------------
#
# Pure functions (no database), so the register import in motodesk.exports and every service that
# stores text use the very same rules; motodesk.services.text re-exports them.

#: Bidirectional controls: embeddings, overrides, isolates and marks.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: Characters that show nothing but change what is stored (besides every other format character, Cf).
INVISIBLE = frozenset("\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200d\u2028\u2029"
                      "\u2060\u2061\u2062\u2063\u2064\u3164\ufeff\uffa0")
#: Scripts whose letters with accents are single characters once composed (NFC): a combining mark
#: left after one of their letters is one no word of the script needs (stacked marks, "Zalgo").
PRECOMPOSED_SCRIPTS = ("LATIN", "GREEK", "CYRILLIC")
_SPECIAL = BIDI_CONTROLS | INVISIBLE


def is_variation_selector(ch: str) -> bool:
    """U+FE00–FE0F (U+FE0F: emoji presentation), U+E0100–E01EF, the Mongolian U+180B–180D and U+180F."""
    code = ord(ch)
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF or 0x180B <= code <= 0x180D or code == 0x180F


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
    """Why ``text`` cannot be stored (pt_BR), or None: bidi controls, invisible and control characters,
    lone surrogates (PostgreSQL cannot even store them)."""
    if text.isprintable() and _SPECIAL.isdisjoint(text):
        return None  # no control, format or surrogate character (not printable), none of the listed ones
    for ch in text:
        kind = _hostile(ch, multiline)
        if kind:
            return (f"O texto contém {kind} (U+{ord(ch):04X}), que não aparece na tela ou altera a ordem das "
                    "letras: apague-o e digite o texto de novo.")
    return None


def _script(ch: str) -> str:
    return unicodedata.name(ch, "").split(" ", 1)[0]


def mark_problem(name: str) -> str | None:
    """Why a name (already NFC) carries a mark no script needs (pt_BR), or None.

    Refused, never stripped (a name is stored as the person wrote it, or not at all): a variation
    selector anywhere (U+FE0F turns "🏍" into an emoji, and nothing else); a combining mark
    (category Mn) with no letter before it (a name made only of marks, a mark after a space, a digit
    or a sign); a combining mark after a Latin, Greek or Cyrillic letter, which NFC would have
    composed if any word needed it ("João", "Conceição" typed decomposed are composed and pass).
    A mark after a letter of a script that needs them (Arabic, Hebrew, Devanagari, Thai...) passes.
    """
    if max(name, default="") < "\u0300":
        return None  # every combining mark (U+0300 on) and variation selector lies above ASCII and Latin-1/Ext-A
    base: str | None = None
    for ch in name:
        if is_variation_selector(ch):
            return (f"O nome contém um seletor de variação (U+{ord(ch):04X}), um sinal invisível que só muda o "
                    "desenho do caractere anterior: apague-o e digite o nome de novo.")
        if unicodedata.category(ch) != "Mn":
            base = ch
            continue
        if base is None or not unicodedata.category(base).startswith("L"):
            return (f"O nome contém um acento ou sinal solto (U+{ord(ch):04X}), sem uma letra antes dele: "
                    "apague-o e digite o nome de novo.")
        if _script(base) in PRECOMPOSED_SCRIPTS:
            return (f"O nome contém um sinal sobreposto à letra “{base}” (U+{ord(ch):04X}) que nenhuma palavra "
                    "usa: apague-o e digite o nome de novo.")
    return None


def clean_name(text: str | None) -> str:
    """A person's name as typed, composed (NFC), outer and repeated spaces removed (accents kept)."""
    return " ".join(unicodedata.normalize("NFC", text or "").split())


#: Names whose verdict :func:`name_problem` remembers at most (then it forgets them all and starts again).
_NAME_MEMO_SIZE = 65_536
_name_memo: dict[str, str | None] = {}


def name_problem(name: str) -> str | None:
    """The one check of a person's name on every path (typed, register import, tender import):
    :func:`text_problem`, then :func:`mark_problem`. ``name`` is :func:`clean_name`'s result.

    A pure function of the text, so each text is checked once (issue 28: the register import checked
    every row's name twice, reading the cell and validating the person): a bounded memo, as the
    validators' (:func:`motodesk.rules.validators._once`)."""
    try:
        return _name_memo[name]
    except KeyError:
        pass
    if len(_name_memo) >= _NAME_MEMO_SIZE:
        _name_memo.clear()
    found = _name_memo[name] = text_problem(name) or mark_problem(name)
    return found


def application_number(application_id: int, opened_on: date) -> str:
    """The number printed on letters: sequence and year, ``"00042/2026"``."""
    return f"{application_id:05d}/{opened_on.year}"
