"""Values that Lei nº 4.883/2017 leaves to a Decree, to the IBGE or to the secretariat.

The law fixes some numbers itself (21 years of age, 2 years of category A,
125–250 cc, 5 years of useful life, 5-year term, 1-year registration, 15 days to
deregister a deputy, 5 days to report an accident, 1 permit per 2,000
inhabitants, 5 UFM for Art. 32): those live as named constants in the rule
modules, next to the article they come from.

Everything else — what "recente" means for a photo or a proof of residence,
fine amounts in UFM, the value of the UFM, defence and appeal periods,
municipal holidays, the population figure — is a field of :class:`LawSettings`.
The defaults below seed the application's settings table; fields listed in
:data:`PLACEHOLDER_FIELDS` have no official value yet and must be confirmed by
an administrator once the regulating Decree (Art. 34, parágrafo único; Art. 41)
is published.

Each field carries ``metadata`` with the article it serves and a pt_BR label, so
the settings screen and ``docs/rules.md`` can show them without repeating
ourselves (see :func:`describe_settings`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import date, time
from decimal import Decimal
from typing import Any

from motodesk.rules.fees import DEFAULT_LEGAL_BASIS, Fee, FeeAct, fee_problems
from motodesk.rules.infractions import Penalty, Severity
from motodesk.rules.text import parse_day

#: Until the secretariat publishes its page: an address on the prefeitura's domain, to be confirmed.
DEFAULT_VERIFIER_BASE_URL = "https://verificar.patrocinio.mg.gov.br/cracha/"


def _setting(default: Any, article: str, label: str) -> Any:
    return field(default=default, metadata={"article": article, "label": label})


@dataclass(frozen=True)
class LawSettings:
    """Decree-left and local parameters of the rules, with their defaults."""

    # --- The municipality -------------------------------------------------------------
    municipality: str = _setting(
        "Patrocínio", "Art. 5º, § 1º, I; Art. 12, parágrafo único", "Município de registro do CRLV"
    )
    uf: str = _setting("MG", "Art. 5º, § 1º, I", "UF do município (feriados estaduais, CRLV)")

    # --- Quota of mototáxi permits --------------------------------------------------------
    population: int = _setting(89_826, "Art. 10, I", "População do município (IBGE)")
    population_year: int = _setting(2022, "Art. 10, I", "Ano de referência da população (IBGE)")

    # --- What "recente" and "renovado" mean for the applicant's documents -----------------
    photo_max_age_days: int = _setting(180, "Art. 5º, IX", "Idade máxima da foto 3x4 (dias)")
    proof_of_residence_max_days: int = _setting(
        90, "Art. 5º, X", "Idade máxima do comprovante de residência (dias)"
    )
    medical_valid_years: int = _setting(
        1,
        "Art. 5º, VII e § 2º; Código Civil, art. 132, § 3º",
        "Validade do atestado médico (anos; a lei diz 'renovado anualmente')",
    )
    criminal_valid_years: int = _setting(
        5, "Art. 5º, XI", "Validade das certidões criminais (anos; a lei diz 'a cada 05 anos')"
    )

    # A document a Decree adds after holders were registered: "tipo=dd/mm/aaaa", the day from which
    # its absence refuses printing (until then it is a pending item; see ``documents_declared``).
    requirement_starts: tuple[str, ...] = _setting(
        (), "Art. 5º; Decreto regulamentador",
        "Início da exigência de documento novo ao cadastro existente (tipo=dd/mm/aaaa; …)"
    )

    # --- The vehicle ----------------------------------------------------------------------
    crlv_previous_year_accepted_until_month: int = _setting(
        3,
        "Art. 5º, § 1º, I",
        "CRLV do exercício anterior aceito até o fim deste mês (calendário do DETRAN)",
    )
    periodic_inspection_months: int | None = _setting(
        None,
        "Art. 5º, § 6º",
        "Intervalo das vistorias periódicas de mototáxi e motoboy (meses; vazio = só quando convocadas)",
    )
    # How long an approved inspection stays valid (Art. 5º, § 6º; Art. 23).  Moto-frete: the law
    # asks for a yearly inspection (Art. 23), so 12 months.  Mototáxi and motoboy: the law speaks of
    # "vistorias semestrais" at the secretariat's discretion (Art. 5º, § 6º); 6 months is the period
    # that word names, so an approved inspection of these services is valid for one semester.
    inspection_valid_months_mototaxi: int = _setting(
        6, "Art. 5º, § 6º", "Validade da vistoria aprovada de mototáxi (meses; vistorias semestrais)"
    )
    inspection_valid_months_motoboy: int = _setting(
        6, "Art. 5º, § 6º", "Validade da vistoria aprovada de motoboy (meses; vistorias semestrais)"
    )
    inspection_valid_months_motofrete: int = _setting(
        12, "Art. 23; Art. 5º, § 6º", "Validade da vistoria aprovada de moto-frete (meses; inspeção anual)"
    )
    reinspection_days: int = _setting(
        30, "Art. 5º, § 1º, II; Art. 5º, § 6º", "Prazo para nova vistoria após reprovação (dias)"
    )

    # --- Enforcement: procedure (Art. 29 § 3º, Art. 34 parágrafo único) ---------------------
    defence_period_days: int = _setting(
        15, "Art. 29, § 3º; Art. 34, parágrafo único", "Prazo de defesa após a notificação (dias)"
    )
    appeal_period_days: int = _setting(
        30, "Art. 34, parágrafo único", "Prazo de recurso após a decisão (dias)"
    )
    repeat_offence_window_days: int = _setting(
        365, "Art. 33, parágrafo único; Art. 34", "Janela de reincidência (dias)"
    )
    business_days: bool = _setting(
        False,
        "Art. 34, parágrafo único",
        "Prazos do processo (defesa, recurso, nova vistoria) contados em dias úteis",
    )
    roll_forward_to_business_day: bool = _setting(
        True,
        "Lei federal nº 9.784/1999, art. 66, § 1º (subsidiária)",
        "Prazo que vence em dia sem expediente é prorrogado para o primeiro dia útil seguinte",
    )
    municipal_holidays: tuple[date, ...] = _setting(
        (), "Art. 34, parágrafo único", "Feriados municipais e pontos facultativos decretados"
    )
    deadline_notice_days: int = _setting(
        30, "Art. 4º, § 2º", "Antecedência com que os vencimentos são avisados (dias)"
    )
    suspension_effective_on_first_decision: bool = _setting(
        True,
        "Art. 34, parágrafo único; Lei federal nº 9.784/1999, art. 61 (subsidiária)",
        "A suspensão vale desde a decisão de 1ª instância (o recurso não tem efeito suspensivo)",
    )
    revocation_effective_on_first_decision: bool = _setting(
        False,
        "Art. 34, parágrafo único; Lei federal nº 9.784/1999, art. 61, parágrafo único (subsidiária)",
        "A cassação vale desde a decisão de 1ª instância (padrão: só quando a decisão for definitiva)",
    )

    # --- Enforcement: amounts (Art. 34, II and parágrafo único) -----------------------------
    ufm_value_brl: Decimal = _setting(
        Decimal("100.00"), "Art. 32; Art. 34, parágrafo único", "Valor da UFM (R$)"
    )
    fine_ufm_leve: Decimal = _setting(Decimal("1"), "Art. 33, I; Art. 34, II", "Multa de infração leve (UFM)")
    fine_ufm_media: Decimal = _setting(
        Decimal("2"), "Art. 33, II; Art. 34, II", "Multa de infração média (UFM)"
    )
    fine_ufm_grave: Decimal = _setting(
        Decimal("3"), "Art. 33, III; Art. 34, II", "Multa de infração grave (UFM)"
    )
    fine_ufm_gravissima: Decimal = _setting(
        Decimal("4"), "Art. 33, IV; Art. 34, II", "Multa de infração gravíssima (UFM)"
    )

    # --- Enforcement: which penalties each classification admits (Art. 34) ------------------
    penalties_leve: tuple[Penalty, ...] = _setting(
        (Penalty.WARNING, Penalty.FINE), "Art. 33, I; Art. 34", "Penalidades para infração leve"
    )
    penalties_media: tuple[Penalty, ...] = _setting(
        (Penalty.WARNING, Penalty.FINE), "Art. 33, II; Art. 34", "Penalidades para infração média"
    )
    penalties_grave: tuple[Penalty, ...] = _setting(
        (Penalty.FINE, Penalty.SUSPENSION), "Art. 33, III; Art. 34", "Penalidades para infração grave"
    )
    penalties_gravissima: tuple[Penalty, ...] = _setting(
        (Penalty.FINE, Penalty.SUSPENSION, Penalty.REVOCATION),
        "Art. 33, IV; Art. 34",
        "Penalidades para infração gravíssima",
    )

    # --- The yearly re-registration campaign (Art. 4º, § 1º; Art. 5º, § 2º; Art. 30, Grupo 1, I–II) ---
    campaign_slots_per_day: int = _setting(
        16, "Art. 4º, § 1º; Art. 5º, § 2º", "Recadastramento: atendimentos por dia útil no balcão"
    )
    campaign_slot_minutes: int = _setting(
        20, "Art. 4º, § 1º; Art. 5º, § 2º", "Recadastramento: duração de cada atendimento (minutos)"
    )
    campaign_opening_hours: tuple[str, ...] = _setting(
        ("08:00-11:30", "13:00-17:00"),
        "Art. 4º, § 1º; Art. 5º, § 2º",
        "Recadastramento: horário de atendimento do balcão (faixas HH:MM-HH:MM)",
    )
    campaign_place: str = _setting(
        "SESTRAN – Setor de Cadastro, Prefeitura Municipal de Patrocínio",
        "Art. 4º, § 1º",
        "Recadastramento: local do atendimento impresso na carta de convocação",
    )

    # --- LGPD: how long personal data of people with no business is kept -----------------------
    retention_years: int = _setting(
        5,
        "LGPD (Lei nº 13.709/2018), art. 15, I, e art. 16",
        "Anos sem permissão, requerimento ou processo de infração após os quais os dados pessoais "
        "podem ser anonimizados",
    )
    # --- The public badge verifier (Art. 13, VI: the badge identifies the holder to passengers) ----
    verifier_base_url: str = _setting(
        DEFAULT_VERIFIER_BASE_URL,
        "Art. 13, VI; Art. 5º, § 4º",
        "Endereço da página pública de verificação dos crachás (https://…), para onde aponta o código QR",
    )
    # --- Fees of the counter's acts (Art. 6º, § 6º: "a título oneroso") -----------------------
    fee_application_brl: Decimal = _setting(Decimal("0.00"), "Art. 6º, § 6º", "Taxa de requerimento (R$; 0 = sem taxa)")
    fee_application_basis: str = _setting(DEFAULT_LEGAL_BASIS, "Art. 6º, § 6º", "Base legal da taxa de requerimento")
    fee_issue_brl: Decimal = _setting(Decimal("0.00"), "Art. 6º, § 6º", "Taxa de emissão da permissão ou autorização (R$; 0 = sem taxa)")
    fee_issue_basis: str = _setting(DEFAULT_LEGAL_BASIS, "Art. 6º, § 6º", "Base legal da taxa de emissão da permissão ou autorização")
    fee_renewal_brl: Decimal = _setting(Decimal("0.00"), "Art. 6º, § 6º", "Taxa de renovação do registro (R$; 0 = sem taxa)")
    fee_renewal_basis: str = _setting(DEFAULT_LEGAL_BASIS, "Art. 6º, § 6º", "Base legal da taxa de renovação do registro")
    fee_extension_brl: Decimal = _setting(Decimal("0.00"), "Art. 6º, § 6º", "Taxa de prorrogação do prazo (R$; 0 = sem taxa)")
    fee_extension_basis: str = _setting(DEFAULT_LEGAL_BASIS, "Art. 6º, § 6º", "Base legal da taxa de prorrogação do prazo")
    fee_badge_copy_brl: Decimal = _setting(Decimal("0.00"), "Art. 6º, § 6º", "Taxa de segunda via do crachá (R$; 0 = sem taxa)")
    fee_badge_copy_basis: str = _setting(DEFAULT_LEGAL_BASIS, "Art. 6º, § 6º", "Base legal da taxa de segunda via do crachá")
    fee_inspection_brl: Decimal = _setting(Decimal("0.00"), "Art. 6º, § 6º", "Taxa de vistoria (R$; 0 = sem taxa)")
    fee_inspection_basis: str = _setting(DEFAULT_LEGAL_BASIS, "Art. 6º, § 6º", "Base legal da taxa de vistoria")

    def __post_init__(self) -> None:
        problems: list[str] = []
        for name in (
            "population",
            "photo_max_age_days",
            "proof_of_residence_max_days",
            "medical_valid_years",
            "criminal_valid_years",
            "reinspection_days",
            "defence_period_days",
            "appeal_period_days",
            "repeat_offence_window_days",
            "deadline_notice_days",
        ):
            if getattr(self, name) < 0:
                problems.append(f"{_label(name)} não pode ser negativo")
        problems += _document_problems(self)
        if self.campaign_slots_per_day < 1:
            problems.append(f"{_label('campaign_slots_per_day')} deve ser de pelo menos 1")
        if self.campaign_slot_minutes < 5:
            problems.append(f"{_label('campaign_slot_minutes')} deve ser de pelo menos 5 minutos")
        try:
            if not opening_windows(self.campaign_opening_hours):
                problems.append(f"{_label('campaign_opening_hours')}: informe ao menos uma faixa")
        except ValueError as exc:
            problems.append(f"{_label('campaign_opening_hours')}: {exc}")
        if self.retention_years < 1:
            problems.append(f"{_label('retention_years')} deve ser de pelo menos 1 ano")
        if not 1 <= self.crlv_previous_year_accepted_until_month <= 12:
            problems.append(f"{_label('crlv_previous_year_accepted_until_month')} deve ser um mês de 1 a 12")
        for service in ("mototaxi", "motoboy", "motofrete"):
            name = f"inspection_valid_months_{service}"
            if getattr(self, name) <= 0:
                problems.append(f"{_label(name)} deve ser positiva")
        if self.periodic_inspection_months is not None and self.periodic_inspection_months <= 0:
            problems.append(f"{_label('periodic_inspection_months')} deve ser positivo ou vazio")
        for severity in Severity:
            if self.fine_ufm(severity) < 0:
                problems.append(f"A multa de infração {severity.label.lower()} não pode ser negativa")
            if not self.penalties(severity):
                problems.append(f"Informe ao menos uma penalidade para infração {severity.label.lower()}")
        url = self.verifier_base_url
        if (not isinstance(url, str) or not url.startswith("https://") or len(url) > 120 or "#" in url
                or any(ch.isspace() or not ch.isprintable() or not ch.isascii() for ch in url)
                or len(url) <= len("https://")):
            problems.append(f"{_label('verifier_base_url')} deve ser um endereço https:// sem espaços nem '#', "
                            "de até 120 caracteres")
        if self.ufm_value_brl < 0:
            problems.append("O valor da UFM não pode ser negativo")
        for act in FeeAct:
            fee = self.fee(act)
            problems.extend(p.rstrip(".") for p in fee_problems(act, fee.amount, fee.legal_basis).values())
        if problems:
            raise ValueError("Configuração inválida: " + "; ".join(problems) + ".")

    def requirement_start(self, kind: str) -> date | None:
        """The start of the transition of a document added to the dossier (None: required already)."""
        for entry in self.requirement_starts:
            name, _, when = entry.partition("=")
            if name.strip() == kind:
                return _parse_day(when)
        return None

    def fine_ufm(self, severity: Severity) -> Decimal:
        """Fine in UFM for an infraction of this classification (Art. 34, II)."""
        value: Decimal = getattr(self, f"fine_ufm_{severity.value}")
        return value

    def fee(self, act: FeeAct) -> Fee:
        """The fee of ``act`` and its legal basis (Art. 6º, § 6º)."""
        amount: Decimal = getattr(self, f"fee_{act.value}_brl")
        basis: str = getattr(self, f"fee_{act.value}_basis")
        return Fee(act, amount, basis)

    def fee_table(self) -> dict[FeeAct, Fee]:
        """Every act's fee (Art. 6º, § 6º)."""
        return {act: self.fee(act) for act in FeeAct}

    def penalties(self, severity: Severity) -> tuple[Penalty, ...]:
        """Penalties the Decree admits for this classification (Art. 34)."""
        value: tuple[Penalty, ...] = getattr(self, f"penalties_{severity.value}")
        return value


