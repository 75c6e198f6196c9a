"""The life of an application and of the permit it becomes (SPEC §4; Art. 4º, 5º, 6º, 10, 34, 35).

::

    REQUESTED --start_review--> UNDER_REVIEW --approve--> APPROVED --issue--> ACTIVE
    REQUESTED, UNDER_REVIEW --refuse--> REFUSED
    ACTIVE --renew_registration--> ACTIVE          (yearly, Art. 4º, § 1º)
    ACTIVE --extend--> ACTIVE                      (once, Art. 6º)
    ACTIVE --suspend--> SUSPENDED --reinstate--> ACTIVE   (Art. 34, III)
    ACTIVE, SUSPENDED --revoke--> REVOKED          (Art. 34, IV; Art. 35)
    ACTIVE, SUSPENDED --expire--> EXPIRED          (term over, Art. 6º)
    any open state --cancel--> CANCELLED           (express request, Art. 6º, § 7º)

:func:`check_transition` answers whether one user may take one transition now:
an empty list means yes; otherwise each verdict says, with its article, what
blocks it.  Role and state are checked first; when they fail, nothing else is.

What each transition requires:

* ``approve`` (supervisor) — the number of the Decree that grants the permit
  or authorization (Art. 6º: "efetivados através de Decreto do Poder
  Executivo"); the applicant's requirements met (Art. 5º, 6º § 1º, 8º); the
  vehicle's documents in order (Art. 3º, 5º § 1º); an approved inspection
  (Art. 5º, § 1º, II–III); for mototáxi, a place within the quota (Art. 10, I);
* ``issue`` (supervisor) — the same, except the Decree, which was recorded at
  approval; plus no other permit in force for the holder (Art. 6º, § 2º);
* ``refuse`` (supervisor) — a written reason;
* ``suspend``, ``revoke`` (supervisor) — a penalty is applied only through the
  administrative process (Art. 29, § 3º; Art. 34): the decided notice of
  infraction that applies it (``penalty_notice``, as loaded); suspension also needs its
  end date (Art. 34, III); a recorded final criminal conviction revokes by
  itself (Art. 35). A written reason alone never suspends nor revokes;
* ``reinstate`` (supervisor) — the suspension's days are over (the calendar
  lifts it), or a decision of the process ends it early (an appeal granted);
* ``renew_registration`` (clerk or supervisor) — the yearly renewal of the
  registration certificate (Art. 4º, § 1º) with requirements still met, the
  deputy's too when one is linked (Art. 14, § 2º); the
  service also asks :func:`check_registration_renewal_term` that the permit's
  term still runs (Art. 6º), and the renewed certificate never outlasts the term
  (:func:`renewed_certificate_valid_until`);
* ``extend`` (supervisor) — one extension only, of 5 years (Art. 6º), asked
  while the term runs, with requirements still met ("desde que atendidas as
  exigências desta Lei"), the deputy's too when one is linked (Art. 14, § 2º);
* ``cancel`` (clerk or supervisor) — the interested party's express request
  (Art. 6º, § 7º); also used when an applicant withdraws an application;
* ``expire`` (clerk, supervisor or administrator) — the term has ended.

Terms: the permit lasts 5 years from issue and may be extended once by 5 more
(Art. 6º); the registration certificate lasts 1 year, renewable for equal
periods (Art. 4º, § 1º).  Periods of years end on the anniversary of the start
(Código Civil, art. 132, § 3º; see :mod:`motodesk.rules.periods`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from motodesk.rules.common import PermitState, Role, ServiceType, Status, Verdict, not_met
from motodesk.rules.penalty_evidence import (
    ConvictionEvidence,
    NoticeEvidence,
    check_conviction_basis,
    check_notice_basis,
)
from motodesk.rules.periods import add_years
from motodesk.rules.text import format_date, join_words

#: Art. 6º: "pelo prazo máximo de 05 (cinco) anos".
PERMIT_TERM_YEARS = 5
#: Art. 6º: "podendo ser prorrogado por mais 05 (cinco) anos" — once.
EXTENSION_YEARS = 5
MAX_EXTENSIONS = 1
#: Art. 4º, § 1º: "certificado de registro cadastral com validade de 01 (um) ano".
REGISTRATION_CERTIFICATE_YEARS = 1


def permit_term_end(issued_on: date, extended: bool) -> date:
    """Last day of the permit: 5 years after issue, 10 with the one extension (Art. 6º)."""
    return add_years(issued_on, PERMIT_TERM_YEARS + (EXTENSION_YEARS if extended else 0))


def registration_certificate_valid_until(issued_or_renewed_on: date) -> date:
    """Last day of the registration certificate: 1 year after issue or renewal (Art. 4º, § 1º)."""
    return add_years(issued_or_renewed_on, REGISTRATION_CERTIFICATE_YEARS)


def renewed_certificate_valid_until(renewed_on: date, term_end: date) -> date:
    """Last day of a renewed registration certificate: 1 year after renewal (Art. 4º, § 1º), never
    beyond the last day of the permit's term (Art. 6º)."""
    return min(registration_certificate_valid_until(renewed_on), term_end)


