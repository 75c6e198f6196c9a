"""Administration of the database from the window: where it is, backups, the backup reminder.

- "Configurar banco de dados…": this workstation's choice (this computer or the server), tested
  and saved for the next start (the password in the keyring, as in the first-run wizard).
- "Cópia de segurança…": the last backup, the reminder's period, and a new backup written off the
  GUI thread with a progress dialog.
- The reminder: a bar above the pages, for administrators, when the last backup is too old.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QStandardPaths, Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressDialog,
    QPushButton,
    QRadioButton,
    QSizePolicy,
    QSpinBox,
    QToolBar,
    QWidget,
)

from motodesk import config
from motodesk.clock import LOCAL_TZ
from motodesk.config import DatabaseChoice
from motodesk.errors import DatabaseError
from motodesk.rules.common import Role
from motodesk.services import backup as backups
from motodesk.services.clock import local_now
from motodesk.services.context import AppContext
from motodesk.services.errors import MotodeskError
from motodesk.ui.errors import show_error
from motodesk.ui.formkit import column, form, named, push_button, wrapped_label
from motodesk.ui.guard import GuardedDialog
from motodesk.ui.ops import ServiceOp, load_into
from motodesk.ui.wizard import (
    LOCAL_ACCESS,
    LOCAL_LABEL,
    SERVER_ACCESS,
    SERVER_LABEL,
    ServerForm,
    describe_connection,
)

log = logging.getLogger(__name__)


def _local_time(moment: datetime) -> str:
    return moment.astimezone(LOCAL_TZ).strftime("%d/%m/%Y %H:%M")


def format_size(size: int) -> str:
    return f"{size / 1_000_000:.1f}".replace(".", ",") + " MB"


@dataclass(frozen=True)
class BackupSummary:
    """What the backup screens show: the last backup, the stored files, the reminder setting."""

    last: backups.BackupRecord | None
    blobs: tuple[int, int]  # count, bytes
    reminder_days: int


def read_backup_summary(ctx: AppContext) -> BackupSummary:
    """A service read: call it off the GUI thread (load_into)."""
    return BackupSummary(backups.last_backup(ctx), backups.blob_totals(ctx), backups.reminder_days(ctx))


def describe_backup_summary(ctx: AppContext, summary: BackupSummary) -> tuple[str, str]:
    """The "last backup" and "contents" lines, in pt_BR."""
    last = summary.last
    last_text = ("nenhuma registrada" if last is None
                 else f"{_local_time(last.at)} por {last.by} — {last.file} ({format_size(last.size)})")
    count, size = summary.blobs
    where = "arquivo SQLite local" if ctx.db.is_sqlite else f"servidor {ctx.db.url.host}"
    return last_text, f"{where}; {count} anexo(s) e foto(s), {format_size(size)}"


def documents_folder() -> str:
    return QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation) or str(Path.home())


def suggested_backup_path() -> Path:
    """A dated name in the user's documents folder."""
    return Path(documents_folder()) / f"motodesk-copia-{local_now():%Y-%m-%d-%H%M}{backups.SUFFIX}"


def choose_backup_file(parent: QWidget) -> Path | None:
    """Qt's own save dialog (translated to pt_BR by the application), starting in the documents folder."""
    name, _ = QFileDialog.getSaveFileName(parent, "Salvar cópia de segurança", str(suggested_backup_path()),
                                          "Cópia de segurança do MotoDesk (*.zip)",
                                          options=QFileDialog.Option.DontUseNativeDialog)
    if not name:
        return None
    if not name.lower().endswith(backups.SUFFIX):
        name += backups.SUFFIX
    return Path(name)


def choose_and_start_backup(parent: QWidget, start: Callable[[Path], object]) -> None:
    """Ask where (:func:`choose_backup_file`), then ``start(path)``; nothing when cancelled."""
    path = choose_backup_file(parent)
    if path is not None:
        start(path)


