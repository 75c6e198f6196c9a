"""Brazilian document numbers and vehicle identifiers: validate, normalise, format.

Check digits are computed by ``validate-docbr``; this module only normalises the
input (punctuation and spaces removed, letters upper-cased), checks the length
and the characters, and turns each failure into a pt_BR sentence for the clerk.

Known limits of check digits, which a supervisor may override with a reason at
the service layer:

* some real CNHs fail the check digit (LIBRARIES.md);
* validate-docbr computes the título de eleitor digits as in Resolução TSE nº
  23.659/2021, art. 36, without the old rule for São Paulo and Minas Gerais
  (remainder 0 → digit 1) that some older títulos from MG follow, and accepts
  only 12-digit títulos (some old SP/MG ones have 13);
* a check digit catches most but not all single-digit typos: the modulo-11
  schemes map two remainders to the same digit, so about one single-digit
  change in eleven at some positions still yields a valid number.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from validate_docbr import CNH, CNPJ, CPF, PIS, RENAVAM, TituloEleitoral


@dataclass(frozen=True)
class Validation:
    """Outcome of one validation: normalised ``value`` when ok, pt_BR ``message`` when not."""

    ok: bool
    value: str | None
    message: str | None


def _valid(value: str) -> Validation:
    return Validation(ok=True, value=value, message=None)


def _invalid(message: str) -> Validation:
    return Validation(ok=False, value=None, message=message)


_SEPARATORS = re.compile(r"[\s.\-/]")
_SPACES_AND_HYPHENS = re.compile(r"[\s\-]")


def _typed(
    name: str, separators: re.Pattern[str] = _SPACES_AND_HYPHENS
) -> Callable[[Callable[[str], Validation]], Callable[[str | None], Validation]]:
    """An identifier's validator judges it as typed without ``separators`` and upper-cased; an empty one
    is asked for (``"Informe a placa."``, ``name`` with its article)."""

    def judged(check: Callable[[str], Validation]) -> Callable[[str | None], Validation]:
        @functools.wraps(check)
        def validate(raw: str | None) -> Validation:
            if raw is None or not raw.strip():
                return _invalid(f"Informe {name}.")
            return check(separators.sub("", raw).upper())

        return validate

    return judged


def _digits_document(
    raw: str | None, *, name: str, lengths: tuple[int, ...], reject_repeated: bool = True
) -> Validation:
    """Common path of the all-digit documents: presence, characters, length, repeated digits.

    ``name`` is written with its article ("o CPF"); on success the value is the digits only.
    """
    if raw is None or not raw.strip():
        return _invalid(f"Informe {name}.")
    digits = _SEPARATORS.sub("", raw)
    if not (digits.isascii() and digits.isdigit()):
        return _invalid(f"{_cap(name)} deve conter apenas números.")
    if len(digits) not in lengths:
        expected = " ou ".join(str(n) for n in lengths)
        return _invalid(f"{_cap(name)} deve ter {expected} dígitos; foram informados {len(digits)}.")
    if reject_repeated and len(set(digits)) == 1:
        return _invalid(f"{_bare(name)} inválido: todos os dígitos são iguais.")
    return _valid(digits)


#: Results a validator remembers at most (then it forgets them all and starts again).
MEMO_SIZE = 65_536


def _once(fn: Callable[[str | None], Validation]) -> Callable[[str | None], Validation]:
    """A pure validator that checks each text once (issue 28: a register import checked every CPF three
    times — reading the cell, validating the person, judging Art. 5º, XII). A valid text's normalised
    value is remembered too, since the next layer passes that value again: every validator here is
    idempotent on its own value (``validate(validate(x).value) == validate(x)``, tested)."""
    memo: dict[str, Validation] = {}

    @functools.wraps(fn)
    def validate(raw: str | None) -> Validation:
        if not isinstance(raw, str):
            return fn(raw)
        found = memo.get(raw)
        if found is None:
            if len(memo) >= MEMO_SIZE:
                memo.clear()
            found = memo[raw] = fn(raw)
            if found.ok and found.value is not None and found.value != raw:
                memo.setdefault(found.value, found)
        return found

    return validate


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _bare(name: str) -> str:
    """``"o número da CNH"`` → ``"Número da CNH"``."""
    return _cap(name.split(" ", 1)[1])


def _checked(result: Validation, name: str, check_digits_ok: bool) -> Validation:
    if result.ok and not check_digits_ok:
        return _invalid(f"{_bare(name)} inválido: os dígitos verificadores não conferem.")
    return result


def _eleven_checked(raw: str | None, name: str, check_digits: CPF | CNH | PIS) -> Validation:
    """The documents of eleven digits whose last ones check the others (CPF, CNH, NIT/PIS)."""
    result = _digits_document(raw, name=name, lengths=(11,))
    return _checked(result, name, result.ok and check_digits.validate(result.value or ""))


@_once
def validate_cpf(raw: str | None) -> Validation:
    """CPF (Art. 5º, XII): 11 digits with two check digits; value is the 11 digits."""
    return _eleven_checked(raw, "o CPF", CPF())


@_once
def validate_cnh(raw: str | None) -> Validation:
    """CNH number, registro nacional (Art. 5º, II): 11 digits with two check digits."""
    return _eleven_checked(raw, "o número da CNH", CNH())


@_once
def validate_renavam(raw: str | None) -> Validation:
    """RENAVAM (Art. 5º, § 1º, I): 11 digits; legacy 9-digit numbers are left-padded with zeros."""
    result = _digits_document(raw, name="o RENAVAM", lengths=(9, 11), reject_repeated=False)
    if not result.ok or result.value is None:
        return result
    padded = result.value.zfill(11)
    if len(set(padded)) == 1:
        return _invalid("RENAVAM inválido: todos os dígitos são iguais.")
    return _checked(_valid(padded), "o RENAVAM", RENAVAM().validate(padded))


@_once
def validate_nit(raw: str | None) -> Validation:
    """NIT/PIS/PASEP (Art. 5º, VIII, inscrição no INSS): 11 digits with one check digit."""
    return _eleven_checked(raw, "o NIT/PIS", PIS())


@_once
def validate_titulo(raw: str | None) -> Validation:
    """Título de eleitor (Art. 5º, VI): 12 digits — sequence, UF code 01–28, two check digits."""
    result = _digits_document(raw, name="o título de eleitor", lengths=(12,))
    if not result.ok or result.value is None:
        return result
    if not 1 <= int(result.value[8:10]) <= 28:
        return _invalid("Título de eleitor inválido: o código de UF (9º e 10º dígitos) deve ser de 01 a 28.")
    return _checked(result, "o título de eleitor", TituloEleitoral().validate(result.value))


@_once
@_typed("o CNPJ", _SEPARATORS)
def validate_cnpj(value: str) -> Validation:
    """CNPJ (cooperatives, associations, operators of Art. 9): 14 characters, numeric or alphanumeric.

    The alphanumeric CNPJ (IN RFB nº 2.229/2024) has letters or digits in the
    first 12 positions and two check digits; the value is upper-cased.
    """
    if not re.fullmatch(r"[0-9A-Z]*", value):
        return _invalid("O CNPJ deve conter apenas letras e números.")
    if len(value) != 14:
        return _invalid(f"O CNPJ deve ter 14 caracteres; foram informados {len(value)}.")
    if not value[12:].isdigit():
        return _invalid("CNPJ inválido: os dois últimos caracteres devem ser dígitos.")
    if len(set(value)) == 1:
        return _invalid("CNPJ inválido: todos os caracteres são iguais.")
    return _checked(_valid(value), "o CNPJ", CNPJ().validate(value))


_OLD_PLATE = re.compile(r"[A-Z]{3}[0-9]{4}")
_MERCOSUL_PLATE = re.compile(r"[A-Z]{3}[0-9][A-Z][0-9]{2}")


@_once
@_typed("a placa")
def validate_plate(value: str) -> Validation:
    """Plate: old format ``ABC-1234`` or Mercosul ``ABC1D23``; value upper case without hyphen."""
    if _OLD_PLATE.fullmatch(value) or _MERCOSUL_PLATE.fullmatch(value):
        return _valid(value)
    return _invalid("Placa inválida: use o formato ABC-1234 ou o formato Mercosul ABC1D23.")


_VIN = re.compile(r"[A-HJ-NPR-Z0-9]{17}")


@_once
@_typed("o número do chassi")
def validate_vin(value: str) -> Validation:
    """Chassis number (VIN): 17 letters and digits, never I, O or Q (ABNT NBR 6066 / ISO 3779)."""
    if len(value) != 17:
        return _invalid(f"O chassi deve ter 17 caracteres; foram informados {len(value)}.")
    if forbidden := sorted(set(value) & set("IOQ")):
        return _invalid(
            f"Chassi inválido: as letras I, O e Q não são usadas (encontrado: {', '.join(forbidden)})."
        )
    if not _VIN.fullmatch(value):
        return _invalid("Chassi inválido: use apenas letras e números.")
    return _valid(value)


def format_cpf(digits: str) -> str:
    """``"12345678909"`` → ``"123.456.789-09"``; anything not 11 digits is returned unchanged."""
    clean = _SEPARATORS.sub("", digits)
    if len(clean) != 11 or not clean.isdigit():
        return digits
    return f"{clean[:3]}.{clean[3:6]}.{clean[6:9]}-{clean[9:]}"


def mask_cpf(digits: str) -> str:
    """``"12345678909"`` → ``"***.456.789-**"``: the public masking of a CPF (LGPD practice)."""
    clean = _SEPARATORS.sub("", digits)
    if len(clean) != 11 or not clean.isdigit():
        return "***.***.***-**"
    return f"***.{clean[3:6]}.{clean[6:9]}-**"


def format_cnpj(value: str) -> str:
    """``"11222333000181"`` → ``"11.222.333/0001-81"``; anything not 14 characters is returned unchanged."""
    clean = _SEPARATORS.sub("", value).upper()
    if len(clean) != 14 or not clean.isalnum():
        return value
    return f"{clean[:2]}.{clean[2:5]}.{clean[5:8]}/{clean[8:12]}-{clean[12:]}"


def format_plate(value: str) -> str:
    """Old plates shown as ``ABC-1234``, Mercosul as ``ABC1D23``; anything else returned unchanged."""
    result = validate_plate(value)
    if not result.ok or result.value is None:
        return value
    if _OLD_PLATE.fullmatch(result.value):
        return f"{result.value[:3]}-{result.value[3:]}"
    return result.value


def mercosul_plate(value: str) -> str | None:
    """The Mercosul form of a plate: ``ABC-1234`` → ``ABC1C34`` (5th digit 0–9 becomes A–J).

    A vehicle converted to the Mercosul plate keeps its registration; comparing
    both forms finds the same vehicle under either plate.  None for an invalid plate.
    """
    result = validate_plate(value)
    if not result.ok or result.value is None:
        return None
    plate = result.value
    if _OLD_PLATE.fullmatch(plate):
        return plate[:4] + "ABCDEFGHIJ"[int(plate[4])] + plate[5:]
    return plate
