"""Infractions, their classification and penalties (Art. 15, 29–35).

The catalogue reproduces, item by item, the text of:

* Art. 30 — conduct of holders in service, groups 1 to 4;
* Art. 31 — duties of holders towards the secretariat, groups 1 to 4;
* Art. 32 — mototáxi without permit: 5 UFM fine and seizure of the vehicle;
* Art. 15, parágrafo único — advertising on public property: revocation.

Classification (Art. 33): group 1 is *leve*, 2 *média*, 3 *grave*, 4
*gravíssima*.  Art. 33, parágrafo único lets SESTRAN give a different
classification "atenuando-a ou agravando-a, levando-se em consideração as
circunstâncias e as conseqüências do fato".  The law sets no limit of steps, so
:func:`reclassify` accepts any other classification, but only with a written
reason (the circumstances and consequences the law asks to weigh).

Penalties (Art. 34), in increasing gravity: written warning, fine, suspension,
revocation.  The law does not say which penalty fits which classification: it
leaves "as regras de apuração, aplicação das multas e recursos" to a Decree
(Art. 34, parágrafo único).  Until that Decree, the mapping and the fine
amounts are settings (:class:`~motodesk.rules.settings.LawSettings`), with
these defaults: leve and média → warning or fine; grave → fine or suspension;
gravíssima → fine, suspension or revocation.  The law itself fixes the penalty
of Art. 32 (5 UFM and seizure), of Art. 15 (revocation) and of Art. 35 (final
criminal conviction → revocation, see :mod:`motodesk.rules.lifecycle`); those
do not depend on the settings and cannot be reclassified.

Art. 25 (employers of moto-frete riders) is kept apart from the catalogue of
holders' infractions (:data:`EMPLOYER_CATALOGUE`): its offender is the employer
or whoever contracts a continued moto-frete service (Art. 25, parágrafo único),
an organisation, never a holder or a deputy; which penalties reach it is judged
in :mod:`motodesk.rules.enforcement`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum
from typing import TYPE_CHECKING

from motodesk.rules.text import fold

if TYPE_CHECKING:
    from motodesk.rules.settings import LawSettings

#: Art. 32: "multa de 05 UFMs (cinco Unidades Fiscais do Município)".
UNLICENSED_MOTOTAXI_FINE_UFM = Decimal("5")
#: Art. 32 (mototáxi without permit) is not a group of Art. 33: reports count it apart.
UNLICENSED_CODE = "32"


class Severity(StrEnum):
    """Classification of an administrative infraction (Art. 33)."""

    LEVE = "leve"
    MEDIA = "media"
    GRAVE = "grave"
    GRAVISSIMA = "gravissima"

    @property
    def label(self) -> str:
        return {"leve": "Leve", "media": "Média", "grave": "Grave", "gravissima": "Gravíssima"}[self.value]

    @property
    def group(self) -> int:
        """Art. 33: I leves (Grupo 1) … IV gravíssimas (Grupo 4)."""
        return {"leve": 1, "media": 2, "grave": 3, "gravissima": 4}[self.value]

    @property
    def article(self) -> str:
        return {
            "leve": "Art. 33, I",
            "media": "Art. 33, II",
            "grave": "Art. 33, III",
            "gravissima": "Art. 33, IV",
        }[self.value]

    @classmethod
    def from_group(cls, group: int) -> Severity:
        for severity in cls:
            if severity.group == group:
                return severity
        raise ValueError(f"Grupo de infração inexistente: {group}.")


class Penalty(StrEnum):
    """Penalties of Art. 34, declared in increasing gravity."""

    WARNING = "warning"
    FINE = "fine"
    SUSPENSION = "suspension"
    REVOCATION = "revocation"

    @property
    def label(self) -> str:
        return {
            "warning": "Advertência por escrito",
            "fine": "Multa",
            "suspension": "Suspensão",
            "revocation": "Cassação",
        }[self.value]

    @property
    def rank(self) -> int:
        """1 (warning) to 4 (revocation): Art. 34 "em ordem de gravidade crescente"."""
        return list(Penalty).index(self) + 1

    @property
    def article(self) -> str:
        return f"Art. 34, {('I', 'II', 'III', 'IV')[self.rank - 1]}"


@dataclass(frozen=True)
class Infraction:
    """One item of the catalogue, with the law's own words.

    ``group`` is the group of Art. 30/31 (1–4); it is 0 for the items outside
    those groups (Art. 15 and Art. 32), whose penalty the law fixes itself:
    ``fixed_fine_ufm``, ``vehicle_seizure`` and ``fixed_penalty`` say which.
    Those items are shown as *gravíssima* only for ordering and display.
    """

    code: str
    article: str
    text: str
    group: int
    severity: Severity
    fixed_fine_ufm: Decimal | None = None
    vehicle_seizure: bool = False
    fixed_penalty: Penalty | None = None

    @property
    def penalty_fixed_by_law(self) -> bool:
        return self.fixed_penalty is not None


def _group(article: int, group: int, texts: Iterable[str]) -> tuple[Infraction, ...]:
    romans = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII")
    return tuple(
        Infraction(
            code=f"{article}.{group}.{romans[index]}",
            article=f"Art. {article}, Grupo {group}, {romans[index]}",
            text=text,
            group=group,
            severity=Severity.from_group(group),
        )
        for index, text in enumerate(texts)
    )


# Texts are the law's, spelling included ("físico", "retrorefletivos"), without the
# trailing punctuation of each item.
CATALOGUE: tuple[Infraction, ...] = (
    *_group(
        30,
        1,
        (
            "deixar o condutor de renovar, anualmente, o atestado médico de sanidade físico e mental",
            "deixar o condutor de renovar seu registro anualmente",
            "deixar de atualizar o endereço, junto a Secretaria Municipal de Segurança Pública Trânsito e Transportes",
            "permitir ou fumar durante o trajeto",
            "trajar-se de forma inadequada (calções, camisetas cavadas, chinelos, etc.)",
            "transportar objetos que dificultem a segurança e a acomodação do passageiro",
            "tratar com falta de urbanidade e polidez os usuários e o público em geral",
            "omitir-se quanto ao asseio próprio, do veículo ou do equipamento a ser utilizado pelo passageiro",
        ),
    ),
    *_group(
        30,
        2,
        (
            "não conduzir o usuário até o seu destino final, interrompendo voluntariamente a viagem",
            "dificultar a fiscalização por parte do pessoal credenciado pelo Município",
            "ausentar-se do veículo durante a prestação do serviço",
            "efetuar o serviço nesta modalidade de transporte em outro município",
            "destratar o usuário do serviço, ou o público durante a prestação do serviço",
            "sonegar troco",
            "abastecer o veículo, quando transportando passageiros",
        ),
    ),
    *_group(
        30,
        3,
        (
            "desacatar a fiscalização",
            "proceder de maneira incorreta ou com falta de decoro na execução do serviço",
            "movimentar o veículo sem que o usuário esteja devidamente acomodado ou tenha concluído o desembarque",
            "estacionar fora dos pontos de apoio ou provisório, quando em serviço, a fim de angariar passageiros",
            "portar-se inconvenientemente, sem compostura, sem decoro ou em desacordo com os costumes e "
            "convenções sociais e normas da moral, quando em serviço, no ponto ou fora dele",
            "disputar passageiros com outras categorias de transportes, regulamentados no município, como "
            "transporte coletivo urbano, táxi e escolar",
        ),
    ),
    *_group(
        30,
        4,
        (
            "dirigir em situação que ofereça risco à segurança do passageiro e transeuntes ou contrariando o CTB",
            "portar ou manter no veículo arma de qualquer espécie, mesmo possuindo porte",
            "dirigir o veículo quando com CNH suspenso",
            "prestar serviço em estado de embriaguez ou sob efeito de substâncias entorpecentes ou alucinógenas",
            "agredir fisicamente o passageiro",
            "angariar passageiros em ponto de ônibus ou de táxi",
        ),
    ),
    *_group(
        31,
        1,
        (
            "deixar de dar baixa, no prazo máximo de 15 (quinze) dias, no cadastro de condutores auxiliares, "
            "findo o vínculo empregatício",
            "não apresentar ou revalidar quaisquer documentos obrigatórios",
            "não manter no veículo a autorização de trânsito, expedida pela Secretaria Municipal de Segurança "
            "Pública Trânsito e Transportes",
            "não acatar determinação da Secretaria Municipal de Segurança Pública Trânsito e Transportes",
            "não manter atualizado o cadastro, inclusive de seu condutor auxiliar",
        ),
    ),
    *_group(
        31,
        2,
        (
            "não manter nos veículos os equipamentos exigidos nos termos desta Lei e demais determinações legais",
            "não comunicar a Secretaria Municipal de Segurança Pública Trânsito e Transportes qualquer acidente "
            "com o veículo, no prazo de 05(cinco) dias",
            "executar serviço com veículo em más condições de higiene e conservação",
            "permitir que o veículo circule com vida útil vencida",
        ),
    ),
    *_group(
        31,
        3,
        (
            "permitir que pessoa não autorizada conduza o veículo",
            "permutar veículos sem prévia autorização da Secretaria Municipal de Segurança Pública Trânsito e "
            "Transportes",
            "permitir que o veículo preste serviço em más condições de funcionamento e segurança",
        ),
    ),
    *_group(
        31,
        4,
        (
            "não submeter à nova vistoria, veículo reparado em decorrência de acidente, no qual tenha resultado o "
            "comprometimento da segurança",
            "não dar baixa no veículo conforme instruções previstas neste regulamento, e nos casos de "
            "substituição, cancelamento da permissão ou da autorização, cassação da autorização ou redução de "
            "frota",
            "deixar a prestação do serviço a cargo exclusivo de seu condutor auxiliar, em se tratando de "
            "permissionário",
            "ceder, emprestar ou locar a permissão",
            "manter em serviço, mototaxista(s) portador(es) de moléstia(s) contagiosa(s) ou "
            "infecto-contagiosa(s)",
        ),
    ),
    Infraction(
        code="32",
        article="Art. 32",
        text="O exercício da atividade dos profissionais em transporte de passageiros “Mototaxi”, de que "
        "trata este regulamento, sem a devida permissão expedida pela Prefeitura Municipal",
        group=0,
        severity=Severity.GRAVISSIMA,
        fixed_fine_ufm=UNLICENSED_MOTOTAXI_FINE_UFM,
        vehicle_seizure=True,
        fixed_penalty=Penalty.FINE,
    ),
    Infraction(
        code="15",
        article="Art. 15, parágrafo único",
        text="publicidade do serviço de que trata esta Lei nos telefones públicos, abrigos de ônibus, postes "
        "de iluminação, escolas, creches e outros bens públicos",
        group=0,
        severity=Severity.GRAVISSIMA,
        fixed_penalty=Penalty.REVOCATION,
    ),
)

#: Art. 25: infractions of the employer (or contractor of a continued moto-frete service), not of a holder.
#: The law gives no group of Art. 33; they are shown as *grave* for ordering and for the fine's amount.
EMPLOYER_CATALOGUE: tuple[Infraction, ...] = (
    Infraction(
        code="25.I",
        article="Art. 25, I",
        text="empregar ou manter contrato de prestação continuada de serviço com condutor de moto-frete "
        "inabilitado legalmente",
        group=0,
        severity=Severity.GRAVE,
    ),
    Infraction(
        code="25.II",
        article="Art. 25, II",
        text="fornecer ou admitir o uso de motocicleta ou motoneta para o transporte remunerado de mercadorias, "
        "que esteja em desconformidade com as exigências legais",
        group=0,
        severity=Severity.GRAVE,
    ),
)

#: Every item a notice may name: the holders' catalogue, then the employer's (Art. 25).
ALL_INFRACTIONS: tuple[Infraction, ...] = CATALOGUE + EMPLOYER_CATALOGUE

_BY_CODE: dict[str, Infraction] = {item.code: item for item in ALL_INFRACTIONS}


def infraction_by_code(code: str) -> Infraction:
    """The catalogue item with this code (``"30.2.VI"``); KeyError when there is none."""
    return _BY_CODE[code.strip().upper()]


_ROMAN = re.compile(r"^[ivx]+$")


def find_infractions(query: str, items: Iterable[Infraction] = CATALOGUE) -> list[Infraction]:
    """Catalogue items (of ``items``: the holders' catalogue unless told) matching every word of ``query``,
    in catalogue order.

    Accent- and case-insensitive.  Words are matched against the code, the
    article, the classification and the text: a word of letters matches the
    beginning of a word ("troc" finds "sonegar troco"); numbers and roman
    numerals must match whole words, so ``"30.2.VI"`` or ``"Art. 30, Grupo 2,
    VI"`` find exactly that item.  An empty query returns the whole catalogue.
    """
    words = re.findall(r"\w+", fold(query))
    found: list[Infraction] = []
    for item in items:
        haystack = set(
            re.findall(r"\w+", fold(f"{item.code} {item.article} {item.severity.label} {item.text}"))
        )
        if all(_word_matches(word, haystack) for word in words):
            found.append(item)
    return found


def _word_matches(word: str, haystack: set[str]) -> bool:
    if word.isdigit() or _ROMAN.match(word):
        return word in haystack or word.lstrip("0") in haystack
    return any(candidate.startswith(word) for candidate in haystack)


class ReclassificationError(ValueError):
    """A reclassification the law does not allow; the message is pt_BR and safe to show."""


def reclassify(
    infraction_or_severity: Infraction | Severity, new_severity: Severity, reason: str
) -> Severity:
    """Give one case a different classification (Art. 33, parágrafo único).

    The secretariat may attenuate or aggravate the classification of the
    catalogue "levando-se em consideração as circunstâncias e as conseqüências
    do fato": the reason must say which.  Any other classification is allowed
    (the law sets no limit of steps).  Items whose penalty the law fixes
    itself (Art. 15, Art. 32) cannot be reclassified.
    """
    if isinstance(infraction_or_severity, Infraction):
        if infraction_or_severity.penalty_fixed_by_law:
            raise ReclassificationError(
                f"{infraction_or_severity.article}: a penalidade é fixada pela própria lei e não admite "
                "reclassificação."
            )
        current = infraction_or_severity.severity
    else:
        current = infraction_or_severity
    if not reason or not reason.strip():
        raise ReclassificationError(
            "Art. 33, parágrafo único: informe o motivo da reclassificação (as circunstâncias e as "
            "consequências do fato)."
        )
    if new_severity is current:
        raise ReclassificationError(
            f"Art. 33, parágrafo único: a nova classificação ({new_severity.label}) é igual à prevista."
        )
    return new_severity


def allowed_penalties(severity: Severity, settings: LawSettings) -> list[Penalty]:
    """Penalties admitted for this classification (Art. 34; mapping in the settings), mildest first."""
    return sorted(set(settings.penalties(severity)), key=lambda penalty: penalty.rank)


def allowed_penalties_for(
    infraction: Infraction, settings: LawSettings, severity: Severity | None = None
) -> list[Penalty]:
    """Penalties for one catalogue item, after an optional reclassification ``severity``.

    Art. 32 admits only its fine (with seizure); Art. 15 only revocation.
    """
    if infraction.fixed_penalty is not None:
        return [infraction.fixed_penalty]
    return allowed_penalties(severity or infraction.severity, settings)


def fine_amount(severity: Severity, settings: LawSettings) -> tuple[Decimal, Decimal]:
    """The fine for this classification: ``(UFM, R$)``, reais rounded half-up to the cent."""
    ufm = settings.fine_ufm(severity)
    return ufm, _to_brl(ufm, settings)


def fine_for(
    infraction: Infraction, settings: LawSettings, severity: Severity | None = None
) -> tuple[Decimal, Decimal] | None:
    """The fine for one catalogue item: Art. 32's 5 UFM, the classification's, or None (Art. 15)."""
    if infraction.fixed_fine_ufm is not None:
        return infraction.fixed_fine_ufm, _to_brl(infraction.fixed_fine_ufm, settings)
    if infraction.fixed_penalty is not None:
        return None
    return fine_amount(severity or infraction.severity, settings)


def _to_brl(ufm: Decimal, settings: LawSettings) -> Decimal:
    return (ufm * settings.ufm_value_brl).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def is_repeat_offence(previous: Iterable[date], on: date, settings: LawSettings) -> bool:
    """True when an earlier infraction falls within the repeat-offence window before ``on``.

    The window is a setting (Art. 34, parágrafo único); the secretariat weighs
    it when choosing the penalty and when reclassifying (Art. 33, parágrafo único).
    """
    window = settings.repeat_offence_window_days
    return any(earlier < on and (on - earlier).days <= window for earlier in previous)