def _parse_day(text: str) -> date:
    """``dd/mm/aaaa`` or ``aaaa-mm-dd``; ValueError otherwise."""
    return parse_day(text, iso=True)


def _document_problems(settings: LawSettings) -> list[str]:
    """The declared documents' settings: a validity within the law's bound, transitions readable."""
    from motodesk.rules import documents_declared

    problems = []
    for name, bound in documents_declared.validity_bounds().items():
        if getattr(settings, name) > bound:
            problems.append(f"{_label(name)} não pode passar de {bound} (limite da lei)")
    for entry in settings.requirement_starts:
        kind, sep, when = entry.partition("=")
        try:
            if not sep:
                raise ValueError
            _parse_day(when)
        except ValueError:
            problems.append(f"{_label('requirement_starts')}: “{entry}” não está no formato tipo=dd/mm/aaaa")
            continue
        if documents_declared.declaration(kind.strip()) is None:
            problems.append(f"{_label('requirement_starts')}: documento “{kind.strip()}” não declarado")
    return problems


def opening_windows(ranges: tuple[str, ...]) -> tuple[tuple[time, time], ...]:
    """``("08:00-11:30", "13:00-17:00")`` as (start, end) pairs in order; ValueError in pt_BR when malformed."""
    windows: list[tuple[time, time]] = []
    for text in ranges:
        parts = text.replace("–", "-").replace(" ", "").split("-")
        try:
            if len(parts) != 2:
                raise ValueError
            start, end = (time.fromisoformat(p) for p in parts)
        except ValueError:
            raise ValueError(f"faixa '{text}' não está no formato HH:MM-HH:MM") from None
        if end <= start:
            raise ValueError(f"a faixa '{text}' termina antes de começar")
        if windows and start < windows[-1][1]:
            raise ValueError(f"a faixa '{text}' se sobrepõe à anterior ou está fora de ordem")
        windows.append((start, end))
    return tuple(windows)


