"""Deputies (prepostos, Art. 14) on SQLite and PostgreSQL: the nomination in writing judged by the holder's
rules (refused at 20, accepted at 21), one deputy at a time (also when two workstations nominate at once),
the schedule of holder and deputy, the deputy's badge (marked, and dead once the link ends or the permit
is suspended or revoked), and the end of the link with its 15-day deregistration deadline."""

from __future__ import annotations

import io
from datetime import date, time, timedelta

import pytest
from enforcement_factory import revoke_through_process, suspend_through_process  # type: ignore[import-not-found]
from permit_factory import add_person, make_dossier, requirement_count  # type: ignore[import-not-found]
from pypdf import PdfReader
from sqlalchemy import func, select
from tests_helpers import check_wording, existing_register, race, raises_code, raises_rule  # type: ignore[import-not-found]

from motodesk.models import Attachment, DeputyLink, Permit, PersonDocument
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.rules.deadlines import DeadlineKind, deputy_deregistration_due
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.periods import add_years
from motodesk.services import badges, badges_printing, deadlines, deputies, permits
from motodesk.services.badges import BadgeRequest, BadgeStatus
from motodesk.services.context import AppContext
from motodesk.services.deputies import Shift
from motodesk.services.errors import (
    InvalidInputError,
    MotodeskError,
    PermissionDeniedError,
)
from motodesk.services.settings import law_settings