def run_backup(parent: QWidget, ctx: AppContext, path: Path, on_done: Callable[[backups.BackupResult], None],
               *, lock: QWidget | None = None) -> ServiceOp:
    """Write a backup off the GUI thread with a progress dialog; ``on_done`` after the notice."""
    progress = QProgressDialog("Gravando a cópia de segurança…", "", 0, 4, parent)
    progress.setObjectName("backup_progress")
    progress.setWindowTitle("Cópia de segurança")
    progress.setCancelButton(None)
    progress.setWindowModality(Qt.WindowModality.WindowModal)
    progress.setMinimumDuration(0)
    progress.setValue(0)
    def work(report, _cancelled):  # noqa: ANN001, ANN202 - ServiceOp's progress signature
        return backups.create_backup(ctx, path, progress=report)

    def done(result: backups.BackupResult) -> None:
        progress.close()
        QMessageBox.information(parent, "Cópia de segurança",
                                f"Cópia de segurança gravada em\n{result.path}\n({format_size(result.size)}, "
                                f"{sum(result.manifest.counts.values())} linhas, "
                                f"{result.manifest.counts.get('blobs', 0)} anexos e fotos), conferida ao ser "
                                f"lida de volta e assinada pela chave {result.key_id} desta instalação.")
        on_done(result)

    def failed(exc: BaseException) -> bool:
        progress.close()
        if isinstance(exc, (MotodeskError, DatabaseError)):
            show_error(parent, exc, "Cópia de segurança não gravada")
        else:
            log.error("backup failed", exc_info=exc)
            show_error(parent, MotodeskError(f"A cópia de segurança falhou: {exc}"), "Cópia de segurança não gravada")
        return True

    # The backup records itself in the settings (the reminder, the dialog's "Última cópia").
    return (ServiceOp(parent, work, progress=True, lock=lock or parent, busy="", change="settings")
            .progress(lambda d, _t: progress.setValue(d)).success(done).failure(failed).run())


