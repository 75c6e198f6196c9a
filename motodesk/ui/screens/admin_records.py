"""Administração's record tabs: Cópias de segurança (the last backup, a backup now, the reminder, the
check of the audit trail), Registro de acessos (the LGPD access log, filtered and exported to xlsx) and
Trilha de auditoria (the audit trail, a page at a time, filtered and exported to xlsx)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from motodesk.services import access_log, audit
from motodesk.services import backup as backups
from motodesk.services.audit import verify_audit_trail
from motodesk.services.context import AppContext
from motodesk.ui.db_settings import (
    BackupSummary,
    choose_and_start_backup,
    describe_backup_summary,
    format_size,
    read_backup_summary,
)
from motodesk.ui.formatting import format_datetime
from motodesk.ui.formkit import buddy, captioned, push_button, row
from motodesk.ui.ops import ServiceOp, load_into
from motodesk.ui.tablemodel import Column, RowTableModel
from motodesk.ui.widgets import (
    MESSAGE_STYLE,
    DateField,
    FormattedLineEdit,
    fit_columns,
    format_partial,
    mark_field,
    note_line,
    table_view,
)

ACCESS_LIMIT = 500


ACCESS_COLUMNS: list[Column[access_log.AccessEntry]] = [
    Column("at", "Data e hora", lambda e: format_datetime(e.at)),
    Column("user_login", "Usuário", lambda e: e.user_login),
    Column("person_name", "Pessoa", lambda e: e.person_name or ""),
    Column("person_cpf", "CPF", lambda e: format_partial("cpf", e.person_cpf) if e.person_cpf else ""),
    Column("kind", "Dado acessado", lambda e: e.kind_label),
    Column("record_key", "Registro", lambda e: e.record_key or ""),
    Column("screen", "Tela ou serviço", lambda e: e.screen),
    Column("workstation", "Estação", lambda e: e.workstation or ""),
]


# -- Cópias de segurança ------------------------------------------------------------------------------
class BackupsTab(QWidget):
    def __init__(self, ctx: AppContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.setObjectName("backups_tab")
        self.last = QLabel("…")
        self.last.setObjectName("last_backup")
        self.last.setWordWrap(True)
        self.last.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.contents = QLabel("…")
        self.contents.setObjectName("backup_contents")
        self.contents.setWordWrap(True)
        self.make = push_button("Fazer có&pia de segurança agora…", "make_backup", self.choose_and_backup,
                                auto_default=False)
        self.days = QSpinBox()
        self.days.setObjectName("reminder_days")
        self.days.setRange(0, 365)
        self.days.setSpecialValueText("nunca lembrar")
        self.days.setSuffix(" dia(s)")
        self.days.setButtonSymbols(QAbstractSpinBox.ButtonSymbols.UpDownArrows)
        self.save_days_button = push_button("Salvar o lembr&ete", "save_reminder", self.save_days, auto_default=False)
        self.verify_button = push_button("Conferir a &trilha de auditoria", "verify_audit", self.verify,
                                         auto_default=False)
        self.message = QLabel()
        self.message.setObjectName("backups_message")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form = QFormLayout()
        form.addRow(QLabel("Última cópia:"), self.last)
        form.addRow(QLabel("Conteúdo:"), self.contents)
        form.addRow(buddy("Lembrar a ca&da:", self.days), row(self.days, self.save_days_button, 1))
        how = QLabel(
            "<b>Como restaurar</b><ol>"
            "<li>Guarde as cópias fora deste computador (pen drive, outra máquina); cada cópia é conferida ao ser "
            "gravada e assinada pela chave desta instalação.</li>"
            "<li>Para restaurar, prepare um banco de dados <b>vazio</b> (um arquivo SQLite novo ou um banco "
            "PostgreSQL recém-criado com <code>motodesk init-db</code>).</li>"
            "<li>Em um terminal, execute <code>motodesk restore ARQUIVO.zip</code> apontando para esse banco; "
            "o MotoDesk confere a assinatura, o esquema e cada linha antes de concluir.</li>"
            "<li>Abra o MotoDesk, confira a trilha de auditoria (botão acima) e os últimos cadastros.</li></ol>")
        how.setObjectName("restore_instructions")
        how.setWordWrap(True)
        how.setTextFormat(Qt.TextFormat.RichText)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(row(self.make, self.verify_button, 1))
        layout.addWidget(self.message)
        layout.addWidget(how)
        layout.addStretch(1)
        self._op: object | None = None

    def reload(self) -> None:
        ctx = self.ctx
        load_into(self, lambda: read_backup_summary(ctx), self._loaded, key="backups")

    def _loaded(self, summary: BackupSummary) -> None:
        last, contents = describe_backup_summary(self.ctx, summary)
        self.last.setText(last)
        self.contents.setText(contents)
        self.days.setValue(summary.reminder_days)

    def save_days(self) -> None:
        ctx, days = self.ctx, self.days.value()

        def saved(_r: object) -> None:
            self.message.setStyleSheet("color: #1b5e20")
            self.message.setText("Lembrete salvo: " + ("nunca lembrar." if days == 0 else f"a cada {days} dia(s)."))

        ServiceOp(self, lambda: backups.set_reminder_days(ctx, days), busy="Salvando…", fields={"days": self.days},
                  change="settings").success(saved).run()

    def suggested_path(self) -> Path:
        from motodesk.ui.db_settings import suggested_backup_path

        return suggested_backup_path()

    def choose_and_backup(self) -> None:
        choose_and_start_backup(self, self.start_backup)

    def start_backup(self, path: Path) -> object:
        from motodesk.ui.db_settings import run_backup

        def done(result: backups.BackupResult) -> None:
            self.message.setStyleSheet("color: #1b5e20")
            self.message.setText(f"Cópia de segurança gravada em {result.path} ({format_size(result.size)}).")
            self.reload()
            self._hide_reminder()

        self._op = run_backup(self, self.ctx, path, done)
        return self._op

    def _hide_reminder(self) -> None:
        from motodesk.ui.db_settings import BackupReminderBar

        bar = self.window().findChild(BackupReminderBar, "backup_reminder")
        if bar is not None:
            ctx = self.ctx
            load_into(self, lambda: backups.backup_reminder(ctx),
                      lambda text: bar.setVisible(bool(text) and bar.isVisible()), key="reminder")

    def verify(self) -> None:
        ctx = self.ctx

        def checked(result: Any) -> None:
            self.message.setStyleSheet("color: #1b5e20" if result.intact else MESSAGE_STYLE)
            self.message.setText(result.message)

        ServiceOp(self, lambda: verify_audit_trail(ctx), busy="Conferindo a trilha de auditoria…") \
            .success(checked).run()


# -- Registro de acessos -------------------------------------------------------------------------------
def _export_path(widget: QWidget, title: str, stem: str) -> Path | None:
    """Where to write a spreadsheet (Qt's dialog, Documentos); None when cancelled."""
    from motodesk.services.clock import local_today
    from motodesk.ui.listpage import save_file_name

    return save_file_name(widget, title, f"{stem}-{local_today().isoformat()}.xlsx", "Planilhas (*.xlsx)",
                          suffix=".xlsx")


def _export_shown(tab: QWidget, where: object | None, title: str, stem: str,
                  export_to: Callable[[Path], object]) -> None:
    """Ask where to export what ``tab`` shows (not when its filter is refused: ``where`` None), then
    ``export_to`` that file."""
    if where is None:
        return
    path = _export_path(tab, title, stem)
    if path is not None:
        export_to(path)


def _day_filters(widget: QWidget, since: DateField, until: DateField) -> bool:
    """Mark an impossible date on its field; True when both are dates or empty."""
    for field in (since, until):
        problem = field.problem()
        if problem:
            mark_field(field, problem)
            field.setFocus()
            return False
        mark_field(field, None)
    return True


class AccessLogTab(QWidget):
    def __init__(self, ctx: AppContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.setObjectName("access_tab")
        self.cpf = FormattedLineEdit("cpf")
        self.cpf.setObjectName("access_cpf")
        self.cpf.setMaximumWidth(180)
        self.who = QLineEdit()
        self.who.setObjectName("access_user")
        self.who.setPlaceholderText("todos")
        self.who.setMaximumWidth(160)
        self.since = DateField()
        self.since.setObjectName("access_since")
        self.until = DateField()
        self.until.setObjectName("access_until")
        self.filter_button = push_button("&Buscar", "access_filter", self.reload, auto_default=False)
        self.export_button = push_button("E&xportar…", "access_export", self.choose_and_export, auto_default=False)
        for edit in (self.cpf, self.who, self.since, self.until):
            edit.returnPressed.connect(self.reload)
        self.model: RowTableModel[access_log.AccessEntry] = RowTableModel(ACCESS_COLUMNS)
        self.table = table_view("access_table", model=self.model)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.count = QLabel()
        self.count.setObjectName("access_count")
        filters = row(*captioned(("CPF da &pessoa:", self.cpf), ("&Quem (login):", self.who), ("De&sde:", self.since),
                                 ("A&té:", self.until)), self.filter_button, self.export_button, 1)
        note = note_line("Cada leitura de certidões criminais, atestados médicos, das suas digitalizações e de um "
                         "dossiê completo (LGPD). Somente leitura; a exportação leva todos os acessos do filtro.")
        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count)
        layout.addWidget(note)
        self._op: object | None = None

    def _filters(self) -> dict[str, Any] | None:
        if not _day_filters(self, self.since, self.until):
            return None
        cpf = "".join(ch for ch in self.cpf.text() if ch.isdigit()) or None
        return {"person_cpf": cpf, "since": self.since.value(), "until": self.until.value(),
                "user_login": self.who.text().strip() or None}

    def reload(self) -> None:
        ctx, where = self.ctx, self._filters()
        if where is None:
            return

        def loaded(entries: list[access_log.AccessEntry]) -> None:
            self.model.set_rows(entries)
            fit_columns(self.table, 260)
            more = f" (os {ACCESS_LIMIT} mais recentes)" if len(entries) >= ACCESS_LIMIT else ""
            self.count.setText(f"{len(entries)} acesso(s){more}.")

        op = ServiceOp(self, lambda: access_log.list_access(ctx, limit=ACCESS_LIMIT, **where),
                       lock=False, key="access", fields={"cpf": self.cpf})
        op.success(loaded).run()

    def choose_and_export(self) -> None:
        _export_shown(self, self._filters(), "Exportar o registro de acessos", "registro-de-acessos", self.export_to)

    def export_to(self, path: Path) -> object:
        ctx, where = self.ctx, self._filters()
        if where is None:
            return None

        def done(count: int) -> None:
            self.count.setText(f"{count} acesso(s) exportado(s) para {path}.")

        self._op = ServiceOp(self, lambda: access_log.export_access_log(ctx, path, **where),
                             busy="Exportando o registro de acessos…", fields={"cpf": self.cpf}).success(done).run()
        return self._op


# -- Trilha de auditoria -------------------------------------------------------------------------------
AUDIT_COLUMNS: list[Column[audit.AuditEntry]] = [
    Column("id", "Nº", lambda e: str(e.id)),
    Column("at", "Data e hora", lambda e: format_datetime(e.at)),
    Column("user_login", "Usuário", lambda e: e.user_login),
    Column("what", "O quê", lambda e: e.table_label),
    Column("action", "Operação", lambda e: e.action_label),
    Column("row_key", "Registro", lambda e: e.row_key),
    Column("changes", "Alterações", lambda e: e.summary, tooltip=lambda e: e.summary.replace("; ", "\n")),
]


class AuditTab(QWidget):
    """The audit trail, newest first: who, when (from and to), what (the kind of record and the
    operation), which record (its number, or a person's CPF); a page at a time, read off the GUI thread;
    the whole filtered trail exported to xlsx."""

    def __init__(self, ctx: AppContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.setObjectName("audit_tab")
        self.who = QLineEdit()
        self.who.setObjectName("audit_user")
        self.who.setPlaceholderText("todos")
        self.who.setMaximumWidth(140)
        self.since = DateField()
        self.since.setObjectName("audit_since")
        self.until = DateField()
        self.until.setObjectName("audit_until")
        self.what = QComboBox()
        self.what.setObjectName("audit_table")
        self.what.addItem("Todos", None)
        for name, label in sorted(audit.TABLE_LABELS.items(), key=lambda item: item[1]):
            self.what.addItem(label, name)
        self.action = QComboBox()
        self.action.setObjectName("audit_action")
        self.action.addItem("Todas", None)
        for key, label in audit.ACTION_LABELS.items():
            self.action.addItem(label, key)
        self.record = QLineEdit()
        self.record.setObjectName("audit_record")
        self.record.setPlaceholderText("nº ou CPF")
        self.record.setMaximumWidth(150)
        self.filter_button = push_button("&Buscar", "audit_filter", self.reload, auto_default=False)
        self.more_button = push_button("&Ver mais antigos", "audit_more", self.load_more, auto_default=False)
        self.more_button.setEnabled(False)
        self.export_button = push_button("E&xportar…", "audit_export", self.choose_and_export, auto_default=False)
        for edit in (self.who, self.since, self.until, self.record):
            edit.returnPressed.connect(self.reload)
        self.model: RowTableModel[audit.AuditEntry] = RowTableModel(AUDIT_COLUMNS)
        self.table = table_view("audit_table", model=self.model)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.count = QLabel()
        self.count.setObjectName("audit_count")
        first = row(*captioned(("&Quem (login):", self.who), ("De&sde:", self.since), ("A&té:", self.until)), 1)
        second = row(*captioned(("O qu&e:", self.what), ("O&peração:", self.action), ("Re&gistro:", self.record)),
                     self.filter_button, self.more_button, self.export_button, 1)
        note = note_line("Cada inclusão, alteração e exclusão de dados, com quem a fez e quando (somente leitura). "
                         "Senhas e chaves aparecem só como alteradas. A exportação leva toda a trilha do filtro.")
        layout = QVBoxLayout(self)
        layout.addLayout(first)
        layout.addLayout(second)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count)
        layout.addWidget(note)
        self._shown_filter: audit.AuditFilter | None = None
        self._op: object | None = None

    def current_filter(self) -> audit.AuditFilter | None:
        if not _day_filters(self, self.since, self.until):
            return None
        return audit.AuditFilter(user_login=self.who.text().strip() or None, since=self.since.value(),
                                 until=self.until.value(), table_name=self.what.currentData(),
                                 action=self.action.currentData(), record=self.record.text().strip() or None)

    def reload(self) -> None:
        ctx, where = self.ctx, self.current_filter()
        if where is None:
            return

        def loaded(entries: list[audit.AuditEntry]) -> None:
            self._shown_filter = where
            self.model.set_rows(entries)
            fit_columns(self.table, 200)  # the changes (the last column) take the rest; the tooltip all
            self._count(len(entries) >= audit.AUDIT_PAGE)

        ServiceOp(self, lambda: audit.list_audit(ctx, where, limit=audit.AUDIT_PAGE), lock=False, key="audit",
                  fields={"until": self.until}).success(loaded).run()

    def load_more(self) -> None:
        if self._shown_filter is None or not self.model.rowCount():
            return
        ctx, where = self.ctx, self._shown_filter
        oldest = self.model.row_at(self.model.rowCount() - 1).id

        def loaded(entries: list[audit.AuditEntry]) -> None:
            self.model.set_rows([*self.model.rows(), *entries])
            self._count(len(entries) >= audit.AUDIT_PAGE)

        load_into(self, lambda: audit.list_audit(ctx, where, limit=audit.AUDIT_PAGE, before_id=oldest), loaded,
                  key="audit")

    def _count(self, more: bool) -> None:
        shown = self.model.rowCount()
        self.more_button.setEnabled(more)
        tail = " (há mais antigos: Ver mais antigos)" if more else ""
        self.count.setText(f"{shown} registro(s) da trilha{tail}.")

    def choose_and_export(self) -> None:
        _export_shown(self, self.current_filter(), "Exportar a trilha de auditoria", "trilha-de-auditoria",
                      self.export_to)

    def export_to(self, path: Path) -> object:
        ctx, where = self.ctx, self.current_filter()
        if where is None:
            return None

        def done(count: int) -> None:
            self.count.setText(f"{count} registro(s) da trilha exportado(s) para {path}.")

        self._op = ServiceOp(self, lambda: audit.export_audit(ctx, path, where),
                             busy="Exportando a trilha de auditoria…",
                             fields={"until": self.until}).success(done).run()
        return self._op
