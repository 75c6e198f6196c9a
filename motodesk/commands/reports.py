"""Spreadsheets from a terminal: `motodesk export KIND --out FILE.xlsx`, `motodesk import FILE.xlsx
[--dry-run]` and `motodesk template --out FILE.xlsx`.

The import prints the same pt_BR report as the Relatórios page, one line per row of the sheet. Exit
codes: 0 everything went in (or would, with --dry-run); 4 some rows were refused (the others were
imported, or with --dry-run would be); 1 the file was refused or nothing could be done.

Who acts: ``--user LOGIN`` and the password (see :mod:`motodesk.commands`), a registered user whose
profile the services check (an import needs an attendant or a supervisor, an export a supervisor or an
administrator). The audit trail and the spreadsheet's header name that user.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from motodesk.commands import logs_in, open_context
from motodesk.rules.text import format_int

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_REFUSED_ROWS = 4


def register(sub: Any, add_db_arg: Callable[[argparse.ArgumentParser], None]) -> None:
    from motodesk.services.reports import EXPORTERS

    kinds = [k.key for k in EXPORTERS]
    listing = "; ".join(f"{k.key}: {k.label}" for k in EXPORTERS)
    p = sub.add_parser("export", help="grava uma planilha (xlsx) do cadastro",
                       description=f"Grava uma planilha do cadastro. Tipos: {listing}.")
    p.add_argument("kind", metavar="TIPO", choices=kinds, help="o que exportar: " + ", ".join(kinds))
    p.add_argument("--out", metavar="ARQUIVO.xlsx", required=True, help="onde gravar a planilha")
    logs_in(p, add_db_arg, cmd_export)

    p = sub.add_parser("import", help="importa o cadastro de uma planilha (xlsx) feita com o modelo",
                       description="Confere cada linha da planilha (regras da Lei nº 4.883/2017 e validadores) e "
                                   "importa as aceitas em uma só transação. Saída: 0 tudo importado, 4 houve linhas "
                                   "recusadas, 1 arquivo recusado ou erro.")
    p.add_argument("file", metavar="ARQUIVO.xlsx", help="a planilha a importar")
    p.add_argument("--dry-run", action="store_true", help="só confere e mostra o relatório; não grava nada")
    logs_in(p, add_db_arg, cmd_import)

    p = sub.add_parser("template", help="grava o modelo de planilha para a importação")
    p.add_argument("--out", metavar="ARQUIVO.xlsx", required=True, help="onde gravar o modelo")
    p.set_defaults(handler=cmd_template)


def _acting(args: argparse.Namespace) -> Any:
    """The context of the user named by --user, once the password checks."""
    return open_context(args)


def _progress(label: str) -> Callable[[int, int], None] | None:
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        text = f"{format_int(done)}/{format_int(total)}"
        print(f"\r{label}: {text} linhas", end="" if done < total else "\n", file=sys.stderr, flush=True)

    return show


def cmd_export(args: argparse.Namespace) -> int:
    from motodesk.services.reports import export, export_kind

    ctx = _acting(args)
    out = Path(args.out)
    kind = export_kind(args.kind)
    count = export(ctx, kind.key, out, progress=_progress(kind.label))
    rows = format_int(count) + (" linha" if count == 1 else " linhas")
    print(f"Planilha gravada: {out} ({kind.label}, {rows}).")
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    from motodesk.services.imports import apply_import, preview_import, render_preview, render_summary

    ctx = _acting(args)
    preview = preview_import(ctx, Path(args.file))
    sys.stdout.write(render_preview(preview))
    if not preview.file_ok:
        return EXIT_ERROR
    refused = bool(preview.refused)
    if args.dry_run:
        print("Simulação (--dry-run): nada foi gravado.")
        return EXIT_REFUSED_ROWS if refused else EXIT_OK
    if not preview.importable:
        print("Nada a gravar." + (" Corrija as linhas recusadas e importe de novo." if refused else ""))
        return EXIT_REFUSED_ROWS if refused else EXIT_OK
    summary = apply_import(ctx, preview)
    sys.stdout.write(render_summary(summary))
    if refused:
        print(f"{len(preview.refused)} linha(s) recusada(s) não foram importadas; corrija-as e importe a planilha "
              "de novo (as já importadas não serão duplicadas).")
        return EXIT_REFUSED_ROWS
    return EXIT_OK


def cmd_template(args: argparse.Namespace) -> int:
    from motodesk.exports.importer import write_template
    from motodesk.services.errors import InvalidInputError

    out = Path(args.out)
    if out.suffix.lower() != ".xlsx":
        raise InvalidInputError(f"O arquivo deve terminar em .xlsx: “{out.name}”.")
    if not out.parent.is_dir():
        raise InvalidInputError(f"A pasta não existe: {out.parent}.", code="export.folder_missing")
    try:
        write_template(out)
    except OSError as exc:
        raise InvalidInputError(f"Não foi possível gravar “{out.name}”: {exc.strerror or exc}.") from exc
    print(f"Modelo de importação gravado: {out}. Preencha a aba “Cadastro” (veja a aba “Instruções”).")
    return EXIT_OK
