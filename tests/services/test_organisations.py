"""Organisations of holders (Art. 9º) on SQLite and PostgreSQL: a valid CNPJ, address and contact; holders'
affiliations with their dates, leaving always allowed; members listed and exported."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest
from enforcement_factory import revoke_through_process  # type: ignore[import-not-found]
from openpyxl import load_workbook
from permit_factory import make_dossier  # type: ignore[import-not-found]
from tests_helpers import raises_code, raises_rule  # type: ignore[import-not-found]

from motodesk.rules.common import PermitState, ServiceType
from motodesk.services import organisations, permits
from motodesk.services.context import AppContext
from motodesk.services.errors import (
    InvalidInputError,
    MotodeskError,
    PermissionDeniedError,
)
from motodesk.services.organisations import OrganisationInput, OrganisationKind

TODAY = date.today()
COOP_CNPJ = "11.222.333/0001-81"


def coop(name: str = "Cooperativa dos Mototaxistas de Patrocínio", cnpj: str = COOP_CNPJ,
         kind: OrganisationKind | str = OrganisationKind.COOPERATIVE) -> OrganisationInput:
    return OrganisationInput(kind=kind, name=name, cnpj=cnpj, address="Rua Governador Valadares, 455, Centro",
                             phone="(34) 3831-2020", email="Contato@CoopMoto.org.br", contact_name="Maria Aparecida")


def holder(ctx: AppContext, supervisor: AppContext, name: str,
           service: ServiceType = ServiceType.MOTOBOY) -> tuple[int, permits.IssuedPermit]:
    dossier = make_dossier(ctx, service, state=PermitState.APPROVED, name=name)
    return dossier.person_id, permits.issue(supervisor, dossier.application_id)


def test_an_organisation_with_an_invalid_cnpj_is_refused(clerk: AppContext) -> None:
    with pytest.raises(InvalidInputError) as refused:
        organisations.save_organisation(clerk, coop(cnpj="11.222.333/0001-82"))
    assert refused.value.fields == {"cnpj": "CNPJ inválido: os dígitos verificadores não conferem."}
    with pytest.raises(InvalidInputError) as short:
        organisations.save_organisation(clerk, coop(cnpj="1122233300018"))
    assert "14 caracteres" in short.value.fields["cnpj"]
    assert organisations.list_organisations(clerk) == []


def test_an_organisation_needs_kind_name_address_and_a_contact(clerk: AppContext) -> None:
    with pytest.raises(InvalidInputError) as refused:
        organisations.save_organisation(clerk, OrganisationInput(kind="sindicato", name=" ", cnpj=COOP_CNPJ))
    assert set(refused.value.fields) == {"kind", "name", "address", "phone"}
    assert "Art. 9º" in refused.value.fields["kind"]
    bad_contact = coop()
    bad_contact.phone, bad_contact.email = "123", "sem-arroba"
    with pytest.raises(InvalidInputError) as contact:
        organisations.save_organisation(clerk, bad_contact)
    assert set(contact.value.fields) == {"phone", "email"}


def test_organisations_are_kept_with_a_unique_cnpj(clerk: AppContext, inspector: AppContext) -> None:
    row = organisations.save_organisation(clerk, coop())
    assert (row.kind, row.cnpj, row.cnpj_formatted, row.email) == (
        OrganisationKind.COOPERATIVE, "11222333000181", COOP_CNPJ, "contato@coopmoto.org.br")
    assert row.kind.label == "Cooperativa" and row.members == 0
    with raises_code(InvalidInputError, "invalid_input", fields=("cnpj",)):
        organisations.save_organisation(clerk, coop(name="Outra Cooperativa", cnpj="11222333000181"))
    # The alphanumeric CNPJ (IN RFB nº 2.229/2024) is accepted.
    central = organisations.save_organisation(clerk, coop("Central Moto Express", "12.ABC.345/01DE-35",
                                                          OrganisationKind.CENTRAL))
    assert central.cnpj == "12ABC34501DE35" and central.kind.label == "Central de Serviço"
    updated = organisations.save_organisation(clerk, coop(name="Coopmoto Patrocínio"), organisation_id=row.id,
                                              expected_version=row.version)
    assert updated.name == "Coopmoto Patrocínio" and updated.version == row.version + 1
    with raises_code(MotodeskError, "conflict"):
        organisations.save_organisation(clerk, coop(name="Velha"), organisation_id=row.id,
                                        expected_version=row.version)
    assert [o.name for o in organisations.list_organisations(inspector)] == ["Central Moto Express",
                                                                            "Coopmoto Patrocínio"]
    assert [o.name for o in organisations.list_organisations(inspector, "11.222")] == ["Coopmoto Patrocínio"]
    assert [o.name for o in organisations.list_organisations(inspector, "express")] == ["Central Moto Express"]
    with pytest.raises(PermissionDeniedError):
        organisations.save_organisation(inspector, coop(cnpj="11.444.777/0001-61"))


def test_holders_join_and_may_always_leave(ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    org = organisations.save_organisation(clerk, coop())
    ana_id, ana_permit = holder(ctx, supervisor, "Ana Beatriz Costa")
    bruno_id, _bruno_permit = holder(ctx, supervisor, "Bruno Henrique Dias", ServiceType.MOTOFRETE)
    applicant = make_dossier(ctx, name="Carlos Sem Permissão")

    with raises_rule("art9_holder"):
        organisations.join_organisation(clerk, org.id, applicant.person_id)
    joined = organisations.join_organisation(clerk, org.id, ana_id, on=TODAY - timedelta(days=90))
    assert (joined.name, joined.permit_number, joined.joined_on, joined.current) == (
        "Ana Beatriz Costa", ana_permit.number, TODAY - timedelta(days=90), True)
    with raises_code(MotodeskError, "organisation.already_member"):
        organisations.join_organisation(clerk, org.id, ana_id)
    bruno = organisations.join_organisation(clerk, org.id, bruno_id)
    assert organisations.get_organisation(clerk, org.id).members == 2
    assert [m.name for m in organisations.list_members(clerk, org.id)] == ["Ana Beatriz Costa", "Bruno Henrique Dias"]

    # Leaving is a right at any time (Art. 9º, § 3º): even with the permit revoked.
    revoke_through_process(supervisor, ana_permit.id)
    with raises_code(InvalidInputError, "invalid_input", fields=("left_on",)):
        organisations.leave_organisation(clerk, joined.affiliation_id, on=TODAY - timedelta(days=91))
    left = organisations.leave_organisation(clerk, joined.affiliation_id)
    assert left.left_on == TODAY and not left.current
    with raises_code(MotodeskError, "organisation.already_left"):
        organisations.leave_organisation(clerk, joined.affiliation_id)
    assert [m.name for m in organisations.list_members(clerk, org.id)] == ["Bruno Henrique Dias"]
    assert [(m.name, m.current) for m in organisations.list_members(clerk, org.id, include_former=True)] == [
        ("Bruno Henrique Dias", True), ("Ana Beatriz Costa", False)]
    assert [(m.organisation, m.joined_on, m.left_on) for m in organisations.person_affiliations(clerk, ana_id)] == [
        ("Cooperativa dos Mototaxistas de Patrocínio", TODAY - timedelta(days=90), TODAY)]

    # Bruno leaves and joins again later: two affiliations with their dates.
    organisations.leave_organisation(clerk, bruno.affiliation_id)
    organisations.join_organisation(clerk, org.id, bruno_id)
    assert [m.current for m in organisations.person_affiliations(clerk, bruno_id)] == [True, False]


def test_the_members_register_is_exported(ctx: AppContext, clerk: AppContext, supervisor: AppContext,
                                          tmp_path: Path) -> None:
    org = organisations.save_organisation(clerk, coop())
    assoc = organisations.save_organisation(clerk, coop("Associação dos Motoboys", "11.444.777/0001-61",
                                                        OrganisationKind.ASSOCIATION))
    ana_id, ana_permit = holder(ctx, supervisor, "Ana Beatriz Costa")
    bruno_id, _ = holder(ctx, supervisor, "Bruno Henrique Dias")
    organisations.join_organisation(clerk, org.id, ana_id, on=TODAY - timedelta(days=10))
    left = organisations.join_organisation(clerk, org.id, bruno_id, on=TODAY - timedelta(days=9))
    organisations.leave_organisation(clerk, left.affiliation_id)
    organisations.join_organisation(clerk, assoc.id, bruno_id)

    with pytest.raises(PermissionDeniedError):
        organisations.export_members(clerk, tmp_path / "x.xlsx")
    path = tmp_path / "filiados.xlsx"
    assert organisations.export_members(supervisor, path, organisation_id=org.id) == 2
    sheet = load_workbook(path).active
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[0][0].startswith("Filiados a organizações (Art. 9º)")
    assert rows[1] == ("Organização", "Tipo", "CNPJ", "Filiado", "CPF", "Permissão", "Serviço", "Desde", "Até")
    ana = rows[2]
    assert ana[:4] == ("Cooperativa dos Mototaxistas de Patrocínio", "Cooperativa", COOP_CNPJ, "Ana Beatriz Costa")
    assert ana[5:7] == (ana_permit.number, "Motoboy") and ana[7].date() == TODAY - timedelta(days=10)
    assert ana[8] is None
    assert rows[3][3] == "Bruno Henrique Dias" and rows[3][8].date() == TODAY
    current_only = tmp_path / "atuais.xlsx"
    assert organisations.export_members(supervisor, current_only, include_former=False) == 2
    names = [r[0] for r in list(load_workbook(current_only).active.iter_rows(values_only=True))[2:]]
    assert names == ["Associação dos Motoboys", "Cooperativa dos Mototaxistas de Patrocínio"]
