"""Art. 32 and Art. 15 carry their penalty in the law itself: the notice must not invent a group."""

from __future__ import annotations

import io
from datetime import datetime

from pypdf import PdfReader

from motodesk.printing.documents import InfractionNoticeData, PersonInfo, render_infraction_notice


def test_art32_notice_prints_without_an_art33_group() -> None:
    data = InfractionNoticeData(
        notice_number="AI-0003/2026", article="Art. 32", infraction_text="Transporte remunerado sem permissão",
        group=0, occurred_at=datetime(2026, 5, 4, 10, 30), place="Praça Santa Luzia",
        offender=PersonInfo(name="Pessoa Não Cadastrada", cpf=""), description="Flagrado transportando passageiro.",
        inspector_name="Carlos Henrique Borges", offender_role="não permissionário")
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(render_infraction_notice(data))).pages)
    assert "Penalidade fixada na própria lei" in text
    assert "Grupo 4" not in text and "Gravíssima" not in text