#: Fields whose defaults are stand-ins until the Decree of Art. 34, parágrafo
#: único (and the yearly UFM act) is published: an administrator must confirm them.
PLACEHOLDER_FIELDS: tuple[str, ...] = (
    "ufm_value_brl",
    "fine_ufm_leve",
    "fine_ufm_media",
    "fine_ufm_grave",
    "fine_ufm_gravissima",
    "penalties_leve",
    "penalties_media",
    "penalties_grave",
    "penalties_gravissima",
    "defence_period_days",
    "appeal_period_days",
    "repeat_offence_window_days",
    *(f"fee_{act.value}_brl" for act in FeeAct),
    "suspension_effective_on_first_decision",
    "revocation_effective_on_first_decision",
)


@dataclass(frozen=True)
class SettingDescription:
    """One row of the settings table: key, article served, pt_BR label and default."""

    name: str
    article: str
    label: str
    default: Any
    placeholder: bool


def describe_settings() -> list[SettingDescription]:
    """Every field of :class:`LawSettings` with its article, label and default."""
    return [
        SettingDescription(
            name=f.name,
            article=f.metadata["article"],
            label=f.metadata["label"],
            default=f.default,
            placeholder=f.name in PLACEHOLDER_FIELDS,
        )
        for f in fields(LawSettings)
    ]