class DatabaseSettingsDialog(GuardedDialog):
    """Change this workstation's database; it takes effect at the next start."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None, *, keyring_available: bool | None = None
                 ) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.setObjectName("DatabaseSettingsDialog")
        self.setWindowTitle("Configurar banco de dados")
        self.setMinimumWidth(560)
        self.saved: DatabaseChoice | None = None
        current = config.load_choice()
        in_use = "SQLite local" if ctx.db.is_sqlite else f"servidor {ctx.db.url.host}:{ctx.db.url.port or 5432}"
        now = wrapped_label(f"Em uso agora: {in_use}" + (f"\nConfiguração desta estação: {current.describe()}"
                                                         if current else ""))
        now.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.local = named(QRadioButton(LOCAL_LABEL), "choice_local")
        local_note = wrapped_label(f"Arquivo: {config.default_sqlite_path()}")
        local_note.setStyleSheet("color: #555; margin-left: 22px")
        local_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.server = named(QRadioButton(SERVER_LABEL), "choice_server")
        group = QButtonGroup(self)
        group.addButton(self.local)
        group.addButton(self.server)
        self.form = ServerForm(keyring_available=keyring_available)
        if current is not None and current.kind == "postgresql":
            self.server.setChecked(True)
            self.form.set_choice(current)
        else:
            self.local.setChecked(True)
        self.server.toggled.connect(self.form.setEnabled)
        self.form.setEnabled(self.server.isChecked())
        note = wrapped_label("A nova configuração vale a partir do próximo início do MotoDesk nesta estação.")
        note.setStyleSheet("color: #555")
        buttons = QDialogButtonBox()
        self.save_button = buttons.addButton("&Salvar", QDialogButtonBox.ButtonRole.AcceptRole)
        self.save_button.setObjectName("save")
        buttons.addButton("&Cancelar", QDialogButtonBox.ButtonRole.RejectRole).setObjectName("cancel")
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        self.local.setText(LOCAL_ACCESS)
        self.server.setText(SERVER_ACCESS)
        column(now, self.local, local_note, self.server, self.form, note, buttons, parent=self)
        self.mark_clean()

    def chosen(self) -> DatabaseChoice | None:
        return DatabaseChoice.local() if self.local.isChecked() else self.form.checked_choice()

    def save_and_close(self) -> None:
        self.save()

    def save(self) -> ServiceOp | None:
        """Test the chosen database off the GUI thread; keep it for the next start when it answers."""
        choice = self.chosen()
        if choice is None:
            return None
        password = self.form.password.text() if choice.kind == "postgresql" else None

        def test() -> str:
            if choice.kind == "sqlite":
                config.default_sqlite_path().parent.mkdir(parents=True, exist_ok=True)
            return describe_connection(choice, password)

        def failed(exc: BaseException) -> bool:
            if isinstance(exc, (DatabaseError, MotodeskError)):
                self.form.show_result(str(exc), ok=False)
                return True
            return False

        return ServiceOp(self, test, busy="Testando a conexão…").failure(failed) \
            .success(lambda text: self._tested(choice, password, text)).run()

    def _tested(self, choice: DatabaseChoice, password: str | None, text: str) -> None:
        if choice.kind == "postgresql" and choice.remember_password and password:
            if not config.store_password(choice, password):
                choice = DatabaseChoice.server(choice.host, choice.port, choice.database, choice.user)
        config.save_choice(choice)
        self.saved = choice
        QMessageBox.information(self, "Configurar banco de dados",
                                f"{text}\n\nConfiguração salva: {choice.describe()}.\n"
                                "Feche e abra o MotoDesk para usar este banco de dados.")
        self.accept()


class BackupDialog(QDialog):
    """The last backup, the reminder period, and "Fazer cópia de segurança…"."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.setObjectName("BackupDialog")
        self.setWindowTitle("Cópia de segurança")
        self.setMinimumWidth(520)
        self.result_: backups.BackupResult | None = None
        self._op: ServiceOp | None = None
        self.last = wrapped_label(name="last_backup")
        self.last.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.contents = wrapped_label()
        self.days = named(QSpinBox(), "reminder_days")
        self.days.setRange(0, 365)
        self.days.setSpecialValueText("nunca lembrar")
        self.days.setSuffix(" dia(s)")
        self._stored_days: int | None = None
        # Saved only once the administrator changed it: the field may hold the focus before the stored
        # period arrives, and leaving it then must not write the 0 it was born with.
        self._typed_days = False
        self._showing_days = False
        self._saving_days: int | None = None
        self.days.valueChanged.connect(self._days_changed)
        self.days.editingFinished.connect(self.save_days)
        # not auto-default: Enter in the reminder field must not start a backup
        self.make = push_button("&Fazer cópia de segurança…", "make_backup", self.choose_and_backup, auto_default=False)
        how = wrapped_label("A cópia inclui todo o banco de dados: cadastros, anexos, fotos e a trilha de auditoria. "
                            "Guarde-a fora deste computador (pen drive, outra máquina). Para restaurar: "
                            "'motodesk restore ARQUIVO' em um banco de dados vazio.")
        how.setStyleSheet("color: #555")
        buttons = QDialogButtonBox()
        close = buttons.addButton("F&echar", QDialogButtonBox.ButtonRole.RejectRole)
        close.setObjectName("close")
        buttons.rejected.connect(self.reject)
        column(form(
            (QLabel("Última cópia:"), self.last),
            (QLabel("Conteúdo:"), self.contents),
            ("&Lembrar após:", self.days),
        ), how, self.make, buttons, parent=self)
        admin = ctx.user.role is Role.ADMIN
        self.make.setEnabled(admin)
        self.days.setEnabled(admin)
        self.refresh()

    def refresh(self) -> None:
        ctx = self.ctx
        load_into(self, lambda: read_backup_summary(ctx), self._loaded, key="backup")

    def _loaded(self, summary: BackupSummary) -> None:
        last, contents = describe_backup_summary(self.ctx, summary)
        self.last.setText(last)
        self.contents.setText(contents)
        days = summary.reminder_days
        self._stored_days = days
        if not self._typed_days:  # never over what the administrator is typing
            self._showing_days = True
            try:
                self.days.setValue(days)
            finally:
                self._showing_days = False
        elif not self.days.hasFocus():
            self.save_days()  # typed and left before the stored period arrived

    def _days_changed(self, _value: int) -> None:
        if not self._showing_days:
            self._typed_days = True

    def save_days(self) -> None:
        days = self.days.value()
        if not self._typed_days or self._stored_days is None or days in (self._stored_days, self._saving_days):
            return  # Enter then the dialog closing both finish the editing: one save
        ctx = self.ctx
        self._saving_days = days

        def saved(_r: object) -> None:
            self._stored_days = days

        def over() -> None:
            self._saving_days = None

        ServiceOp(self, lambda: backups.set_reminder_days(ctx, days), busy="Salvando o lembrete…",
                  fields={"days": self.days}, change="settings", lock=False).success(saved).finally_(over).run()

    def suggested_path(self) -> Path:
        return suggested_backup_path()

    def choose_and_backup(self) -> None:
        choose_and_start_backup(self, self.start_backup)

    def start_backup(self, path: Path) -> ServiceOp:
        def done(result: backups.BackupResult) -> None:
            self.result_ = result
            self.refresh()

        self._op = run_backup(self, self.ctx, path, done, lock=self.make)
        return self._op


