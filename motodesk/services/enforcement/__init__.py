"""Enforcement: notices of infraction, notification, defence, decisions, appeals and penalties (Art. 29–35).

The law of the process — its stages, when the defence and appeal periods run, what a decision does to
a permit or a deputy and when — is :mod:`motodesk.rules.enforcement`; this package loads, asks those
rules and stores, one module per stage:

* :mod:`.notices` — writing a notice (Art. 29, § 1º), whom it names, the later notification of an
  offender who refused to sign or was absent (§ 2º): the defence period starts then; and the
  notification of the first decision, from which the appeal period runs (Art. 34, §ún.);
* :mod:`.filings` — the defence or its waiver (Art. 29, § 3º), the appeal or its waiver (Art. 34, §ún.);
* :mod:`.decisions` — the supervisor's decision and the closing of a process; every permit or deputy
  change they cause is a session step (``permits.apply_suspend`` …, ``deputies.apply_deputy_suspend`` …)
  taken in the decision's own transaction: a failure anywhere leaves neither;
* :mod:`.judgments` — the final criminal conviction that revokes a permit (Art. 35);
* :mod:`.queries` — the list, one notice, an offender's record, the deadlines of open processes;
* :mod:`.documents` — the printed notice and the certificate of refusal.

Who does what: inspectors and supervisors write notices; clerks and supervisors record what the
offender files and how he was notified; only supervisors decide, close a process and record an Art. 35
judgment.

Everything importable from the former single module is importable from here.
"""

from motodesk.rules.enforcement import (
    ART_APPEAL,
    ART_DEFENCE,
    ART_NOTICE,
    ART_NOTIFICATION,
    ART_RECLASSIFY,
    ART_UNLICENSED,
    MAX_SUSPENSION_DAYS,
    NoticeStatus,
    NotificationMethod,
    OffenderKind,
    Outcome,
    PermitEffect,
    Signature,
    Stage,
    Target,
)
from motodesk.services.clock import LOCAL_TZ, local_time, local_today
from motodesk.services.context import READERS
from motodesk.services.enforcement import decisions, documents, filings, judgments, notices, queries
from motodesk.services.enforcement._common import (
    DECIDERS,
    DEFENCE_OWNER,
    MAX_NAME,
    MAX_PLACE,
    MAX_TEXT,
    MAX_VEHICLE_DESCRIPTION,
    RECORDERS,
    STATUS_FILTERS,
    WRITERS,
    AttachmentRef,
    DecisionInput,
    DecisionOptions,
    DecisionResult,
    DecisionView,
    FiledDocument,
    FiledRecorded,
    FiledView,
    NoticeCreated,
    NoticeInput,
    NoticeRow,
    NoticeView,
    OffenderChoice,
    ProcessDeadline,
    RepeatOffence,
    describe_penalty,
    notice_number,
)
from motodesk.services.enforcement.decisions import ProcessClosed, close_process, decide, decision_options
from motodesk.services.enforcement.documents import (
    defence_attachment,
    notice_documents,
    notice_pdf,
    refusal_certificate_pdf,
)
from motodesk.services.enforcement.filings import record_appeal, record_defence
from motodesk.services.enforcement.judgments import (
    ConvictionInput,
    ConvictionRecorded,
    ConvictionView,
    convictions_of_permit,
    record_final_conviction,
)
from motodesk.services.enforcement.notices import (
    DecisionNotified,
    NotificationInput,
    create_notice,
    find_offenders,
    record_decision_notification,
    record_notification,
)
from motodesk.services.enforcement.queries import (
    get_notice,
    list_notices,
    offender_history,
    open_process_deadlines,
)

__all__ = [
    "ART_APPEAL", "ART_DEFENCE", "ART_NOTICE", "ART_NOTIFICATION", "ART_RECLASSIFY", "ART_UNLICENSED",
    "DECIDERS", "DEFENCE_OWNER", "LOCAL_TZ", "MAX_NAME", "MAX_PLACE", "MAX_SUSPENSION_DAYS", "MAX_TEXT",
    "MAX_VEHICLE_DESCRIPTION", "READERS", "RECORDERS", "STATUS_FILTERS", "WRITERS", "AttachmentRef",
    "ConvictionInput", "ConvictionRecorded", "ConvictionView", "DecisionInput", "DecisionOptions",
    "DecisionResult", "DecisionView", "FiledDocument", "FiledRecorded", "FiledView", "NoticeCreated",
    "NoticeInput", "NoticeRow", "NoticeStatus", "NoticeView", "NotificationInput", "NotificationMethod",
    "OffenderChoice", "OffenderKind", "Outcome", "PermitEffect", "ProcessClosed", "ProcessDeadline",
    "RepeatOffence", "Signature", "Stage", "Target", "close_process", "create_notice", "convictions_of_permit", "decide",
    "decision_options", "decisions", "defence_attachment", "describe_penalty", "documents", "filings",
    "find_offenders", "get_notice", "judgments", "list_notices", "local_time", "local_today",
    "notice_documents", "notice_number", "notice_pdf", "notices", "offender_history",
    "open_process_deadlines", "queries", "record_appeal", "record_defence", "record_final_conviction",
    "record_decision_notification", "record_notification", "refusal_certificate_pdf", "DecisionNotified",
]
