"""The yearly re-registration campaign on both databases: opening, the counter, the close, the documents."""

from __future__ import annotations

import io
import shutil
import subprocess
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from enforcement_factory import add_deputy  # type: ignore[import-not-found]
from openpyxl import load_workbook
from PIL import Image
from pypdf import PdfReader
from reports_factory import holder  # type: ignore[import-not-found]
from sqlalchemy import func, select
from tests_helpers import SCREENSHOTS, raises_code, raises_rule  # type: ignore[import-not-found]

from motodesk.models import AppointmentEvent, AuditEvent, Campaign, CampaignAppointment, InfractionNotice
from motodesk.rules.campaign import AppointmentState, CertificateKind, DriverRole, is_slot
from motodesk.rules.common import ServiceType
from motodesk.rules.periods import is_business_day
from motodesk.services import campaigns
from motodesk.services.clock import local_time, local_today
from motodesk.services.context import AppContext
from motodesk.services.errors import (
    InvalidInputError,
    MotodeskError,
    PermissionDeniedError,
)
from motodesk.services.settings import law_settings, update_settings

#: The campaign of these tests ran in the past, so every slot's time has come (the notice may be written).
T = local_today() - timedelta(days=70)
PERIOD = (T + timedelta(days=1), T + timedelta(days=45))


def _register(supervisor: AppContext) -> dict[str, object]:
    """Ana's registration and Carla's medical certificate fall due in the period; Bruno's do not, but his
    deputy Davi has no medical certificate on record; Edu's certificates are all far ahead."""
    ana = holder(supervisor, "Ana Paula Vieira", ServiceType.MOTOTAXI, today=T, issued_on=T - timedelta(days=340),
                 medical_issued=T - timedelta(days=60))
    bruno = holder(supervisor, "Bruno Souza Lima", ServiceType.MOTOBOY, today=T, issued_on=T - timedelta(days=100),
                   medical_issued=T - timedelta(days=30))
    carla = holder(supervisor, "Carla Mendes Rocha", ServiceType.MOTOFRETE, today=T, issued_on=T - timedelta(days=100),
                   medical_issued=T - timedelta(days=350))
    davi_id, _ = add_deputy(supervisor, bruno.holder, "Davi Reis Campos")
    return {"ana": ana.holder.person_id, "bruno": bruno.holder.person_id, "carla": carla.holder.person_id,
            "davi": davi_id}


def _by_person(rows: list[campaigns.AppointmentRow]) -> dict[int, campaigns.AppointmentRow]:
    return {r.person_id: r for r in rows}


def test_open_calls_who_falls_due_on_business_slots_in_one_transaction(supervisor: AppContext, clerk: AppContext,
                                                                        ctx: AppContext) -> None:
    people = _register(supervisor)
    with pytest.raises(PermissionDeniedError):
        campaigns.open_campaign(clerk, *PERIOD, today=T)
    with pytest.raises(PermissionDeniedError):
        campaigns.open_campaign(ctx, *PERIOD, today=T)  # administrators do not open campaigns either

    opened = campaigns.open_campaign(supervisor, *PERIOD, today=T)
    assert opened.appointments == 3 and opened.campaign.is_open
    rows = campaigns.list_appointments(clerk, opened.campaign.id)
    mine = _by_person(rows)
    assert set(mine) == {people["ana"], people["carla"], people["davi"]}
    assert [d.kind for d in mine[people["ana"]].due] == [CertificateKind.REGISTRATION]
    assert mine[people["ana"]].due[0].due == T - timedelta(days=340) + timedelta(days=365)  # 340 days ago + 1 year
    assert [d.kind for d in mine[people["carla"]].due] == [CertificateKind.MEDICAL]
    davi = mine[people["davi"]]
    assert davi.role is DriverRole.DEPUTY and davi.due[0].due is None and davi.permit_number.startswith("MB-")
    settings = law_settings(supervisor)
    slots = [r.slot for r in rows]
    assert len(set(slots)) == 3 and slots == sorted(slots)
    for slot in slots:
        assert is_slot(slot, settings) and is_business_day(slot.date(), settings)
        assert PERIOD[0] <= slot.date() <= PERIOD[1]
    assert rows[0].slot == opened.first_slot
    with supervisor.read() as s:
        assert s.scalar(select(func.count()).select_from(AppointmentEvent)) == 3
        # Audited like every table, on both databases (SQLite: the session; PostgreSQL: the triggers).
        audited = dict(s.execute(select(AuditEvent.table_name, func.count()).where(AuditEvent.table_name.in_(
            ["campaigns", "campaign_appointments", "campaign_appointment_events"])).group_by(AuditEvent.table_name)).all())
        assert audited == {"campaigns": 1, "campaign_appointments": 3, "campaign_appointment_events": 3}
        assert s.scalar(select(AuditEvent.user_login).where(AuditEvent.table_name == "campaigns")) == "supervisor"

    with raises_code(MotodeskError, "campaign.already_open") as info:
        campaigns.open_campaign(supervisor, *PERIOD, today=T)
    assert str(info.value) == campaigns._OPEN_MESSAGES["uq_campaigns_one_open"]