def _label(name: str) -> str:
    for f in fields(LawSettings):
        if f.name == name:
            label: str = f.metadata["label"]
            return label
    raise KeyError(name)


@dataclass(frozen=True)
class LawBound:
    """What the law itself allows a setting to be: the period it fixes, or the longest it admits."""

    minimum: int
    maximum: int | None
    article: str
    #: pt_BR, completes "a lei ..." in the refusal
    sentence: str


#: The periods the Lei nº 4.883/2017 fixes or bounds: a setting outside them is refused on the field.
LAW_BOUNDS: dict[str, LawBound] = {
    "medical_valid_years": LawBound(1, 1, "Art. 5º, VII e § 2º; Art. 30, Grupo 1, I",
                                    "manda renovar o atestado médico anualmente: a validade é de 1 ano"),
    "criminal_valid_years": LawBound(5, 5, "Art. 5º, XI",
                                     "fixa a renovação das certidões criminais a cada 5 anos"),
    "inspection_valid_months_mototaxi": LawBound(1, 6, "Art. 5º, § 6º",
                                                 "prevê vistorias semestrais: no máximo 6 meses"),
    "inspection_valid_months_motoboy": LawBound(1, 6, "Art. 5º, § 6º",
                                                "prevê vistorias semestrais: no máximo 6 meses"),
    "inspection_valid_months_motofrete": LawBound(1, 12, "Art. 23",
                                                  "exige inspeção anual do moto-frete: no máximo 12 meses"),
    "periodic_inspection_months": LawBound(1, 6, "Art. 5º, § 6º",
                                           "prevê vistorias semestrais: intervalo de no máximo 6 meses"),
    "defence_period_days": LawBound(1, None, "Art. 29, § 3º",
                                    "resguarda ao autuado o direito de defesa: o prazo não pode ser de 0 dias"),
    "appeal_period_days": LawBound(1, None, "Art. 34, parágrafo único",
                                   "prevê recurso da decisão: o prazo não pode ser de 0 dias"),
}


def law_bound_problems(values: dict[str, Any]) -> dict[str, str]:
    """field -> pt_BR refusal with its article, for each value outside what the law allows."""
    problems: dict[str, str] = {}
    for name, value in values.items():
        bound = LAW_BOUNDS.get(name)
        if bound is None or value is None or isinstance(value, bool) or not isinstance(value, int):
            continue
        if value < bound.minimum or (bound.maximum is not None and value > bound.maximum):
            allowed = (f"{bound.minimum}" if bound.maximum == bound.minimum
                       else f"de {bound.minimum} a {bound.maximum}" if bound.maximum is not None
                       else f"pelo menos {bound.minimum}")
            problems[name] = (f"{bound.article}: a lei {bound.sentence}; {_label(name)} deve ser {allowed} "
                              f"(informado: {value}).")
    return problems
