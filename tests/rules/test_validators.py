"""Document numbers and identifiers.

Valid numbers are built in the test from Hypothesis-drawn digits and the
published check-digit algorithms written out below (an independent reference
for validate-docbr).  On single-digit changes: a change of a check digit is
always caught; a change elsewhere is caught unless the modulo-11 scheme itself
maps two remainders to the same digit — then the number *is* valid by the
scheme, and :func:`test_single_digit_typos_are_mostly_caught` measures how
rare that is.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from motodesk.rules.validators import (
    Validation,
    format_cnpj,
    format_cpf,
    format_plate,
    mask_cpf,
    mercosul_plate,
    validate_cnh,
    validate_cnpj,
    validate_cpf,
    validate_nit,
    validate_plate,
    validate_renavam,
    validate_titulo,
    validate_vin,
)

# --- Reference check-digit algorithms ------------------------------------------------------------


def _mod11_times10(total: int) -> int:
    remainder = total * 10 % 11
    return 0 if remainder == 10 else remainder


def _mod11_complement(total: int) -> int:
    remainder = total % 11
    return 0 if remainder < 2 else 11 - remainder


def cpf_digits(base: str) -> str:
    d = [int(c) for c in base]
    first = _mod11_times10(sum(x * w for x, w in zip(d, range(10, 1, -1), strict=True)))
    second = _mod11_times10(sum(x * w for x, w in zip([*d, first], range(11, 1, -1), strict=True)))
    return f"{first}{second}"


def cnh_digits(base: str) -> str:
    d = [int(c) for c in base]
    first = sum(x * w for x, w in zip(d, range(9, 0, -1), strict=True)) % 11
    discount = 0
    if first >= 10:
        first, discount = 0, 2
    second = sum(x * w for x, w in zip(d, range(1, 10), strict=True)) % 11 - discount
    if second < 0:
        second += 11
    if second >= 10:
        second = 0
    return f"{first}{second}"


_RENAVAM_PIS_WEIGHTS = (3, 2, 9, 8, 7, 6, 5, 4, 3, 2)


def renavam_digits(base: str) -> str:
    return str(_mod11_times10(sum(int(c) * w for c, w in zip(base, _RENAVAM_PIS_WEIGHTS, strict=True))))


def nit_digits(base: str) -> str:
    return str(_mod11_complement(sum(int(c) * w for c, w in zip(base, _RENAVAM_PIS_WEIGHTS, strict=True))))


def titulo_digits(base: str) -> str:
    d = [int(c) for c in base]
    first = sum(x * w for x, w in zip(d[:8], range(2, 10), strict=True)) % 11
    first = 0 if first == 10 else first
    second = (d[8] * 7 + d[9] * 8 + first * 9) % 11
    second = 0 if second == 10 else second
    return f"{first}{second}"


def cnpj_digits(base: str) -> str:
    values = [ord(c) - 48 for c in base]
    weights1 = (5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)
    first = _mod11_complement(sum(v * w for v, w in zip(values, weights1, strict=True)))
    weights2 = (6, *weights1)
    second = _mod11_complement(sum(v * w for v, w in zip([*values, first], weights2, strict=True)))
    return f"{first}{second}"


@dataclass(frozen=True)
class Scheme:
    name: str
    validate: Callable[[str | None], Validation]
    check_digits: Callable[[str], str]
    base: st.SearchStrategy[str]
    n_check: int

    def complete(self, base: str) -> str:
        return base + self.check_digits(base)

    def reference_valid(self, number: str) -> bool:
        base, digits = number[: -self.n_check], number[-self.n_check :]
        if len(set(number)) == 1:
            return False
        if self.name == "titulo" and not 1 <= int(number[8:10]) <= 28:
            return False
        return self.check_digits(base) == digits


def _digits(n: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=string.digits, min_size=n, max_size=n)


_uf_code = st.integers(1, 28).map(lambda n: f"{n:02d}")

SCHEMES = [
    Scheme("cpf", validate_cpf, cpf_digits, _digits(9), 2),
    Scheme("cnh", validate_cnh, cnh_digits, _digits(9), 2),
    Scheme("renavam", validate_renavam, renavam_digits, _digits(10), 1),
    Scheme("nit", validate_nit, nit_digits, _digits(10), 1),
    Scheme("titulo", validate_titulo, titulo_digits, st.tuples(_digits(8), _uf_code).map("".join), 2),
    Scheme("cnpj", validate_cnpj, cnpj_digits, _digits(12), 2),
]
_by_name = {s.name: s for s in SCHEMES}
scheme_ids = [s.name for s in SCHEMES]


def _not_all_same(number: str) -> bool:
    return len(set(number)) > 1


# --- Valid numbers pass, with or without punctuation ------------------------------------------------


@pytest.mark.parametrize("name", scheme_ids)
@given(data=st.data())
def test_every_valid_number_passes(name: str, data: st.DataObject) -> None:
    scheme = _by_name[name]
    number = scheme.complete(data.draw(scheme.base.filter(lambda b: len(set(b)) > 1), label="base"))
    result = scheme.validate(number)
    assert result == Validation(ok=True, value=number, message=None)
    spaced = " ".join(number[i : i + 3] for i in range(0, len(number), 3))
    assert scheme.validate(f"  {spaced} ").value == number


@given(base=st.text(alphabet=string.ascii_uppercase + string.digits, min_size=12, max_size=12))
def test_alphanumeric_cnpj_passes(base: str) -> None:
    number = base + cnpj_digits(base)
    if len(set(number)) > 1:
        assert validate_cnpj(number.lower()).value == number


@pytest.mark.parametrize("name", scheme_ids)
@given(data=st.data())
def test_changing_a_check_digit_always_fails(name: str, data: st.DataObject) -> None:
    scheme = _by_name[name]
    number = scheme.complete(data.draw(scheme.base.filter(lambda b: len(set(b)) > 1), label="base"))
    position = data.draw(st.integers(len(number) - scheme.n_check, len(number) - 1), label="position")
    digit = data.draw(st.sampled_from([d for d in string.digits if d != number[position]]), label="digit")
    changed = number[:position] + digit + number[position + 1 :]
    assert not scheme.validate(changed).ok


@pytest.mark.parametrize("name", scheme_ids)
@given(data=st.data())
def test_changing_any_digit_fails_unless_the_scheme_cannot_see_it(name: str, data: st.DataObject) -> None:
    scheme = _by_name[name]
    number = scheme.complete(data.draw(scheme.base.filter(lambda b: len(set(b)) > 1), label="base"))
    position = data.draw(st.integers(0, len(number) - 1), label="position")
    digit = data.draw(st.sampled_from([d for d in string.digits if d != number[position]]), label="digit")
    changed = number[:position] + digit + number[position + 1 :]
    assert scheme.validate(changed).ok is scheme.reference_valid(changed)


@pytest.mark.parametrize("name", scheme_ids)
def test_single_digit_typos_are_mostly_caught(name: str) -> None:
    """Exhaustively, over many numbers: at most ~1 in 10 single-digit changes slips through."""
    scheme = _by_name[name]
    caught = total = 0
    for seed in range(60):
        raw = f"{(seed * 7919 + 104729) ** 3:0>14}"
        length = {"cpf": 9, "cnh": 9, "renavam": 10, "nit": 10, "titulo": 10, "cnpj": 12}[name]
        base = raw[-length:]
        if name == "titulo":
            base = base[:8] + f"{seed % 28 + 1:02d}"
        number = scheme.complete(base)
        if not _not_all_same(number):
            continue
        for position in range(len(number)):
            for digit in string.digits:
                if digit == number[position]:
                    continue
                total += 1
                caught += not scheme.validate(number[:position] + digit + number[position + 1 :]).ok
    assert caught / total > 0.9


def test_a_cpf_typo_the_check_digits_cannot_see() -> None:
    """The limit is the scheme's: these two CPFs differ in the first digit and both are valid.

    The first digit weighs 10 in the first check digit and 11 (≡ 0 mod 11) in the
    second; remainders 0 and 10 both give check digit 0.
    """
    assert validate_cpf("000.100.008-01").ok
    assert validate_cpf("100.100.008-01").ok
    assert cpf_digits("000100008") == cpf_digits("100100008") == "01"


# --- Messages for bad input -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("validate", "raw", "message"),
    [
        (validate_cpf, None, "Informe o CPF."),
        (validate_cpf, "   ", "Informe o CPF."),
        (validate_cpf, "529.982.247-2X", "O CPF deve conter apenas números."),
        (validate_cpf, "5299822472", "O CPF deve ter 11 dígitos; foram informados 10."),
        (validate_cpf, "529.982.247-26", "CPF inválido: os dígitos verificadores não conferem."),
        (validate_cpf, "111.111.111-11", "CPF inválido: todos os dígitos são iguais."),
        (validate_cnh, "", "Informe o número da CNH."),
        (validate_cnh, "34046871255", "Número da CNH inválido: os dígitos verificadores não conferem."),
        (validate_renavam, None, "Informe o RENAVAM."),
        (validate_renavam, "1234567890", "O RENAVAM deve ter 9 ou 11 dígitos; foram informados 10."),
        (validate_nit, "", "Informe o NIT/PIS."),
        (validate_titulo, "", "Informe o título de eleitor."),
        (
            validate_titulo,
            "428703012913",
            "Título de eleitor inválido: o código de UF (9º e 10º dígitos) deve ser de 01 a 28.",
        ),
        (validate_cnpj, "", "Informe o CNPJ."),
        (validate_cnpj, "11.222.333/0001-8", "O CNPJ deve ter 14 caracteres; foram informados 13."),
        (validate_cnpj, "11.222.333/0001-AB", "CNPJ inválido: os dois últimos caracteres devem ser dígitos."),
        (validate_cnpj, "11.222.333/0001-82", "CNPJ inválido: os dígitos verificadores não conferem."),
        (validate_plate, None, "Informe a placa."),
        (validate_plate, "AB-12345", "Placa inválida: use o formato ABC-1234 ou o formato Mercosul ABC1D23."),
        (validate_vin, "", "Informe o número do chassi."),
        (validate_vin, "9C2KC2200LR01234", "O chassi deve ter 17 caracteres; foram informados 16."),
        (
            validate_vin,
            "9C2KC2200LR0123O5",
            "Chassi inválido: as letras I, O e Q não são usadas (encontrado: O).",
        ),
        (validate_vin, "9C2KC2200LR01234*", "Chassi inválido: use apenas letras e números."),
    ],
)
def test_bad_input_says_why(
    validate: Callable[[str | None], Validation], raw: str | None, message: str
) -> None:
    assert validate(raw) == Validation(ok=False, value=None, message=message)


def test_legacy_nine_digit_renavam_is_left_padded() -> None:
    assert validate_renavam("639884962").value == "00639884962"
    assert validate_renavam("00639884962").value == "00639884962"


@pytest.mark.parametrize(
    ("raw", "value", "shown"),
    [
        ("abc-1234", "ABC1234", "ABC-1234"),
        ("ABC 1234", "ABC1234", "ABC-1234"),
        ("abc1d23", "ABC1D23", "ABC1D23"),
        ("HMG-4B83", "HMG4B83", "HMG4B83"),
    ],
)
def test_plates_old_and_mercosul(raw: str, value: str, shown: str) -> None:
    assert validate_plate(raw).value == value
    assert format_plate(raw) == shown


@pytest.mark.parametrize("raw", ["ABCD123", "AB1234", "ABC12345", "1BC1234", "ABC1DD3", "ÃBC1234"])
def test_plates_that_are_neither_format(raw: str) -> None:
    assert not validate_plate(raw).ok


def test_mercosul_equivalent_of_an_old_plate() -> None:
    assert mercosul_plate("ABC-1234") == "ABC1C34"
    assert mercosul_plate("ABC-1034") == "ABC1A34"
    assert mercosul_plate("ABC1C34") == "ABC1C34"
    assert mercosul_plate("nonsense") is None


def test_vin_is_upper_cased() -> None:
    assert validate_vin("9c2kc2200lr012345").value == "9C2KC2200LR012345"


def test_formatting() -> None:
    assert format_cpf("52998224725") == "529.982.247-25"
    assert format_cpf("529.982.247-25") == "529.982.247-25"
    assert format_cpf("123") == "123"
    assert mask_cpf("52998224725") == "***.982.247-**"
    assert mask_cpf("garbage") == "***.***.***-**"
    assert format_cnpj("11222333000181") == "11.222.333/0001-81"
    assert format_cnpj("12abc34501de35") == "12.ABC.345/01DE-35"
    assert format_cnpj("123") == "123"
    assert format_plate("not a plate") == "not a plate"


def test_each_validator_is_idempotent_on_its_value_and_remembers_it() -> None:
    """Issue 28: the validators check each text once and remember a valid text's value too; that is only
    right because validating the value gives the same result."""
    from motodesk.rules import validators as v

    samples = {
        v.validate_cpf: ["529.982.247-25", "52998224725", " 529 982 247 25 ", "111.111.111-11", "123", ""],
        v.validate_cnh: ["02650306461", "0265 0306 461", "12345678900"],
        v.validate_nit: ["120.5609.876-4", "12056098764", "1205609876"],
        v.validate_renavam: ["639884962", "00639884962", "12345678901"],
        v.validate_plate: ["abc-1234", "ABC1D23", "abc 1d23", "AB-12"],
        v.validate_vin: ["9bwzzz377vt004251", "9BWZZZ377VT004251", "9BWZZZ377VT00425I"],
        v.validate_cnpj: ["11.222.333/0001-81", "11222333000181", "12.ABC.345/01DE-35"],
    }
    for validate, texts in samples.items():
        for text in texts:
            first = validate(text)
            assert validate(text) is first  # remembered
            assert validate.__wrapped__(text) == first  # type: ignore[attr-defined]  # the same as unremembered
            if first.ok:
                assert first.value is not None
                assert validate(first.value) == first == validate.__wrapped__(first.value)  # type: ignore[attr-defined]
    assert not v.validate_cpf(None).ok and not v.validate_cpf("529.982.247-26").ok
