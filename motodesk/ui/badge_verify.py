"""Verify a badge: a USB scanner types the QR's text into a line (ending with Enter), or a clerk pastes it.

The QR holds the public verifier page's address with the signed token as its fragment; the line
accepts that address or the bare token. The verdict fills a big coloured band (valid, expired,
suspended, revoked, cancelled, superseded, forged -- a badge whose signature or register entry fails --
or "not a badge" for a text that holds no badge token at all); when valid, the holder's photo and name are shown so the inspector can compare the face.
Without the database (network down) the check falls back to the public key read when the window
opened: signature and printed validity only, and the screen says so. The keys and every check are
read off the GUI thread (a scan never freezes the window); the newest scan's verdict is the one shown.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from motodesk.services import badges
from motodesk.services.badges import BadgeStatus, BadgeVerification
from motodesk.services.context import AppContext
from motodesk.services.errors import DatabaseUnavailableError, MotodeskError
from motodesk.ui.formatting import format_date
from motodesk.ui.formkit import push_button, wrapped_label
from motodesk.ui.ops import ServiceOp, load_into

PHOTO_W, PHOTO_H = 180, 240
#: A genuine token is about 170 characters; the line accepts more so junk is judged, not cut.
MAX_INPUT = 20_000


def _public_keys(ctx: AppContext) -> list[bytes] | None:
    """The current key and those retired by a rotation (older badges still verify offline); None
    when the database cannot say (verified online only, no offline fallback)."""
    try:
        return badges.public_keys(ctx)
    except MotodeskError:
        return None


def check_badge(ctx: AppContext, text: str, known_keys: list[bytes] | None) -> BadgeVerification:
    """The verdict on a scanned text: with the register, or — the database unreachable — by the
    public keys alone (``known_keys``, read when the window opened). Runs off the GUI thread."""
    try:
        return badges.verify_badge(ctx, text)
    except DatabaseUnavailableError:
        keys = known_keys if known_keys is not None else _public_keys(ctx)
        if keys is None:
            raise
        return badges.verify_offline(text, keys)


class BadgeVerifyDialog(QDialog):
    """Scan or paste; Enter verifies; the line is selected again for the next scan."""

    #: A verdict is on screen (the BadgeVerification shown).
    verified = Signal(object)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.setObjectName("badge_verify")
        self.setWindowTitle("Verificar crachá")
        self.resize(720, 560)
        self.last: BadgeVerification | None = None
        self._public_key: list[bytes] | None = None  # read below, off the GUI thread

        hint, line = self._build_scan_line()
        self._build_verdict()
        person = self._build_person()

        close = push_button("Fechar", "close", self.accept, auto_default=False)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(close)

        layout = QVBoxLayout(self)
        layout.addWidget(hint)
        layout.addLayout(line)
        layout.addWidget(self.verdict)
        layout.addWidget(self.message)
        layout.addSpacing(8)
        layout.addLayout(person)
        layout.addStretch(1)
        layout.addLayout(bottom)
        self._clear_person()
        self.scan.setFocus()
        load_into(self, lambda: _public_keys(ctx), self._keys_loaded, key="public_keys")

    def _build_scan_line(self) -> tuple[QLabel, QHBoxLayout]:
        """The hint and the scanned text's line; the hint and the line."""
        hint = wrapped_label("Aponte o leitor para o código QR do verso do crachá, ou cole o texto do código "
                             "(o endereço https://…#MD1.… ou só MD1.…) e tecle Enter.")
        self.scan = QLineEdit()
        self.scan.setObjectName("scan")
        self.scan.setMaxLength(MAX_INPUT)
        self.scan.setPlaceholderText("Texto do código QR (https://…#MD1.…)")
        self.scan.setClearButtonEnabled(True)
        self.scan.returnPressed.connect(self.verify)
        self.verify_button = push_button("Verificar", "verify", self.verify, auto_default=False)
        line = QHBoxLayout()
        line.addWidget(self.scan, 1)
        line.addWidget(self.verify_button)
        return hint, line

    def _build_verdict(self) -> None:
        """The verdict in large type on its colour, and the message under it."""
        self.verdict = QLabel("Aguardando leitura")
        self.verdict.setObjectName("verdict")
        self.verdict.setAlignment(Qt.AlignmentFlag.AlignCenter)
        font = QFont(self.font())
        font.setPointSize(26)
        font.setBold(True)
        self.verdict.setFont(font)
        self.verdict.setMinimumHeight(76)
        self._paint("#607d8b")
        self.message = QLabel("")
        self.message.setObjectName("message")
        self.message.setWordWrap(True)
        message_font = QFont(self.font())
        message_font.setPointSize(12)
        self.message.setFont(message_font)

    def _bold_label(self, name: str, points: int) -> QLabel:
        """A wrapped label in the dialog's font, bold, at ``points``."""
        label = wrapped_label("", name)
        font = QFont(self.font())
        font.setPointSize(points)
        font.setBold(True)
        label.setFont(font)
        return label

    def _build_person(self) -> QHBoxLayout:
        """The bearer: photo, name, role (holder or deputy) and details."""
        self.photo = QLabel()
        self.photo.setObjectName("photo")
        self.photo.setFixedSize(PHOTO_W, PHOTO_H)
        self.photo.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.photo.setStyleSheet("border: 1px solid #9a9a9a; background: #f2f2f2;")
        self.name = self._bold_label("holder_name", 18)
        self.bearer_role = self._bold_label("bearer_role", 13)  # Art. 11: the holder or his deputy, nobody else drives
        self.details = wrapped_label("", "details")
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        info = QVBoxLayout()
        info.addWidget(self.name)
        info.addWidget(self.bearer_role)
        info.addWidget(self.details)
        info.addStretch(1)
        person = QHBoxLayout()
        person.addWidget(self.photo, 0, Qt.AlignmentFlag.AlignTop)
        person.addSpacing(12)
        person.addLayout(info, 1)
        return person

    def _keys_loaded(self, keys: list[bytes] | None) -> None:
        self._public_key = keys

    def _paint(self, colour: str) -> None:
        self.verdict.setStyleSheet(f"background: {colour}; color: white; border-radius: 6px; padding: 8px;")

    def _clear_person(self) -> None:
        self.photo.clear()
        self.photo.setText("")
        self.name.setText("")
        self.bearer_role.setText("")
        self.details.setText("")

    def verify(self) -> ServiceOp | None:
        """Check the scanned text off the GUI thread; the verdict shows when it comes (:attr:`verified`).
        A refusal (the database unreachable and no key known) is explained by the op."""
        text = self.scan.text()
        if not text.strip():
            return None
        ctx, keys = self.ctx, self._public_key
        return ServiceOp(self, lambda: check_badge(ctx, text, keys), lock=False, key="verify") \
            .success(self._verified).run()

    def _verified(self, result: BadgeVerification) -> None:
        self.show_result(result)
        layout = self.layout()
        if layout is not None:
            layout.activate()  # the new texts take their room now, not at the next event
        self.scan.selectAll()  # the next scan replaces this text
        self.scan.setFocus()
        self.verified.emit(result)

    def show_result(self, result: BadgeVerification) -> None:
        self.last = result
        self.verdict.setText(result.status.label)
        self._paint(result.status.colour)
        message = result.message
        if not result.online and "sem o cadastro" not in message:
            message += " (Sem conexão com o banco de dados.)"
        self.message.setText(message)
        self._clear_person()
        if result.status in (BadgeStatus.FORGED, BadgeStatus.NOT_A_BADGE):
            return
        if result.holder_name:
            self.name.setText(result.holder_name)
        lines = []
        if result.permit_number:
            service = f" – {result.service.label}" if result.service else ""
            lines.append(f"Permissão/autorização: {result.permit_number}{service}")
        if result.holder_kind:
            self.bearer_role.setText(result.bearer_role)
        if result.valid_until:
            lines.append(f"Válido até: {format_date(result.valid_until)}")
        if result.issue_no:
            current = f" (em uso: {result.current_issue_no}ª)" if result.current_issue_no not in (None,
                                                                                               result.issue_no) else ""
            lines.append(f"Via: {result.issue_no}ª{current}")
        self.details.setText("\n".join(lines))
        if result.status is BadgeStatus.VALID and result.photo_jpeg:
            pixmap = QPixmap()
            if pixmap.loadFromData(result.photo_jpeg):
                self.photo.setPixmap(pixmap.scaled(PHOTO_W, PHOTO_H, Qt.AspectRatioMode.KeepAspectRatio,
                                                   Qt.TransformationMode.SmoothTransformation))
        elif result.status is BadgeStatus.VALID:
            self.photo.setText("Sem foto no cadastro")
        else:
            self.photo.setText("A foto só é exibida\npara crachá válido")


def open_badge_verifier(ctx: AppContext, parent: QWidget | None) -> BadgeVerifyDialog:
    """Show the verifier as a window that stays open beside the main one (scan after scan)."""
    existing = getattr(parent, "_badge_verifier", None) if parent is not None else None
    if isinstance(existing, BadgeVerifyDialog):
        existing.show()
        existing.raise_()
        existing.activateWindow()
        existing.scan.setFocus()
        return existing
    dialog = BadgeVerifyDialog(ctx, parent)
    dialog.setModal(False)
    if parent is not None:
        parent._badge_verifier = dialog  # type: ignore[attr-defined]
    dialog.show()
    return dialog