def check_registration_renewal_term(on: date, term_end: date, service: ServiceType) -> list[Verdict]:
    """Art. 6º: the registration is renewed only while the permit's term runs; empty = it runs.

    The last day of the term still counts; from the next day there is no registration to renew.
    """
    if on > term_end:
        return [
            Verdict(
                "term",
                "Art. 6º",
                Status.NOT_MET,
                f"Art. 6º: o prazo da {service.instrument} terminou em {format_date(term_end)}; "
                "não há registro a renovar.",
            )
        ]
    return []


def is_revocation_mandatory(final_criminal_conviction: bool) -> bool:
    """Art. 35: the permit "será cassada em caso de condenação criminal transitado em julgado"."""
    return final_criminal_conviction


@dataclass(frozen=True)
class Transition:
    """A move of the state machine: from which states, to which, by whom, under which article."""

    name: str
    source: frozenset[PermitState]
    target: PermitState
    roles: frozenset[Role]
    article: str
    label: str = ""


_S = PermitState
_R = Role
_OPEN = frozenset({_S.REQUESTED, _S.UNDER_REVIEW, _S.APPROVED, _S.ACTIVE, _S.SUSPENDED})

TRANSITIONS: tuple[Transition, ...] = (
    Transition(
        "start_review",
        frozenset({_S.REQUESTED}),
        _S.UNDER_REVIEW,
        frozenset({_R.CLERK, _R.SUPERVISOR}),
        "Art. 4º",
        "Iniciar análise",
    ),
    Transition(
        "approve",
        frozenset({_S.UNDER_REVIEW}),
        _S.APPROVED,
        frozenset({_R.SUPERVISOR}),
        "Art. 6º",
        "Aprovar por Decreto",
    ),
    Transition(
        "refuse",
        frozenset({_S.REQUESTED, _S.UNDER_REVIEW}),
        _S.REFUSED,
        frozenset({_R.SUPERVISOR}),
        "Art. 6º",
        "Indeferir",
    ),
    Transition(
        "issue",
        frozenset({_S.APPROVED}),
        _S.ACTIVE,
        frozenset({_R.SUPERVISOR}),
        "Art. 4º, § 1º; Art. 5º, §§ 3º e 4º",
        "Emitir",
    ),
    Transition(
        "renew_registration",
        frozenset({_S.ACTIVE}),
        _S.ACTIVE,
        frozenset({_R.CLERK, _R.SUPERVISOR}),
        "Art. 4º, § 1º",
        "Renovar o registro",
    ),
    Transition(
        "extend",
        frozenset({_S.ACTIVE}),
        _S.ACTIVE,
        frozenset({_R.SUPERVISOR}),
        "Art. 6º",
        "Prorrogar por 5 anos",
    ),
    Transition(
        "suspend",
        frozenset({_S.ACTIVE}),
        _S.SUSPENDED,
        frozenset({_R.SUPERVISOR}),
        "Art. 34, III",
        "Suspender",
    ),
    Transition(
        "reinstate",
        frozenset({_S.SUSPENDED}),
        _S.ACTIVE,
        frozenset({_R.SUPERVISOR}),
        "Art. 34, III",
        "Encerrar a suspensão",
    ),
    Transition(
        "revoke",
        frozenset({_S.ACTIVE, _S.SUSPENDED}),
        _S.REVOKED,
        frozenset({_R.SUPERVISOR}),
        "Art. 34, IV; Art. 35",
        "Cassar",
    ),
    Transition(
        "cancel",
        _OPEN,
        _S.CANCELLED,
        frozenset({_R.CLERK, _R.SUPERVISOR}),
        "Art. 6º, § 7º",
        "Cancelar a pedido",
    ),
    Transition(
        "expire",
        frozenset({_S.ACTIVE, _S.SUSPENDED}),
        _S.EXPIRED,
        frozenset({_R.CLERK, _R.SUPERVISOR, _R.ADMIN}),
        "Art. 6º",
        "Registrar o fim do prazo",
    ),
)

