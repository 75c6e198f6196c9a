"""Helpers for the spreadsheet tests: valid document numbers and reading workbooks back."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import openpyxl
import pytest

EXPORTED_AT = datetime(2026, 3, 2, 14, 5)
CPF_RE = re.compile(r"\d{3}\.?\d{3}\.?\d{3}-?\d{2}")


def cpf_digits(seed: int) -> str:
    """A valid CPF (11 digits) for each seed, deterministic."""
    base = [int(d) for d in f"{(seed * 7919 + 123456) % 10**9:09d}"]
    if len(set(base)) == 1:
        base[0] = (base[0] + 1) % 10
    for n in (10, 11):
        total = sum(d * w for d, w in zip(base, range(n, 1, -1), strict=False))
        digit = (total * 10) % 11
        base.append(0 if digit == 10 else digit)
    return "".join(map(str, base))


def sheet_values(path: Path, sheet: str | None = None) -> list[list[Any]]:
    wb = openpyxl.load_workbook(path)
    ws = wb[sheet] if sheet else wb.worksheets[0]
    return [[c.value for c in row] for row in ws.iter_rows()]


def all_cell_texts(path: Path) -> Iterator[str]:
    """Every cell value as text, in every sheet, plus the raw XML of the package."""
    wb = openpyxl.load_workbook(path)
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.value is not None:
                    yield str(cell.value)
    with zipfile.ZipFile(path) as zf:
        for name in zf.namelist():
            yield zf.read(name).decode("utf-8", "replace")


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "saida"
    folder.mkdir()
    return folder


# Test modules run in importlib mode and cannot import this file: the helpers
# above reach them as fixtures.


@pytest.fixture
def make_cpf():
    return cpf_digits


@pytest.fixture
def read_values():
    return sheet_values


@pytest.fixture
def cell_texts():
    return all_cell_texts