class BackupReminderBar(QToolBar):
    """A non-blocking reminder above the pages: the last backup is older than the setting."""

    def __init__(self, text: str, open_backup, parent: QWidget | None = None) -> None:  # noqa: ANN001
        super().__init__("Lembrete de cópia de segurança", parent)
        self.setObjectName("backup_reminder")
        self.setMovable(False)
        self.setFloatable(False)
        self.setStyleSheet("QToolBar#backup_reminder { background: #fff4ce; border-bottom: 1px solid #e0c060; }")
        self.label = QLabel(text)
        self.label.setObjectName("backup_reminder_text")
        self.label.setWordWrap(True)  # a larger system font wraps it instead of widening the window
        self.label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        now = QPushButton("Fazer cópia ag&ora…")
        now.setObjectName("backup_reminder_open")
        now.clicked.connect(open_backup)
        later = QPushButton("Lembrar &mais tarde")
        later.setObjectName("backup_reminder_later")
        later.clicked.connect(self.hide)
        row = QWidget()
        row.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        layout = QHBoxLayout(row)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(now)
        layout.addWidget(later)
        self.addWidget(row)


def open_backup_dialog(window: QMainWindow, ctx: AppContext) -> None:
    dialog = BackupDialog(ctx, window)
    dialog.exec()
    bar = window.findChild(BackupReminderBar, "backup_reminder")
    if bar is not None:
        load_into(window, lambda: backups.backup_reminder(ctx),
                  lambda text: bar.setVisible(bool(text) and bar.isVisible()), key="backup_reminder")


def open_database_settings(window: QMainWindow, ctx: AppContext) -> None:
    DatabaseSettingsDialog(ctx, window).exec()


def install_admin_tools(window: QMainWindow, ctx: AppContext, backup_action, database_action) -> None:  # noqa: ANN001
    """Wire the two menu items (administrators only) and show the backup reminder when it is due."""
    admin = ctx.user.role is Role.ADMIN
    for action in (backup_action, database_action):
        action.setEnabled(admin)
        action.setVisible(admin)
    backup_action.triggered.connect(lambda: open_backup_dialog(window, ctx))
    database_action.triggered.connect(lambda: open_database_settings(window, ctx))
    if not admin:
        return

    def show_reminder(text: str | None) -> None:
        if text:
            bar = BackupReminderBar(text, lambda: open_backup_dialog(window, ctx), window)
            window.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)

    def unavailable(exc: BaseException) -> bool:
        log.warning("backup reminder unavailable: %s", exc)
        return True  # the reminder never stands in the way of the day's work

    ServiceOp(window, lambda: backups.backup_reminder(ctx), lock=False, key="backup_reminder") \
        .failure(unavailable).success(show_reminder).run()