_BY_NAME: dict[str, Transition] = {t.name: t for t in TRANSITIONS}


def transition(name: str) -> Transition:
    """The transition called ``name``; ValueError for an unknown name (a programming error)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"Unknown transition: {name!r}") from None


def available_transitions(current: PermitState, role: Role) -> list[Transition]:
    """Transitions this role may attempt from ``current`` (before the other conditions)."""
    return [t for t in TRANSITIONS if current in t.source and role in t.roles]


@dataclass
class TransitionContext:
    """What the conditions of a transition look at.  ``None`` = not known (blocks as pending)."""

    on: date | None = None  # reference date of the act
    service: ServiceType | None = None
    decree_number: str | None = None  # Art. 6º
    eligibility: Sequence[Verdict] | None = None  # check_applicant(...)
    vehicle: Sequence[Verdict] | None = None  # check_vehicle(...)
    inspection_approved: bool | None = None  # last inspection's outcome
    quota_open_places: int | None = None  # mototáxi places free before this issue (Art. 10, I)
    holder_permits_in_force: int | None = None  # the holder's other permits in force (Art. 6º, § 2º)
    term_start: date | None = None
    term_end: date | None = None
    extensions_used: int = 0
    reason: str | None = None
    suspension_end: date | None = None
    express_request: bool | None = None  # Art. 6º, § 7º
    #: a final criminal judgment recorded against the holder (Art. 35), as loaded from the register: it
    #: revokes (``revoke``) and blocks every act that would keep or give a permit (issue, renewal, extension)
    conviction: ConvictionEvidence | None = None
    #: the deputy's requirements judged again on ``on`` (Art. 14, § 2º), as
    #: :func:`motodesk.rules.deputies.deputy_requirements` gives them; empty when no deputy is linked
    deputy_requirements: Sequence[Verdict] = ()
    #: The decided notice of infraction that applies the penalty (Art. 29, § 3º; Art. 34), as loaded from
    #: the register (never a number typed in); the rules check its stage, its decision and its permit.
    penalty_notice: NoticeEvidence | None = None
    #: the permit the step acts on (a penalty's notice or judgment must be of this permit)
    permit_id: int | None = None

    @property
    def final_criminal_conviction(self) -> bool:
        """A recorded final judgment (Art. 35) is on file for the holder."""
        return self.conviction is not None and self.conviction.recorded


def check_transition(name: str, current: PermitState, role: Role, ctx: TransitionContext) -> list[Verdict]:
    """What blocks ``role`` from taking transition ``name`` from ``current`` now; empty = allowed."""
    move = transition(name)
    blocking: list[Verdict] = []
    if current not in move.source:
        sources = join_words([state.label for state in PermitState if state in move.source])
        blocking.append(
            _not_met(
                "state",
                move.article,
                f"“{move.label}” não se aplica no estado “{current.label}”; aplica-se a: {sources}",
            )
        )
    if role not in move.roles:
        roles = join_words([r.label for r in Role if r in move.roles])
        blocking.append(
            _not_met("role", move.article, f"“{move.label}” cabe a {roles}; o usuário é {role.label}")
        )
    if blocking:
        return blocking
    return [v for v in _CONDITIONS[name](ctx) if v.status is not Status.MET]


def is_allowed(verdicts: Sequence[Verdict]) -> bool:
    """True when :func:`check_transition` found nothing blocking."""
    return all(v.status is Status.MET for v in verdicts)


# --- Conditions, one function per transition ---------------------------------------------------


def _not_met(rule: str, article: str, sentence: str) -> Verdict:
    return not_met(f"transition_{rule}", article, f"{sentence}.")


def _pending(rule: str, article: str, sentence: str, missing: str) -> Verdict:
    return Verdict(
        f"transition_{rule}", article, Status.PENDING, f"{article}: pendente — {sentence}.", (missing,)
    )


def _instrument(ctx: TransitionContext) -> str:
    if ctx.service is None:
        return "a permissão ou autorização"
    return f"a {ctx.service.instrument}"


def _decree(ctx: TransitionContext) -> list[Verdict]:
    if ctx.decree_number is None or not ctx.decree_number.strip():
        return [
            _not_met(
                "decree",
                "Art. 6º",
                f"{_instrument(ctx)} é efetivada por Decreto do Poder Executivo; informe o número do Decreto",
            )
        ]
    return []


def _requirements(ctx: TransitionContext) -> list[Verdict]:
    """Applicant's and vehicle's verdicts, passed through when not met."""
    found: list[Verdict] = []
    if ctx.eligibility is None:
        found.append(
            _pending(
                "eligibility", "Art. 5º", "os requisitos do requerente não foram verificados", "eligibility"
            )
        )
    else:
        found.extend(v for v in ctx.eligibility if v.status is not Status.MET)
    if ctx.vehicle is None:
        found.append(
            _pending("vehicle", "Art. 3º", "os documentos do veículo não foram verificados", "vehicle")
        )
    else:
        found.extend(v for v in ctx.vehicle if v.status is not Status.MET)
    found.extend(v for v in ctx.deputy_requirements if v.status is not Status.MET)
    return found


def _inspection(ctx: TransitionContext) -> list[Verdict]:
    article = "Art. 5º, § 1º, II e III"
    if ctx.inspection_approved is None:
        return [_pending("inspection", article, "o veículo ainda não foi vistoriado", "inspection_approved")]
    if not ctx.inspection_approved:
        return [
            _not_met(
                "inspection", article, "a última vistoria reprovou o veículo; é preciso vistoria aprovada"
            )
        ]
    return []


def _quota(ctx: TransitionContext) -> list[Verdict]:
    article = "Art. 10, I"
    if ctx.service is None:
        return [
            _pending(
                "service", article, "o serviço (mototáxi, motoboy, moto-frete) não foi informado", "service"
            )
        ]
    if ctx.service is not ServiceType.MOTOTAXI:
        return []  # Art. 10, II and III: every qualified applicant
    if ctx.quota_open_places is None:
        return [
            _pending("quota", article, "o número de vagas de mototáxi não foi informado", "quota_open_places")
        ]
    if ctx.quota_open_places <= 0:
        return [
            _not_met(
                "quota",
                article,
                "não há vaga de mototáxi — todas as permissões da cota (1 para cada 2.000 habitantes) estão em vigor",
            )
        ]
    return []


def _single_permit(ctx: TransitionContext) -> list[Verdict]:
    article = "Art. 6º, § 2º"
    if ctx.holder_permits_in_force is None:
        return [
            _pending(
                "single_permit",
                article,
                "não se verificou se o titular já tem permissão ou autorização em vigor",
                "holder_permits_in_force",
            )
        ]
    if ctx.holder_permits_in_force > 0:
        return [
            _not_met(
                "single_permit",
                article,
                "o titular já tem permissão ou autorização em vigor; admite-se o cadastramento de um só veículo",
            )
        ]
    return []


def _no_conviction(ctx: TransitionContext) -> list[Verdict]:
    if is_revocation_mandatory(ctx.final_criminal_conviction):
        return [
            _not_met(
                "conviction",
                "Art. 35",
                f"há condenação criminal transitada em julgado: {_instrument(ctx)} deve ser cassada",
            )
        ]
    return []


def _reason(ctx: TransitionContext, article: str, what: str) -> list[Verdict]:
    if ctx.reason is None or not ctx.reason.strip():
        return [_not_met("reason", article, f"informe o motivo {what}")]
    return []


def _reference_date(ctx: TransitionContext, article: str) -> list[Verdict]:
    if ctx.on is None:
        return [_pending("date", article, "a data de referência não foi informada", "on")]
    return []


def _approve(ctx: TransitionContext) -> list[Verdict]:
    return [*_decree(ctx), *_requirements(ctx), *_inspection(ctx), *_quota(ctx)]


def _refuse(ctx: TransitionContext) -> list[Verdict]:
    return _reason(ctx, "Art. 6º", "do indeferimento")


def _issue(ctx: TransitionContext) -> list[Verdict]:
    return [*_requirements(ctx), *_inspection(ctx), *_quota(ctx), *_single_permit(ctx), *_no_conviction(ctx)]


def _renew_registration(ctx: TransitionContext) -> list[Verdict]:
    return [*_requirements(ctx), *_no_conviction(ctx)]


def _extend(ctx: TransitionContext) -> list[Verdict]:
    article = "Art. 6º"
    found: list[Verdict] = []
    if ctx.extensions_used >= MAX_EXTENSIONS:
        found.append(
            _not_met(
                "extension_once",
                article,
                f"{_instrument(ctx)} já foi prorrogada; a lei admite uma única prorrogação, por mais "
                f"{EXTENSION_YEARS} anos",
            )
        )
    found.extend(_reference_date(ctx, article))
    if ctx.term_end is None:
        found.append(_pending("term", article, "o fim do prazo atual não foi informado", "term_end"))
    elif ctx.on is not None and ctx.on > ctx.term_end:
        found.append(
            _not_met(
                "term",
                article,
                f"o prazo terminou em {format_date(ctx.term_end)}; só se prorroga um prazo em curso",
            )
        )
    return [*found, *_requirements(ctx), *_no_conviction(ctx)]


def _process(ctx: TransitionContext, step: str) -> list[Verdict]:
    """Art. 29, § 3º: no penalty without the administrative process — the decided notice, as the register holds it."""
    found = check_notice_basis(step, ctx.penalty_notice, permit_id=ctx.permit_id)
    if ctx.penalty_notice is None:  # keep the plain rule id of "no process at all"
        return [Verdict("transition_process", v.article, v.status, v.message) for v in found]
    return found


def _suspend(ctx: TransitionContext) -> list[Verdict]:
    article = "Art. 34, III"
    found = [*_process(ctx, "suspend"), *_reference_date(ctx, article)]
    if ctx.suspension_end is None:
        found.append(
            _pending("suspension_end", article, "informe até quando vale a suspensão", "suspension_end")
        )
    elif ctx.on is not None and ctx.suspension_end <= ctx.on:
        found.append(
            _not_met(
                "suspension_end",
                article,
                f"o fim da suspensão ({format_date(ctx.suspension_end)}) deve ser posterior a "
                f"{format_date(ctx.on)}",
            )
        )
    return found


def _reinstate(ctx: TransitionContext) -> list[Verdict]:
    article = "Art. 34, III"
    found = [*_reference_date(ctx, article)]
    if ctx.on is not None and ctx.suspension_end is not None and ctx.on < ctx.suspension_end:
        if ctx.penalty_notice is None:
            found.append(
                _not_met(
                    "suspension_end",
                    article,
                    f"a suspensão vai até {format_date(ctx.suspension_end)}; só uma decisão do processo "
                    "(recurso provido) a encerra antes",
                )
            )
        else:
            found.extend(_process(ctx, "reinstate"))
    return [*found, *_no_conviction(ctx)]


def _revoke(ctx: TransitionContext) -> list[Verdict]:
    if ctx.conviction is not None:  # Art. 35 is the reason: the recorded judgment, of this permit
        return check_conviction_basis(ctx.conviction, permit_id=ctx.permit_id)
    return _process(ctx, "revoke")


def _cancel(ctx: TransitionContext) -> list[Verdict]:
    article = "Art. 6º, § 7º"
    if ctx.express_request is None:
        return [
            _pending("express_request", article, "anexe o pedido expresso do interessado", "express_request")
        ]
    if not ctx.express_request:
        return [
            _not_met(
                "express_request", article, "o cancelamento depende de pedido expresso da parte interessada"
            )
        ]
    return []


def _expire(ctx: TransitionContext) -> list[Verdict]:
    article = "Art. 6º"
    found = _reference_date(ctx, article)
    if ctx.term_end is None:
        found.append(_pending("term", article, "o fim do prazo não foi informado", "term_end"))
    elif ctx.on is not None and ctx.on <= ctx.term_end:
        found.append(_not_met("term", article, f"o prazo vai até {format_date(ctx.term_end)}"))
    return found


_CONDITIONS: dict[str, Callable[[TransitionContext], list[Verdict]]] = {
    "start_review": lambda ctx: [],
    "approve": _approve,
    "refuse": _refuse,
    "issue": _issue,
    "renew_registration": _renew_registration,
    "extend": _extend,
    "suspend": _suspend,
    "reinstate": _reinstate,
    "revoke": _revoke,
    "cancel": _cancel,
    "expire": _expire,
}
