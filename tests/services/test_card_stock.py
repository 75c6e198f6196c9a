"""Card stock on SQLite and PostgreSQL: batches, one card per badge printed (in the print log),
spoiled cards, the period report and its anomalies, and the spreadsheet."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from openpyxl import load_workbook
from permit_factory import make_dossier  # type: ignore[import-not-found]
from sqlalchemy import select, update
from tests_helpers import check_wording, raises_code  # type: ignore[import-not-found]

from motodesk.models import AuditEvent, BadgePrint, CardUse, Permit
from motodesk.rules.common import PermitState, ServiceType
from motodesk.services import badges, card_stock, permits
from motodesk.services.badges import BadgeRequest
from motodesk.services.card_stock import parse_serial
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, PermissionDeniedError

TODAY = local_today()
NAMES = ("Helena Batista Couto", "Rui Pereira Lima", "Sônia Alves Rocha", "Caio Nunes Faria", "Lia Souza Prado")


def _permit(ctx: AppContext, supervisor: AppContext, n: int = 0) -> int:
    dossier = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED, name=NAMES[n], photo_seed=n)
    return permits.issue(supervisor, dossier.application_id).id


def _issue_no(ctx: AppContext, permit_id: int) -> int:
    with ctx.read() as s:
        permit = s.get(Permit, permit_id)
        assert permit is not None
        return permit.badge_issue_no


def test_serials_read_typed_or_scanned() -> None:
    assert parse_serial(" ptc-000123 ") == card_stock.Serial("PTC-", 123, 6)
    assert parse_serial("0042") == card_stock.Serial("", 42, 4)
    assert parse_serial("SP2026/7") == card_stock.Serial("SP2026/", 7, 1)
    assert card_stock.format_serial("PTC-", 7, 6) == "PTC-000007"
    for bad in ("", "ABC", "12A", "12 3x", "!1"):
        with pytest.raises(InvalidInputError):
            parse_serial(bad)


def test_batches_refuse_overlaps_and_bad_ranges(ctx: AppContext, supervisor: AppContext, clerk: AppContext) -> None:
    first = card_stock.record_batch(supervisor, "000101", "000200", received_on=TODAY, note="  NF 1.234  ")
    assert (first.first_serial, first.last_serial, first.cards, first.left, first.note) == (
        "000101", "000200", 100, 100, "NF 1.234")
    for lo, hi in (("000150", "000250"), ("000050", "000101"), ("120", "130"), ("000001", "000999")):
        with raises_code(InvalidInputError, "invalid_input", fields=("first_serial",)) as exc:
            card_stock.record_batch(supervisor, lo, hi)
        assert exc.value.fields == {"first_serial": "Sobreposição com outro lote."}
    with raises_code(InvalidInputError, "invalid_input", fields=("last_serial",)):
        card_stock.record_batch(supervisor, "000300", "000299")
    with raises_code(InvalidInputError, "invalid_input", fields=("last_serial",)):
        card_stock.record_batch(supervisor, "A-1", "B-9")
    with raises_code(InvalidInputError, "invalid_input", fields=("first_serial",)):
        card_stock.record_batch(supervisor, "", "000010")
    with raises_code(InvalidInputError, "invalid_input", fields=("last_serial",)):
        card_stock.record_batch(supervisor, "1", "200000")
    with raises_code(InvalidInputError, "invalid_input", fields=("received_on",)):
        card_stock.record_batch(supervisor, "000201", "000210", received_on=TODAY + timedelta(days=1))
    with pytest.raises(PermissionDeniedError):
        card_stock.record_batch(clerk, "000201", "000210")
    # Right next to the first batch, and the same numbers in another series, are fine.
    card_stock.record_batch(supervisor, "000201", "000210", received_on=TODAY - timedelta(days=3))
    card_stock.record_batch(supervisor, "PTC-000101", "PTC-000200")
    rows = card_stock.list_batches(clerk)
    assert [(r.first_serial, r.last_serial, r.recorded_by) for r in rows] == [
        ("PTC-000101", "PTC-000200", "supervisor"), ("000101", "000200", "supervisor"),
        ("000201", "000210", "supervisor")]
    with ctx.read() as s:  # each batch audited, with who recorded it
        audited = s.scalars(select(AuditEvent).where(AuditEvent.table_name == "card_batches")).all()
    assert len(audited) == 3 and {a.user_login for a in audited} == {"supervisor"}


def test_a_print_consumes_its_card_and_the_print_log_shows_it(ctx: AppContext, supervisor: AppContext,
                                                              clerk: AppContext) -> None:
    one, two = _permit(ctx, supervisor, 0), _permit(ctx, supervisor, 1)
    card_stock.record_batch(supervisor, "PTC-000001", "PTC-000010")
    assert card_stock.next_free_serials(clerk, 2) == ["PTC-000001", "PTC-000002"]
    printed = badges.print_badges(clerk, [BadgeRequest(one), BadgeRequest(two)],
                                  card_serials=["ptc-1", "PTC-000002"])
    assert [b.permit_number for b in printed.badges] == [p.permit_number for p in printed.badges]
    assert [(r.issue_no, r.card_serial) for r in badges.print_log(clerk, one)] == [(1, "PTC-000001")]
    assert [(r.issue_no, r.card_serial) for r in badges.print_log(clerk, two)] == [(1, "PTC-000002")]
    with ctx.read() as s:
        uses = s.execute(select(CardUse.serial, BadgePrint.permit_id, CardUse.used_by)
                         .join(BadgePrint, BadgePrint.id == CardUse.badge_print_id).order_by(CardUse.serial)).all()
        audited = s.scalars(select(AuditEvent).where(AuditEvent.table_name == "card_uses")).all()
    assert [tuple(u) for u in uses] == [("PTC-000001", one, "clerk"), ("PTC-000002", two, "clerk")]
    assert len(audited) == 2 and {a.user_login for a in audited} == {"clerk"}
    assert card_stock.next_free_serials(clerk) == ["PTC-000003"]
    (batch,) = card_stock.list_batches(clerk)
    assert (batch.used, batch.spoiled, batch.left) == (2, 0, 8)
    # A reprint takes a new card; the print log shows each copy with its own card.
    badges.print_badges(clerk, [one], reason="Dano no cartão", card_serials=["PTC-000003"])
    assert [(r.issue_no, r.card_serial) for r in badges.print_log(clerk, one)] == [(2, "PTC-000003"), (1, "PTC-000001")]


def test_once_stock_is_recorded_every_card_print_needs_its_serial(ctx: AppContext, supervisor: AppContext,
                                                                  clerk: AppContext) -> None:
    one, two = _permit(ctx, supervisor, 0), _permit(ctx, supervisor, 1)
    assert not card_stock.serial_required(clerk)  # no stock recorded yet: printing goes on as before
    badges.print_badges(clerk, [one])
    assert badges.print_log(clerk, one)[0].card_serial is None
    card_stock.record_batch(supervisor, "000001", "000005")
    assert card_stock.serial_required(clerk) and card_stock.serial_required_setting(clerk)
    with raises_code(InvalidInputError, "invalid_input", fields=("card_serial",)) as exc:
        badges.print_badges(clerk, [two])
    assert exc.value.fields == {"card_serial": "Obrigatório."}
    with raises_code(InvalidInputError, "invalid_input", fields=("card_serial",)):
        badges.print_badges(clerk, [two], card_serials=["  "])
    with raises_code(InvalidInputError, "invalid_input", fields=("card_serial",)):
        badges.print_badges(clerk, [two], card_serials=["000001", "000002"])
    with raises_code(InvalidInputError, "invalid_input", fields=("card_serial",)):
        badges.print_badges(clerk, [two], card_serials=["000006"])
    with raises_code(InvalidInputError, "invalid_input", fields=("card_serial",)):
        badges.print_badges(clerk, [two], layout="a4", card_serials=["000001"])
    assert badges.print_log(clerk, two) == [] and _issue_no(ctx, two) == 0  # nothing written by any refusal
    badges.print_badges(clerk, [two], layout="a4")  # an A4 sheet is not a PVC card
    # A supervisor may turn the requirement off; prints without a serial are then counted apart.
    with pytest.raises(PermissionDeniedError):
        card_stock.set_serial_required(clerk, False)
    card_stock.set_serial_required(supervisor, False)
    assert not card_stock.serial_required(clerk)
    badges.print_badges(clerk, [two], reason="Dano")
    report = card_stock.stock_report(supervisor, TODAY, TODAY)
    assert (report.printed, report.printed_without_card, report.printed_on_a4) == (0, 2, 1)
    card_stock.set_serial_required(supervisor, True)
    with raises_code(InvalidInputError, "invalid_input", fields=("card_serial",)):
        badges.print_badges(clerk, [two], reason="Dano")


def test_a_card_used_or_spoiled_is_refused_at_print(ctx: AppContext, supervisor: AppContext,
                                                    clerk: AppContext) -> None:
    one, two = _permit(ctx, supervisor, 0), _permit(ctx, supervisor, 1)
    card_stock.record_batch(supervisor, "000001", "000010")
    badges.print_badges(clerk, [one], card_serials=["000001"])
    with raises_code(InvalidInputError, "invalid_input", fields=("card_serial",)) as exc:
        badges.print_badges(clerk, [two], card_serials=["1"])
    assert exc.value.fields == {"card_serial": "Cartão já usado."}
    with raises_code(InvalidInputError, "invalid_input", fields=("card_serial",)):
        card_stock.check_serial(clerk, "000001")
    assert card_stock.check_serial(clerk, "2") == "000002"
    spoiled = card_stock.spoil_card(clerk, "000002", "Erro de impressão: foto deslocada")
    assert (spoiled.serial, spoiled.spoiled_by) == ("000002", "clerk")
    with raises_code(InvalidInputError, "invalid_input", fields=("card_serial",)):
        badges.print_badges(clerk, [two], card_serials=["000002"])
    with raises_code(InvalidInputError, "invalid_input", fields=("card_serial",)):
        badges.print_badges(clerk, [BadgeRequest(two), BadgeRequest(one)], reason="Perda",
                            card_serials=["000003", "3"])
    assert badges.print_log(clerk, two) == [] and _issue_no(ctx, one) == 1
    with raises_code(InvalidInputError, "invalid_input", fields=("card_serial",)):
        card_stock.spoil_card(clerk, "000001", "Cartão danificado")
    with raises_code(InvalidInputError, "invalid_input", fields=("reason",)):
        card_stock.spoil_card(clerk, "000004", "  ")
    with raises_code(InvalidInputError, "invalid_input", fields=("card_serial",)):
        card_stock.spoil_card(clerk, "000099", "Danificado")
    assert card_stock.next_free_serials(clerk) == ["000003"]
    badges.print_badges(clerk, [two], card_serials=["000003"])
    (batch,) = card_stock.list_batches(clerk)
    assert (batch.used, batch.spoiled, batch.left) == (2, 1, 7)


def test_the_period_report_is_for_supervisor_and_admin(supervisor: AppContext, clerk: AppContext,
                                                       ctx: AppContext) -> None:
    from motodesk.services.errors import PermissionDeniedError

    with raises_code(PermissionDeniedError, "permission_denied"):
        card_stock.stock_report(clerk, TODAY, TODAY)
    assert card_stock.stock_report(supervisor, TODAY, TODAY).received == 0
    assert card_stock.stock_report(ctx, TODAY, TODAY).received == 0  # the system context is an administrator


def test_the_period_report_counts_and_names_the_anomalies(ctx: AppContext, supervisor: AppContext,
                                                          clerk: AppContext, tmp_path: Path) -> None:
    ids = [_permit(ctx, supervisor, n) for n in range(4)]
    yesterday = TODAY - timedelta(days=1)
    card_stock.record_batch(supervisor, "000001", "000010", received_on=yesterday)
    card_stock.record_batch(supervisor, "000011", "000015", received_on=TODAY)
    badges.print_badges(clerk, [ids[0]], card_serials=["000001"])
    badges.print_badges(clerk, [ids[1]], card_serials=["000003"])  # 000002 skipped
    badges.print_badges(clerk, [ids[2]], card_serials=["000005"])  # 000004 skipped...
    card_stock.spoil_card(clerk, "000004", "Cartão danificado na impressora")  # ...until recorded as spoiled
    badges.print_badges(clerk, [ids[3]], card_serials=["000006"])

    report = card_stock.stock_report(supervisor, TODAY, TODAY)
    assert (report.received, report.printed, report.spoiled, report.left) == (5, 4, 1, 15 - 5)
    assert [(a.kind, a.serial) for a in report.anomalies] == [("skipped", "000002")]
    assert "000006" in report.anomalies[0].message  # the later card of the same batch that was used
    check_wording(report.anomalies[0].kind, report.anomalies[0].message)
    assert [u.serial for u in report.uses] == ["000001", "000003", "000005", "000006"]
    assert [x.serial for x in report.spoils] == ["000004"]
    earlier = card_stock.stock_report(supervisor, yesterday, yesterday)  # the day before: stock received, nothing used
    assert (earlier.received, earlier.printed, earlier.spoiled, earlier.left, earlier.anomalies) == (10, 0, 0, 10, [])

    # Data written around the services: a card used twice, and a card outside every batch.
    with ctx.write() as s:
        s.execute(update(CardUse).where(CardUse.serial == "000006").values(serial="000003"))
        s.add(CardUse(serial="000777", batch_id=None, badge_print_id=_spare_print(s, ids[0]), used_by="fora"))
    report = card_stock.stock_report(supervisor, TODAY, TODAY)
    assert [(a.kind, a.serial) for a in report.anomalies] == [
        ("duplicate", "000003"), ("outside", "000777"), ("skipped", "000002")]
    check_wording(report.anomalies[0].kind, report.anomalies[0].message)
    assert (report.count("duplicate"), report.count("outside"), report.count("skipped")) == (1, 1, 1)
    assert report.left == 15 - 4  # 000001, 000003, 000004, 000005 taken; the double counts once

    out = tmp_path / "estoque.xlsx"
    card_stock.export_report(supervisor, TODAY, TODAY, out)
    book = load_workbook(out)
    assert book.sheetnames == ["Resumo", "Usados", "Inutilizados", "Anomalias"]
    summary = {row[0]: row[1] for row in book["Resumo"].iter_rows(min_row=3, values_only=True)}
    assert summary["Cartões recebidos no período"] == 5 and summary["Cartões inutilizados"] == 1
    assert summary["Cartões em estoque no fim do período"] == 11 and summary["Cartões pulados"] == 1
    used = [row[0] for row in book["Usados"].iter_rows(min_row=3, values_only=True)]
    assert sorted(used) == ["000001", "000003", "000003", "000005", "000777"]
    kinds = [row[0] for row in book["Anomalias"].iter_rows(min_row=3, values_only=True)]
    assert kinds == ["Usado duas vezes", "Fora dos lotes", "Pulado"]
    with raises_code(InvalidInputError, "invalid_input", fields=("end",)):
        card_stock.stock_report(supervisor, TODAY, yesterday)


def _spare_print(s, permit_id: int) -> int:  # noqa: ANN001
    """A badge print row with no card yet, for data forced by hand."""
    from datetime import UTC, datetime

    row = BadgePrint(permit_id=permit_id, issue_no=99, printed_by="fora", reason="forçado", layout="card",
                     printed_at=datetime.now(UTC))
    s.add(row)
    s.flush()
    return row.id


def test_a_misprinted_badge_moves_to_the_next_card(ctx: AppContext, supervisor: AppContext, clerk: AppContext) -> None:
    one = _permit(ctx, supervisor, 0)
    card_stock.record_batch(supervisor, "000001", "000010")
    badges.print_badges(clerk, [one], card_serials=["000001"])
    spoiled, serial = card_stock.replace_card(clerk, one, 1, deputy=False, new_serial="2",
                                              reason="Erro de impressão: fita acabou")
    assert (spoiled.serial, serial) == ("000001", "000002")
    assert [(r.issue_no, r.card_serial) for r in badges.print_log(clerk, one)] == [(1, "000002")]
    assert _issue_no(ctx, one) == 1  # the same copy: nothing re-signed
    report = card_stock.stock_report(supervisor, TODAY, TODAY)
    assert (report.printed, report.spoiled, report.left, report.anomalies) == (1, 1, 8, [])
    with raises_code(InvalidInputError, "invalid_input", fields=("new_serial",)):
        card_stock.replace_card(clerk, one, 1, deputy=False, new_serial="000001", reason="Outra vez")
    badges.print_badges(clerk, [one], reason="Perda", card_serials=["000003"])
    with raises_code(InvalidInputError, "invalid_input", fields=("print",)):
        card_stock.replace_card(clerk, one, 1, deputy=False, new_serial="000004", reason="Erro")
    with ctx.read() as s:
        moved = s.scalars(select(AuditEvent).where(AuditEvent.table_name == "card_uses",
                                                   AuditEvent.action == "update")).all()
    assert len(moved) == 1 and "000002" in moved[0].changes


def test_two_counters_never_take_the_same_card_nor_record_overlapping_batches(
        ctx: AppContext, supervisor: AppContext, clerk: AppContext, db_url: str) -> None:
    from tests_helpers import race  # type: ignore[import-not-found]

    from motodesk.rules.common import Role

    ids = [_permit(ctx, supervisor, n) for n in range(3)]
    card_stock.record_batch(supervisor, "000001", "000010")
    won, lost = race(db_url, [lambda c, pid=pid: badges.print_badges(c, [pid], card_serials=["000001"])
                              for pid in ids])
    assert len(won) == 1 and len(lost) == 2, lost
    assert all(isinstance(exc, InvalidInputError) and "card_serial" in exc.fields for exc in lost), lost
    with ctx.read() as s:
        assert s.scalars(select(CardUse.serial)).all() == ["000001"]
    assert sum(len(badges.print_log(clerk, pid)) for pid in ids) == 1  # the losers logged nothing

    won, lost = race(db_url, [lambda c: card_stock.record_batch(c, "000011", "000020"),
                              lambda c: card_stock.record_batch(c, "000015", "000030")], role=Role.SUPERVISOR)
    assert len(won) == 1 and len(lost) == 1 and "first_serial" in getattr(lost[0], "fields", {}), lost
    assert len(card_stock.list_batches(clerk)) == 2