def test_open_writes_nothing_when_any_step_fails(supervisor: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
    _register(supervisor)
    # Too little room: one appointment a day, one business day, three people.
    update_settings(supervisor, {"campaign_slots_per_day": 1})
    monday = T + timedelta(days=26)  # all three fall due by then
    while not is_business_day(monday, law_settings(supervisor)):
        monday += timedelta(days=1)
    with raises_code(InvalidInputError, "invalid_input", fields=("period_end",)) as caught:
        campaigns.open_campaign(supervisor, monday, monday, today=T)
    assert "period_end" in caught.value.fields
    update_settings(supervisor, {"campaign_slots_per_day": 16})

    # A failure after the campaign and its appointments were flushed rolls all of it back.
    def broken(**kwargs: object) -> None:
        raise RuntimeError("disco cheio")

    monkeypatch.setattr(campaigns, "AppointmentEvent", broken)
    with pytest.raises(RuntimeError):
        campaigns.open_campaign(supervisor, *PERIOD, today=T)
    with supervisor.read() as s:
        assert s.scalar(select(func.count()).select_from(Campaign)) == 0
        assert s.scalar(select(func.count()).select_from(CampaignAppointment)) == 0


def test_nobody_to_call_and_bad_periods(supervisor: AppContext) -> None:
    holder(supervisor, "Edu Martins", ServiceType.MOTOBOY, today=T, issued_on=T - timedelta(days=10),
           medical_issued=T - timedelta(days=10))
    with raises_code(InvalidInputError, "invalid_input", fields=("period_end",)):
        campaigns.open_campaign(supervisor, *PERIOD, today=T)
    with pytest.raises(InvalidInputError) as caught:
        campaigns.open_campaign(supervisor, PERIOD[1], PERIOD[0], today=T)
    assert "period_end" in caught.value.fields


def test_reschedule_keeps_the_history_and_checks_the_slot(supervisor: AppContext, clerk: AppContext) -> None:
    today = local_today()
    holder(supervisor, "Ana Paula Vieira", today=today, issued_on=today - timedelta(days=340))
    holder(supervisor, "Bruno Souza Lima", today=today, issued_on=today - timedelta(days=345))
    period = (today + timedelta(days=1), today + timedelta(days=40))
    opened = campaigns.open_campaign(supervisor, *period)
    first, second = campaigns.list_appointments(clerk, opened.campaign.id)
    settings = law_settings(clerk)

    with raises_code(InvalidInputError, "invalid_input", fields=("slot",)):
        campaigns.reschedule(clerk, first.id, second.slot, version=first.version)
    saturday = first.slot + timedelta(days=(5 - first.slot.weekday()) % 7)
    with raises_code(InvalidInputError, "invalid_input", fields=("slot",)):
        campaigns.reschedule(clerk, first.id, saturday.replace(hour=9, minute=0), version=first.version)
    with raises_code(InvalidInputError, "invalid_input", fields=("slot",)):
        campaigns.reschedule(clerk, first.id, datetime.combine(period[1] + timedelta(days=7), first.slot.time()))

    target = campaigns.free_slots(clerk, opened.campaign.id, limit=5)[-1]
    moved = campaigns.reschedule(clerk, first.id, target, version=first.version, reason="Pediu outro dia")
    assert moved.slot == target and moved.state is AppointmentState.RESCHEDULED
    with raises_code(MotodeskError, "conflict"):
        campaigns.reschedule(clerk, first.id, None, version=first.version)  # the old version
    again = campaigns.reschedule(clerk, first.id, None, version=moved.version)  # next free slot
    assert again.slot != target and is_slot(again.slot, settings)

    history = campaigns.appointment_history(clerk, first.id)
    assert [h.to_state for h in history] == [AppointmentState.SCHEDULED, AppointmentState.RESCHEDULED,
                                             AppointmentState.RESCHEDULED]
    assert history[1].from_slot == first.slot and history[1].to_slot == target
    assert history[1].reason == "Pediu outro dia" and history[1].by_user == "clerk"
    assert history[2].from_slot == target and history[2].to_slot == again.slot

    # A missed appointment cannot be marked before its time.
    with raises_code(InvalidInputError, "campaign.not_yet_time"):
        campaigns.mark_attendance(clerk, second.id, False)


def test_attendance_close_and_the_absent_with_their_infraction(supervisor: AppContext, clerk: AppContext,
                                                               inspector: AppContext) -> None:
    people = _register(supervisor)
    opened = campaigns.open_campaign(supervisor, *PERIOD, today=T)
    cid = opened.campaign.id
    rows = _by_person(campaigns.list_appointments(clerk, cid))
    ana, carla, davi = rows[people["ana"]], rows[people["carla"]], rows[people["davi"]]

    came = campaigns.mark_attendance(clerk, ana.id, True, version=ana.version)
    assert came.state is AppointmentState.ATTENDED
    with raises_rule("campaign_appointment"):
        campaigns.mark_attendance(clerk, ana.id, False)
    campaigns.mark_attendance(clerk, carla.id, False, reason="Não veio")
    with pytest.raises(PermissionDeniedError):
        campaigns.close_campaign(clerk, cid)

    progress = campaigns.progress(clerk, cid)
    assert progress is not None
    assert (progress.scheduled, progress.attended, progress.missed, progress.pending) == (3, 1, 1, 1)

    closed = campaigns.close_campaign(supervisor, cid)
    assert closed.marked_absent == 1 and not closed.campaign.is_open
    absent = {r.appointment.person_id: r for r in closed.absent}
    assert set(absent) == {people["carla"], people["davi"]}
    assert [i.code for i in absent[people["carla"]].infractions] == ["30.1.I"]
    assert [i.code for i in absent[people["davi"]].infractions] == ["30.1.I"]
    assert "Art. 30, Grupo 1, I" in absent[people["davi"]].infraction_text
    history = campaigns.appointment_history(clerk, davi.id)
    assert history[-1].to_state is AppointmentState.MISSED and "Encerramento" in (history[-1].reason or "")
    with raises_rule("campaign_appointment"):
        campaigns.mark_attendance(clerk, davi.id, True)
    with raises_code(MotodeskError, "campaign.closed"):
        campaigns.close_campaign(supervisor, cid)
    progress = campaigns.progress(clerk)
    assert progress is not None and (progress.attended, progress.missed, progress.pending) == (1, 2, 0)

    # What the notice form needs, and the notice itself through the enforcement service.
    data = campaigns.notice_input(absent[people["carla"]], "30.1.I", law_settings(clerk))
    assert (data.infraction_code, data.person_id, data.permit_id) == ("30.1.I", people["carla"], carla.permit_id)
    assert data.occurred_at is not None and local_time(data.occurred_at) == carla.slot
    with pytest.raises(InvalidInputError):
        campaigns.notice_input(absent[people["carla"]], "30.1.II", law_settings(clerk))  # registration still valid
    with pytest.raises(PermissionDeniedError):
        campaigns.open_notice_for_absence(clerk, davi.id, "30.1.I")
    created = campaigns.open_notice_for_absence(inspector, davi.id, "30.1.I")
    with supervisor.read() as s:
        notice = s.get(InfractionNotice, created.id)
        assert notice is not None and notice.infraction_code == "30.1.I"
        assert notice.person_id == people["davi"] and notice.offender_kind == "deputy"
    assert created.notified_on is None  # the person is absent: notified later (Art. 29, § 2º)


def test_close_waits_for_appointments_still_ahead(supervisor: AppContext) -> None:
    today = local_today()
    holder(supervisor, "Ana Paula Vieira", today=today, issued_on=today - timedelta(days=340))
    opened = campaigns.open_campaign(supervisor, today + timedelta(days=1), today + timedelta(days=30))
    with raises_code(InvalidInputError, "campaign.appointments_ahead"):
        campaigns.close_campaign(supervisor, opened.campaign.id)
    later = datetime.now(UTC) + timedelta(days=40)
    assert campaigns.close_campaign(supervisor, opened.campaign.id, now=later).marked_absent == 1


def test_call_letters_and_the_schedule_spreadsheet(supervisor: AppContext, clerk: AppContext, tmp_path: Path) -> None:
    people = _register(supervisor)
    opened = campaigns.open_campaign(supervisor, *PERIOD, today=T)
    rows = _by_person(campaigns.list_appointments(clerk, opened.campaign.id))
    pdf = campaigns.call_letters(clerk, opened.campaign.id, today=T)
    reader = PdfReader(io.BytesIO(pdf))
    text = "\n".join(page.extract_text() for page in reader.pages)
    assert len(reader.pages) == 3
    assert "Ana Paula Vieira" in text and "Carla Mendes Rocha" in text and "Davi Reis Campos – preposto" in text
    ana = rows[people["ana"]]
    assert f"{ana.slot:%d/%m/%Y} às {ana.slot:%H:%M}" in text
    assert "Art. 4º, § 1º" in text and "Art. 30, Grupo 1" in text
    assert "Prefeitura Municipal de Patrocínio" in text  # the letterhead

    one = campaigns.call_letters(clerk, opened.campaign.id, [rows[people["carla"]].id], today=T)
    one_text = PdfReader(io.BytesIO(one)).pages[0].extract_text()
    assert "Carla Mendes Rocha" in one_text and "Ana Paula" not in one_text
    assert "sanidade" in one_text
    tool = shutil.which("pdftoppm")
    if tool is not None:  # the picture a person looks at: docs/screenshots/campaign-call-letter.png
        png = subprocess.run([tool, "-r", "80", "-png", "-singlefile", "-"], input=one, capture_output=True,
                             check=True).stdout
        image = Image.open(io.BytesIO(png)).convert("L")
        assert image.size[0] > 600 and image.getextrema()[0] < 64  # an A4 page with dark ink on it
        (SCREENSHOTS / "campaign-call-letter.png").write_bytes(png)

    out = tmp_path / "agenda.xlsx"
    assert campaigns.export_schedule(clerk, opened.campaign.id, out) == 3
    ws = load_workbook(out).active
    assert ws is not None
    assert str(ws["A1"].value).startswith(campaigns.get_campaign(clerk, opened.campaign.id).label)
    headers = [c.value for c in ws[2]]
    assert headers[:3] == ["Data e hora", "Nome", "CPF"]
    body = list(ws.iter_rows(min_row=3, values_only=True))
    assert [r[1] for r in body] == [r.name for r in sorted(rows.values(), key=lambda r: r.slot)]
    assert body[0][0] == min(r.slot for r in rows.values())  # a real date-time cell
    assert all(str(r[2]).startswith("***") for r in body)  # masked CPF
    assert all(r[8] == "Agendado" for r in body)


def test_dashboard_shows_the_campaign_progress(supervisor: AppContext, clerk: AppContext) -> None:
    from motodesk.services.dashboard import dashboard

    assert dashboard(supervisor).campaign is None
    people = _register(supervisor)
    opened = campaigns.open_campaign(supervisor, *PERIOD, today=T)
    rows = _by_person(campaigns.list_appointments(clerk, opened.campaign.id))
    campaigns.mark_attendance(clerk, rows[people["ana"]].id, True)
    data = dashboard(supervisor)
    assert data.campaign is not None
    assert (data.campaign.scheduled, data.campaign.attended, data.campaign.missed, data.campaign.pending) == (3, 1, 0, 2)
    assert data.campaign.campaign.id == opened.campaign.id


def test_appointments_of_one_day_and_by_name(supervisor: AppContext, clerk: AppContext) -> None:
    people = _register(supervisor)
    opened = campaigns.open_campaign(supervisor, *PERIOD, today=T)
    rows = campaigns.list_appointments(clerk, opened.campaign.id)
    day: date = rows[0].slot.date()
    assert [r.id for r in campaigns.list_appointments(clerk, opened.campaign.id, day=day)] == \
        [r.id for r in rows if r.slot.date() == day]
    assert [r.person_id for r in campaigns.list_appointments(clerk, opened.campaign.id, text="carla")] == \
        [people["carla"]]
