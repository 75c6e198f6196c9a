"""The import template: the empty "Cadastro" sheet the secretariat fills and the "Instruções" sheet.

The columns are :mod:`motodesk.exports.import_columns`' (looked up when the template is written, so a
document declared since is in it); the reader is :mod:`motodesk.exports.importer`.
"""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from openpyxl import Workbook
from openpyxl.comments import Comment
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet

from motodesk.exports import import_columns
from motodesk.exports.import_columns import INSTRUCTIONS_SHEET, TEMPLATE_SHEET, TemplateColumn
from motodesk.exports.xlsx import DATE_FORMAT
from motodesk.rules.common import ServiceType

#: Rows of the template covered by the drop-down lists.
TEMPLATE_VALIDATION_ROWS = 50_000

_REQUIRED_FILL = PatternFill("solid", fgColor="FFF2CC")
_BOLD = Font(bold=True)
_INTRODUCTION = (
    f'Preencha uma pessoa por linha na aba "{TEMPLATE_SHEET}", a partir da linha 2, sem mudar os '
    "nomes das colunas. Colunas destacadas são obrigatórias. Não use fórmulas: digite os valores.",
    "Datas: dd/mm/aaaa (também são aceitas dd-mm-aaaa, aaaa-mm-dd e dd/mm/aa). "
    "Linhas com erro são recusadas e listadas no relatório; as demais são importadas. "
    "Importar de novo a mesma planilha atualiza as pessoas pelo CPF, sem duplicar.",
)
#: The instructions sheet's column widths.
_INSTRUCTION_WIDTHS = {"A": 24, "B": 12, "C": 80, "D": 24}


def write_template(path: str | os.PathLike[str]) -> None:
    """The import template: an empty "Cadastro" sheet and an "Instruções" sheet.

    Required headers are highlighted and carry a comment; Serviço and Sexo have
    drop-down lists; document columns are formatted as text so the spreadsheet
    keeps leading zeros; date columns as ``DD/MM/YYYY``.
    """
    columns = import_columns.TEMPLATE_COLUMNS
    wb = Workbook()
    ws = wb.active
    ws.title = TEMPLATE_SHEET
    for idx, col in enumerate(columns, 1):
        _template_column(ws, idx, col)
    ws.freeze_panes = "A2"
    _write_instructions(wb.create_sheet(INSTRUCTIONS_SHEET), columns)
    wb.active = 0
    _save(wb, Path(path))


def _template_column(ws: Worksheet, idx: int, col: TemplateColumn) -> None:
    """One column of the "Cadastro" sheet: its header, width, number format and drop-down list."""
    letter = get_column_letter(idx)
    cell = ws.cell(row=1, column=idx, value=col.header)
    cell.font = _BOLD
    cell.alignment = Alignment(vertical="center", wrap_text=True)
    if col.required:
        cell.fill = _REQUIRED_FILL
        cell.comment = Comment(f"Obrigatório. {col.help}", "MotoDesk")
    dim = ws.column_dimensions[letter]
    dim.width = col.width
    if col.kind in ("date", "past_date"):
        dim.number_format = DATE_FORMAT
    elif col.kind in ("year", "engine_cc"):
        dim.number_format = "0"
    else:
        dim.number_format = "@"  # text: CPF, CNH and RENAVAM keep their leading zeros
    if col.kind in ("service", "sex"):
        ws.add_data_validation(_choice_list(col, letter))


def _choice_list(col: TemplateColumn, letter: str) -> DataValidation:
    """The drop-down list of Serviço or Sexo, over the template's data rows."""
    options = ",".join(s.label for s in ServiceType) if col.kind == "service" else "Masculino,Feminino"
    dv = DataValidation(
        type="list",
        formula1=f'"{options}"',
        allow_blank=True,
        showErrorMessage=True,
        errorTitle=col.header,
        error=f"Escolha um valor da lista: {options.replace(',', ', ')}.",
        promptTitle=col.header,
        prompt=col.help,
        showInputMessage=True,
    )
    dv.add(f"{letter}2:{letter}{TEMPLATE_VALIDATION_ROWS + 1}")
    return dv


def _write_instructions(info: Worksheet, columns: tuple[TemplateColumn, ...]) -> None:
    """The "Instruções" sheet: how to fill the template, one line per column, then an example line."""
    info.append(["Como preencher a planilha de importação do MotoDesk"])
    info["A1"].font = Font(bold=True, size=13)
    for paragraph in _INTRODUCTION:
        info.append([paragraph])
    info.append([])
    _bold_line(info, ["Coluna", "Obrigatória", "O que informar", "Exemplo"])
    for col in columns:
        info.append([col.header, "Sim" if col.required else "Não", col.help, col.example])
        example = info.cell(row=info.max_row, column=4)
        if isinstance(col.example, date):
            example.number_format = DATE_FORMAT
        elif isinstance(col.example, str):
            example.number_format = "@"
    info.append([])
    info.append(["Linha de exemplo (copie o formato, não a pessoa):"])
    info.cell(row=info.max_row, column=1).font = _BOLD
    _bold_line(info, [c.header for c in columns])
    info.append([c.example for c in columns])
    for idx, col in enumerate(columns, 1):
        if isinstance(col.example, date):
            info.cell(row=info.max_row, column=idx).number_format = DATE_FORMAT
    for letter, width in _INSTRUCTION_WIDTHS.items():
        info.column_dimensions[letter].width = width


def _bold_line(ws: Worksheet, values: list[str]) -> None:
    ws.append(values)
    for cell in ws[ws.max_row]:
        cell.font = _BOLD


def _save(wb: Workbook, target: Path) -> None:
    """Saved beside ``target`` first, then moved over it: a failed save leaves no half-written file."""
    tmp = target.with_name(f".{target.name}.tmp")
    try:
        wb.save(tmp)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
