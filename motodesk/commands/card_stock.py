"""Card stock from a terminal: ``motodesk card-stock add-batch | spoil | report | batches``.

``add-batch`` records blank pre-numbered cards received (supervisor or administrator); ``spoil``
takes a card out as inutilizado with its reason (attendant or supervisor); ``report`` prints the
period's figures and anomalies, and with ``--out`` writes them as a spreadsheet. Dates are
dd/mm/aaaa (or aaaa-mm-dd). Exit codes: 0 done; 4 ``report`` found anomalies; 1 refused or error.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from motodesk.commands import day_arg, logs_in, open_context

EXIT_OK = 0
EXIT_ANOMALIES = 4


def register(sub: Any, add_db_arg: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser(
        "card-stock", help="estoque de cartões numerados dos crachás (lotes, inutilizados, relatório)",
        description="Estoque de cartões em branco pré-numerados: registra lotes recebidos e cartões "
                    "inutilizados, e mostra o relatório de um período (impressos, inutilizados, em estoque e "
                    "anomalias: cartão usado duas vezes, pulado ou fora dos lotes).")
    actions = p.add_subparsers(dest="card_action", metavar="AÇÃO", required=True)

    q = actions.add_parser("add-batch", help="registra um lote de cartões recebido",
                           description="Registra os cartões recebidos do primeiro ao último número (ex.: 000101 "
                                       "000600, ou com prefixo PTC-000101 PTC-000600). Recusa faixas invertidas e "
                                       "sobrepostas a um lote já registrado.")
    q.add_argument("first", metavar="PRIMEIRO", help="número do primeiro cartão do lote")
    q.add_argument("last", metavar="ÚLTIMO", help="número do último cartão do lote")
    q.add_argument("--received", metavar="DATA", type=day_arg, default=None, help="data de recebimento (padrão: hoje)")
    q.add_argument("--note", metavar="TEXTO", default=None, help="observação (nota fiscal, fornecedor…)")
    logs_in(q, add_db_arg, cmd_add_batch)

    q = actions.add_parser("spoil", help="registra um cartão inutilizado, com o motivo")
    q.add_argument("serial", metavar="CARTÃO", help="número do cartão")
    q.add_argument("reason", metavar="MOTIVO", help="por que o cartão foi inutilizado")
    logs_in(q, add_db_arg, cmd_spoil)

    q = actions.add_parser("report", help="relatório do estoque em um período",
                           description="Cartões recebidos, impressos, inutilizados e em estoque no período, e as "
                                       "anomalias. Saída: 0 sem anomalias, 4 com anomalias, 1 erro.")
    q.add_argument("--from", dest="start", metavar="DATA", type=day_arg, required=True, help="primeiro dia")
    q.add_argument("--to", dest="end", metavar="DATA", type=day_arg, required=True, help="último dia")
    q.add_argument("--out", metavar="ARQUIVO.xlsx", default=None, help="grava também a planilha do relatório")
    logs_in(q, add_db_arg, cmd_report)

    q = actions.add_parser("batches", help="lista os lotes com cartões usados, inutilizados e restantes")
    logs_in(q, add_db_arg, cmd_batches)


def cmd_add_batch(args: argparse.Namespace) -> int:
    from motodesk.rules.text import format_date, format_int
    from motodesk.services.card_stock import record_batch

    row = record_batch(open_context(args), args.first, args.last, received_on=args.received, note=args.note)
    print(f"Lote registrado: {row.first_serial} a {row.last_serial} ({format_int(row.cards)} cartões), "
          f"recebido em {format_date(row.received_on)}.")
    return EXIT_OK


def cmd_spoil(args: argparse.Namespace) -> int:
    from motodesk.services.card_stock import spoil_card

    row = spoil_card(open_context(args), args.serial, args.reason)
    print(f"Cartão {row.serial} registrado como inutilizado: {row.reason}.")
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from motodesk.rules.text import format_date, format_int
    from motodesk.services.card_stock import export_report, stock_report, summary_lines

    ctx = open_context(args)
    if args.out:
        out = Path(args.out)
        if out.suffix.lower() != ".xlsx":
            out = out.with_suffix(".xlsx")
        report = export_report(ctx, args.start, args.end, out)
    else:
        report = stock_report(ctx, args.start, args.end)
    print(f"Estoque de cartões de {format_date(report.start)} a {format_date(report.end)}")
    for label, value in summary_lines(report):
        print(f"  {label}: {format_int(value)}")
    if report.anomalies:
        print("Anomalias:")
        for anomaly in report.anomalies:
            print(f"  [{anomaly.label}] {anomaly.message}")
    if args.out:
        print(f"Planilha gravada em {out}.")
    return EXIT_ANOMALIES if report.anomalies else EXIT_OK


def cmd_batches(args: argparse.Namespace) -> int:
    from motodesk.rules.text import format_date
    from motodesk.services.card_stock import list_batches

    rows = list_batches(open_context(args))
    if not rows:
        print("Nenhum lote de cartões registrado.")
    for r in rows:
        print(f"{r.first_serial} a {r.last_serial}: {r.cards} cartões, recebido em {format_date(r.received_on)}; "
              f"usados {r.used}, inutilizados {r.spoiled}, em estoque {r.left}" + (f" — {r.note}" if r.note else ""))
    return EXIT_OK