TODAY = date.today()
NOMINATION = (b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n", "indicacao.pdf")
SCHEDULE = [
    Shift(0, time(6), time(14), "titular"),
    Shift(0, time(14), time(22), "preposto"),
    Shift(5, time(7), time(12, 30), "preposto"),
    Shift(6, time(22), time(6), "titular"),  # Sunday night into Monday morning
]


def issued_permit(ctx: AppContext, supervisor: AppContext, *, name: str = "Titular Tomás Ribeiro",
                  service: ServiceType = ServiceType.MOTOBOY, on: date | None = None) -> permits.IssuedPermit:
    on = on or TODAY
    dossier = make_dossier(ctx, service, state=PermitState.APPROVED, name=name, on=on)
    return permits.issue(supervisor, dossier.application_id, on=on)


def deputy_person(ctx: AppContext, *, name: str = "Preposto Paulo Nunes", on: date | None = None,
                  birth: date | None = None, seed: int = 7) -> int:
    """A dossier that meets every requirement on ``on``, born on ``birth``."""
    with ctx.write() as s:
        existing_register(s)
        person, _photo = add_person(s, on or TODAY, name=name, photo_seed=seed)
        if birth is not None:
            person.birth_date = birth
            cnh = s.scalar(select(PersonDocument).where(PersonDocument.person_id == person.id,
                                                        PersonDocument.kind == DocumentKind.CNH))
            cnh.reference_date = add_years(birth, 18)  # licensed at 18, never before
        return person.id


def token_of(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The signed QR texts of the badges print_badges renders (what a scanner reads)."""
    tokens: list[str] = []
    real = badges_printing._render

    def render(planned, layout, offset_mm):  # noqa: ANN001, ANN202
        tokens.extend(p.data.token for p in planned)
        return real(planned, layout, offset_mm)

    monkeypatch.setattr(badges_printing, "_render", render)
    return tokens


# --- nomination ------------------------------------------------------------------------------


def test_nomination_is_refused_while_the_deputy_is_20_and_accepted_at_21(ctx: AppContext, clerk: AppContext,
                                                                        supervisor: AppContext) -> None:
    birthday = TODAY - timedelta(days=40)
    if (birthday.month, birthday.day) == (2, 29):
        birthday -= timedelta(days=1)
    issued = issued_permit(ctx, supervisor, on=birthday - timedelta(days=10))
    person_id = deputy_person(ctx, on=birthday - timedelta(days=1), birth=add_years(birthday, -21))

    with raises_rule("art5_i_age") as refused:
        deputies.nominate_deputy(clerk, issued.id, person_id, NOMINATION, on=birthday - timedelta(days=1))
    assert [v.article for v in refused.value.verdicts] == ["Art. 5º, I"]
    assert deputies.current_deputy(clerk, issued.id) is None

    nominated = deputies.nominate_deputy(clerk, issued.id, person_id, NOMINATION, SCHEDULE, on=birthday)
    current = deputies.current_deputy(clerk, issued.id)
    assert current is not None and current.link_id == nominated.link_id
    assert (current.deputy_name, current.start_on, current.active) == ("Preposto Paulo Nunes", birthday, True)
    assert current.holder_name == "Titular Tomás Ribeiro" and current.permit_number == issued.number
    # The written nomination (Art. 14, § 1º) is kept with the link, checked by content.
    assert [a.filename for a in current.nomination] == ["indicacao.pdf"]
    assert current.nomination[0].media_type == "application/pdf" and current.nomination[0].added_by == "clerk"
    assert current.schedule == deputies.validate_schedule(SCHEDULE)


def test_the_deputy_dossier_is_judged_on_every_requirement(ctx: AppContext, clerk: AppContext,
                                                          supervisor: AppContext) -> None:
    issued = issued_permit(ctx, supervisor)
    person_id = deputy_person(ctx)
    with ctx.write() as s:
        existing_register(s)
        cnh = s.scalar(select(PersonDocument).where(PersonDocument.person_id == person_id,
                                                    PersonDocument.kind == DocumentKind.CNH))
        cnh.valid_until = TODAY - timedelta(days=1)
        medical = s.scalar(select(PersonDocument).where(PersonDocument.person_id == person_id,
                                                        PersonDocument.kind == DocumentKind.MEDICAL))
        s.delete(medical)
    verdicts = deputies.deputy_verdicts(clerk, person_id, ServiceType.MOTOBOY)
    assert len(verdicts) == requirement_count(ServiceType.MOTOBOY, deputy=True)  # the holder's list (Art. 14, § 2º)
    with raises_rule("art5_ii_cnh", "art5_vii_medical") as refused:
        deputies.nominate_deputy(clerk, issued.id, person_id, NOMINATION)
    assert {v.article for v in refused.value.verdicts} == {"Art. 5º, II", "Art. 5º, VII e § 2º"}


def test_a_second_deputy_for_the_same_holder_is_refused(ctx: AppContext, clerk: AppContext,
                                                        supervisor: AppContext) -> None:
    issued = issued_permit(ctx, supervisor)
    first = deputy_person(ctx, name="Primeiro Preposto Silva")
    second = deputy_person(ctx, name="Segundo Preposto Souza", seed=8)
    deputies.nominate_deputy(clerk, issued.id, first, NOMINATION)
    with raises_rule("art14_one_deputy"):
        deputies.nominate_deputy(clerk, issued.id, second, NOMINATION)
    # The database holds the rule too: a direct second open link is refused by the partial unique index.
    with raises_code(MotodeskError, "guarded_state"), ctx.write(deputies._INTEGRITY) as s:
        s.add(DeputyLink(permit_id=issued.id, deputy_person_id=second, start_on=TODAY))
    # After the first link ends, another deputy may be nominated.
    link = deputies.current_deputy(clerk, issued.id)
    deputies.end_deputy_link(clerk, link.link_id, TODAY, "Fim do contrato de trabalho")
    deputies.nominate_deputy(clerk, issued.id, second, NOMINATION)
    history = deputies.deputy_history(clerk, issued.id)
    assert [(h.deputy_name, h.active) for h in history] == [("Segundo Preposto Souza", True),
                                                            ("Primeiro Preposto Silva", False)]


def test_two_workstations_nominating_at_once_leave_one_deputy(ctx: AppContext, supervisor: AppContext,
                                                              db_url: str) -> None:
    issued = issued_permit(ctx, supervisor)
    people = [deputy_person(ctx, name=f"Preposto Candidato {n}", seed=n) for n in range(6)]
    won, lost = race(db_url, [lambda c, p=p: deputies.nominate_deputy(c, issued.id, p, NOMINATION) for p in people])
    assert len(won) == 1 and len(lost) == 5
    # Refused by the rule (Art. 14) or, when the check raced, by the one-deputy index inside the write.
    assert all(getattr(exc, "rule_ids", ()) == ("art14_one_deputy",)
               or (getattr(exc, "code", None) == "constraint"
                   and str(exc) == deputies._INTEGRITY["uq_deputy_links_active_permit"]) for exc in lost), lost
    with ctx.read() as s:
        assert s.scalar(select(func.count(DeputyLink.id)).where(DeputyLink.end_on.is_(None))) == 1
        # Nothing of the refused nominations stayed behind: one nomination scan, the winner's.
        assert s.scalar(select(func.count(Attachment.id)).where(Attachment.owner_table == "deputy_links")) == 1


def test_what_the_nomination_needs(ctx: AppContext, clerk: AppContext, supervisor: AppContext,
                                   inspector: AppContext) -> None:
    issued = issued_permit(ctx, supervisor)
    person_id = deputy_person(ctx)
    with raises_code(InvalidInputError, "invalid_input", fields=("nomination",)):
        deputies.nominate_deputy(clerk, issued.id, person_id, None)
    with raises_code(InvalidInputError, "attachment.bad_type"):
        deputies.nominate_deputy(clerk, issued.id, person_id, (b"sou um texto qualquer", "indicacao.pdf"))
    with ctx.read() as s:
        holder_id = s.get(Permit, issued.id).person_id
    with raises_rule("art14_self"):
        deputies.nominate_deputy(clerk, issued.id, holder_id, NOMINATION)
    with raises_code(InvalidInputError, "invalid_input", fields=("start_on",)):
        deputies.nominate_deputy(clerk, issued.id, person_id, NOMINATION, on=TODAY + timedelta(days=1))
    with pytest.raises(PermissionDeniedError):
        deputies.nominate_deputy(inspector, issued.id, person_id, NOMINATION)
    suspend_through_process(supervisor, issued.id, TODAY + timedelta(days=30))
    with raises_rule("art14_permit"):
        deputies.nominate_deputy(clerk, issued.id, person_id, NOMINATION)
    assert deputies.deputy_history(inspector, issued.id) == []


# --- schedule --------------------------------------------------------------------------------


def test_schedule_shifts_never_overlap_and_are_printable(ctx: AppContext, clerk: AppContext,
                                                         supervisor: AppContext) -> None:
    issued = issued_permit(ctx, supervisor, name="Titular Tomás Ribeiro")
    nominated = deputies.nominate_deputy(clerk, issued.id, deputy_person(ctx), NOMINATION)
    assert deputies.current_deputy(clerk, issued.id).schedule == []

    with raises_code(InvalidInputError, "invalid_input", fields=("schedule",)) as clash:
        deputies.set_work_schedule(clerk, nominated.link_id, [Shift(2, time(8), time(12), "titular"),
                                                               Shift(2, time(11), time(15), "preposto")])
    assert "Art. 11" in clash.value.fields["schedule"]  # holder and deputy share the one vehicle
    with raises_code(InvalidInputError, "invalid_input", fields=("schedule",)):  # Sunday night runs into Monday
        deputies.set_work_schedule(clerk, nominated.link_id, [Shift(6, time(22), time(6), "titular"),
                                                               Shift(0, time(5), time(9), "titular")])
    with raises_code(InvalidInputError, "invalid_input", fields=("schedule",)):
        deputies.set_work_schedule(clerk, nominated.link_id, [Shift(1, time(8), time(8), "preposto")])

    version = deputies.set_work_schedule(clerk, nominated.link_id, SCHEDULE, expected_version=nominated.version)
    current = deputies.current_deputy(clerk, issued.id)
    assert current.version == version
    assert current.weekly_minutes == {"titular": 16 * 60, "preposto": 8 * 60 + 5 * 60 + 30}
    assert deputies.format_hours(current.weekly_minutes["preposto"]) == "13h30"

    pdf = deputies.work_schedule_pdf(clerk, nominated.link_id, signed_on=TODAY)
    text = " ".join(PdfReader(io.BytesIO(pdf)).pages[0].extract_text().split())
    assert "Escala de Trabalho" in text and "Art. 14, § 3º" in text
    assert "Titular Tomás Ribeiro" in text and "Preposto Paulo Nunes" in text
    assert "14:00 – 22:00" in text and "22:00 – 06:00 (dia seguinte)" in text
    assert "titular 16h; preposto(a) 13h30" in text


# --- badge and verification ------------------------------------------------------------------


def test_the_deputy_badge_is_marked_and_stops_verifying_when_the_link_ends(
        ctx: AppContext, clerk: AppContext, supervisor: AppContext, inspector: AppContext,
        monkeypatch: pytest.MonkeyPatch) -> None:
    issued = issued_permit(ctx, supervisor, name="Titular Tomás Ribeiro")
    nominated = deputies.nominate_deputy(clerk, issued.id, deputy_person(ctx), NOMINATION)
    tokens = token_of(monkeypatch)
    printed = badges.print_badges(clerk, [BadgeRequest(issued.id), BadgeRequest(issued.id, deputy=True)])
    assert [b.holder_kind for b in printed.badges] == ["titular", "preposto"]
    deputy_front = " ".join(PdfReader(io.BytesIO(printed.pdf)).pages[2].extract_text().split())
    assert "PREPOSTO" in deputy_front and "Preposto Paulo Nunes" in deputy_front
    assert "Titular Tomás Ribeiro" in deputy_front
    assert sorted(p.holder_kind for p in badges.print_log(clerk, issued.id)) == ["preposto", "titular"]
    assert deputies.current_deputy(clerk, issued.id).badge_issue_no == 1

    holder_badge, deputy_badge = tokens
    holder = badges.verify_badge(inspector, holder_badge)
    assert holder.status is BadgeStatus.VALID and holder.bearer_role == "Titular"
    deputy = badges.verify_badge(inspector, deputy_badge)
    assert deputy.status is BadgeStatus.VALID and deputy.holder_kind == "preposto"
    assert deputy.holder_name == "Preposto Paulo Nunes"
    assert deputy.bearer_role == "Preposto de Titular Tomás Ribeiro"

    ended = deputies.end_deputy_link(clerk, nominated.link_id, None, "Pediu demissão")
    assert ended.end_on == TODAY
    assert ended.deregistration_due == deputy_deregistration_due(TODAY, law_settings(clerk)).due
    assert ended.deregistration_due >= TODAY + timedelta(days=15)
    assert not ended.recorded_late and "dentro do prazo" in ended.notice
    gone = badges.verify_badge(inspector, deputy_badge)
    assert gone.status is BadgeStatus.UNLINKED and not gone.valid
    check_wording(gone.status.value, gone.message)
    assert gone.photo_jpeg is None
    assert badges.verify_badge(inspector, holder_badge).status is BadgeStatus.VALID  # the holder's still holds
    with raises_rule("document_deputy"):
        badges.print_badges(clerk, [BadgeRequest(issued.id, deputy=True)])


def test_the_deputy_badge_stops_verifying_while_the_permit_is_suspended_or_revoked(
        ctx: AppContext, clerk: AppContext, supervisor: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
    issued = issued_permit(ctx, supervisor)
    deputies.nominate_deputy(clerk, issued.id, deputy_person(ctx), NOMINATION)
    tokens = token_of(monkeypatch)
    badges.print_badges(clerk, [BadgeRequest(issued.id, deputy=True)])
    assert badges.verify_badge(clerk, tokens[0]).valid

    suspend_through_process(supervisor, issued.id, TODAY + timedelta(days=30))
    suspended = badges.verify_badge(clerk, tokens[0])
    assert suspended.status is BadgeStatus.SUSPENDED
    check_wording(suspended.status.value, suspended.message)
    permits.run_calendar(ctx, on=TODAY + timedelta(days=30))  # the suspension's days are over
    assert badges.verify_badge(clerk, tokens[0], today=TODAY + timedelta(days=30)).valid

    revoke_through_process(supervisor, issued.id)
    revoked = badges.verify_badge(clerk, tokens[0])
    assert revoked.status is BadgeStatus.REVOKED and not revoked.valid
    history = deputies.deputy_history(clerk, issued.id)
    assert history[0].end_on == TODAY and "cassada" in (history[0].end_reason or "")


# --- end of the link -------------------------------------------------------------------------


def test_ending_the_link_records_the_date_and_the_15_day_deregistration_deadline(
        ctx: AppContext, clerk: AppContext, supervisor: AppContext, inspector: AppContext) -> None:
    issued = issued_permit(ctx, supervisor, on=TODAY - timedelta(days=60), name="Titular Tomás Ribeiro")
    nominated = deputies.nominate_deputy(clerk, issued.id, deputy_person(ctx, on=TODAY - timedelta(days=50)),
                                         NOMINATION, on=TODAY - timedelta(days=50))
    with raises_code(InvalidInputError, "invalid_input", fields=("reason",)):
        deputies.end_deputy_link(clerk, nominated.link_id, TODAY, "  ")
    with raises_code(InvalidInputError, "invalid_input", fields=("end_on",)):
        deputies.end_deputy_link(clerk, nominated.link_id, TODAY - timedelta(days=51), "Fim do contrato")
    with raises_code(InvalidInputError, "invalid_input", fields=("end_on",)):
        deputies.end_deputy_link(clerk, nominated.link_id, TODAY + timedelta(days=1), "Fim do contrato")
    with pytest.raises(PermissionDeniedError):
        deputies.end_deputy_link(inspector, nominated.link_id, TODAY, "Fim do contrato")

    # The holder comes to the counter 20 days after the link ended: recorded, but late.
    ended = deputies.end_deputy_link(clerk, nominated.link_id, TODAY - timedelta(days=20), "Fim do contrato")
    assert ended.end_on == TODAY - timedelta(days=20) and ended.recorded_late
    assert ended.deregistration_due == deputy_deregistration_due(ended.end_on, law_settings(clerk)).due
    assert TODAY - timedelta(days=5) <= ended.deregistration_due < TODAY
    assert "fora do prazo" in ended.notice and "Art. 31, Grupo 1, I" in ended.notice
    with raises_code(MotodeskError, "deputy.link_ended"):
        deputies.end_deputy_link(clerk, nominated.link_id, TODAY, "Outra vez")
    with raises_code(MotodeskError, "deputy.link_ended"):
        deputies.set_work_schedule(clerk, nominated.link_id, SCHEDULE)

    past = deputies.deputy_history(clerk, issued.id)[0]
    assert (past.end_on, past.end_reason, past.deregistration_due) == (ended.end_on, "Fim do contrato",
                                                                      ended.deregistration_due)
    rows = deadlines.collect(clerk, deadlines.DeadlineFilter(horizon_days=30,
                                                             kinds=frozenset({DeadlineKind.DEPUTY_DEREGISTRATION})))
    assert [(r.permit_number, r.deadline.due, r.detail) for r in rows] == [
        (issued.number, ended.deregistration_due, "preposto Preposto Paulo Nunes")]
    assert rows[0].overdue and rows[0].deadline.article.startswith("Art. 31")


def test_roles(clerk: AppContext, supervisor: AppContext) -> None:
    for role_ctx in (clerk, supervisor):
        assert role_ctx.user.role in deputies.nominate_deputy.allowed_roles  # type: ignore[attr-defined]
    assert Role.INSPECTOR not in deputies.end_deputy_link.allowed_roles  # type: ignore[attr-defined]
    assert Role.INSPECTOR in deputies.deputy_history.allowed_roles  # type: ignore[attr-defined]


# --- the deputy while the link lasts (Art. 14, § 2º; Art. 31, Grupo 4, III) -----------------------


def _expire_deputy_cnh(ctx: AppContext, person_id: int, on: date) -> None:
    with ctx.write() as s:
        existing_register(s)
        cnh = s.scalar(select(PersonDocument).where(PersonDocument.person_id == person_id,
                                                    PersonDocument.kind == DocumentKind.CNH))
        cnh.valid_until = on - timedelta(days=1)


def test_a_schedule_that_leaves_the_holder_no_hours_is_refused(ctx: AppContext, clerk: AppContext,
                                                               supervisor: AppContext) -> None:
    issued = issued_permit(ctx, supervisor)
    person_id = deputy_person(ctx)
    only_deputy = [Shift(0, time(6), time(22), "preposto"), Shift(1, time(6), time(22), "preposto")]
    with pytest.raises(InvalidInputError) as refused:
        deputies.nominate_deputy(clerk, issued.id, person_id, NOMINATION, only_deputy)
    assert "Art. 31, Grupo 4, III" in refused.value.fields["schedule"]
    assert deputies.current_deputy(clerk, issued.id) is None
    nominated = deputies.nominate_deputy(clerk, issued.id, person_id, NOMINATION, SCHEDULE)
    with raises_code(InvalidInputError, "invalid_input", fields=("schedule",)):
        deputies.set_work_schedule(clerk, nominated.link_id, only_deputy)
    assert deputies.current_deputy(clerk, issued.id).schedule == deputies.validate_schedule(SCHEDULE)
    # the holder alone, or holder and deputy together, are schedules the law allows
    deputies.set_work_schedule(clerk, nominated.link_id, [Shift(2, time(8), time(12), "titular")])
    deputies.set_work_schedule(clerk, nominated.link_id, [*only_deputy, Shift(2, time(8), time(12), "titular")])


def test_the_deputy_is_judged_again_at_renewal_and_at_every_deputy_badge(ctx: AppContext, clerk: AppContext,
                                                                        supervisor: AppContext) -> None:
    issued = issued_permit(ctx, supervisor, on=TODAY - timedelta(days=5))
    person_id = deputy_person(ctx)
    deputies.nominate_deputy(clerk, issued.id, person_id, NOMINATION, SCHEDULE)
    printed = badges.print_badges(clerk, [BadgeRequest(issued.id, deputy=True)])
    assert [b.holder_kind for b in printed.badges] == ["preposto"]

    _expire_deputy_cnh(ctx, person_id, TODAY)
    with raises_rule("deputy_art5_ii_cnh") as refused:
        permits.renew_registration(clerk, issued.id, on=TODAY)
    assert [v.article for v in refused.value.verdicts] == ["Art. 5º, II"]
    with ctx.read() as s:
        before = s.get(Permit, issued.id)
        assert before is not None and before.certificate_valid_until == issued.certificate_valid_until

    with raises_rule("document_cnh"):
        badges.print_badges(clerk, [BadgeRequest(issued.id, deputy=True)], reason="Perda")
    assert deputies.current_deputy(clerk, issued.id).badge_issue_no == 1  # nothing was printed
    # the holder's own badge does not depend on the deputy's documents
    assert [b.holder_kind for b in badges.print_badges(clerk, [BadgeRequest(issued.id)]).badges] == ["titular"]
