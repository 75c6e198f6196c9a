"""The scans of one dossier row: list, add from file, view, remove with a reason."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QImage, QKeyEvent, QPixmap
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from motodesk.services import attachments
from motodesk.services.attachments import MAX_ATTACHMENT_BYTES, AttachmentInfo, megabytes
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.ui.errors import show_error
from motodesk.ui.formatting import format_datetime
from motodesk.ui.ops import ServiceOp

FILE_FILTER = "Documentos digitalizados (*.pdf *.jpg *.jpeg *.png);;Todos os arquivos (*)"


class ImageViewer(QDialog):
    """A scanned image at its size, scrollable."""

    def __init__(self, data: bytes, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("image_viewer")
        self.setWindowTitle(title)
        screen = (parent.screen() if parent is not None else None) or QApplication.primaryScreen()
        room = screen.availableGeometry() if screen is not None else None
        self.resize(min(820, room.width() - 40) if room else 820, min(900, room.height() - 60) if room else 900)
        image = QImage.fromData(data)
        self.image_label = QLabel()
        self.image_label.setObjectName("image")
        self.image_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        if image.isNull():
            self.image_label.setText("Não foi possível mostrar a imagem.")
        else:
            self.image_label.setPixmap(QPixmap.fromImage(image).scaledToWidth(
                min(image.width(), 780), Qt.TransformationMode.SmoothTransformation))
        area = QScrollArea()
        area.setWidget(self.image_label)
        area.setWidgetResizable(True)
        close = QPushButton("&Fechar")
        close.clicked.connect(self.accept)
        close.setDefault(True)
        layout = QVBoxLayout(self)
        layout.addWidget(area, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(close)
        layout.addLayout(row)


def show_attachment(parent: QWidget | None, info: AttachmentInfo, data: bytes) -> None:
    if info.media_type == "application/pdf":
        from motodesk.ui.pdfpreview import preview_pdf

        preview_pdf(parent, data, info.filename, filename=info.filename)
        return
    viewer = ImageViewer(data, info.filename, parent)
    viewer.exec()
    viewer.deleteLater()


def _link_button(text: str) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setAutoRaise(True)
    button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    return button


class AttachmentList(QWidget):
    """Attachments of one document kind of a dossier, with Anexar / Ver / Remover.

    ``attach(filename, data)`` is given by the dossier (it knows the person and the kind) and
    returns the new attachment; ``changed`` is emitted after every add or removal.
    """

    changed = Signal()

    def __init__(self, ctx: AppContext, attach: Callable[[str, bytes], AttachmentInfo | None],
                 parent: QWidget | None = None, *, name: str = "") -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._attach = attach
        self.items: list[AttachmentInfo] = []
        self.list = QListWidget()
        self.list.setObjectName(f"attachments_{name}" if name else "attachments")
        self.list.setFixedHeight(54)
        self.list.itemDoubleClicked.connect(lambda _item: self.view_selected())
        # A dossier shows a dozen of these lists: the keys are the list's (Insert, Enter, Delete),
        # and the buttons, for the mouse, are no Tab stops of their own.
        self.list.setToolTip("Insert anexa um arquivo; Enter mostra o selecionado; Delete o remove.")
        self.list.installEventFilter(self)
        self.add_button = _link_button("Anexar… (Insert)")
        self.add_button.setObjectName(f"attach_{name}" if name else "attach")
        self.add_button.setToolTip("Anexar a digitalização do documento (PDF, JPEG ou PNG, até "
                                   f"{megabytes(MAX_ATTACHMENT_BYTES)}) — tecla Insert na lista")
        self.view_button = _link_button("Ver (Enter)")
        self.remove_button = _link_button("Remover… (Delete)")
        self.add_button.clicked.connect(self.add_from_file)
        self.view_button.clicked.connect(self.view_selected)
        self.remove_button.clicked.connect(self.remove_selected)
        self.list.currentRowChanged.connect(lambda _row: self._update_buttons())
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.setSpacing(4)
        for b in (self.add_button, self.view_button, self.remove_button):
            buttons.addWidget(b, 0, Qt.AlignmentFlag.AlignTop)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        self.editable = True
        self._update_buttons()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.list and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) \
                and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            key = event.key()
            if key == Qt.Key.Key_Insert and self.add_button.isEnabled():
                self.add_from_file()
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.view_button.isEnabled():
                self.view_selected()
                return True
            if key == Qt.Key.Key_Delete and self.remove_button.isEnabled():
                self.remove_selected()
                return True
        return super().eventFilter(watched, event)

    def set_editable(self, editable: bool) -> None:
        self.editable = editable
        self._update_buttons()

    def set_items(self, items: list[AttachmentInfo]) -> None:
        self.items = list(items)
        self.list.clear()
        for info in self.items:
            item = QListWidgetItem(f"{info.filename}  ({info.kind_label}, {megabytes(info.size)})")
            item.setToolTip(f"Anexado por {info.added_by} em {format_datetime(info.added_at)}")
            self.list.addItem(item)
        if not self.items:
            placeholder = QListWidgetItem("Nenhum arquivo anexado")
            placeholder.setFlags(Qt.ItemFlag.NoItemFlags)
            self.list.addItem(placeholder)
        self._update_buttons()

    def current(self) -> AttachmentInfo | None:
        row = self.list.currentRow()
        if 0 <= row < len(self.items):
            return self.items[row]
        return self.items[0] if len(self.items) == 1 else None

    def _update_buttons(self) -> None:
        has = self.current() is not None
        self.add_button.setEnabled(self.editable)
        self.view_button.setEnabled(has)
        self.remove_button.setEnabled(self.editable and has)

    def add_from_file(self) -> None:
        """Choose a file and attach it (in the background: the list shows it when stored)."""
        name, _ = QFileDialog.getOpenFileName(self, "Anexar documento digitalizado", "", FILE_FILTER)
        if not name:
            return None
        path = Path(name)
        try:
            size = path.stat().st_size
            if size > MAX_ATTACHMENT_BYTES:  # refuse before reading a huge file into memory
                raise InvalidInputError(f"O arquivo «{path.name}» tem {megabytes(size)}; o limite é "
                                        f"{megabytes(MAX_ATTACHMENT_BYTES)}.")
            data = path.read_bytes()
        except OSError as exc:
            show_error(self, MotodeskError(f"Não foi possível ler o arquivo «{path.name}»: {exc.strerror or exc}."))
            return None
        except MotodeskError as exc:
            show_error(self, exc)
            return None
        attach, filename = self._attach, path.name

        def added(info: AttachmentInfo | None) -> None:
            if info is not None:
                self.set_items([*self.items, info])
                self.list.setCurrentRow(len(self.items) - 1)
                self.changed.emit()

        def refused(exc: BaseException) -> bool:
            if isinstance(exc, InvalidInputError):
                show_error(self, exc, "Arquivo recusado")
                return True
            return False

        ServiceOp(self, lambda: attach(filename, data), busy="Anexando o arquivo…", change="person") \
            .success(added).failure(refused).run()
        return None

    def view_selected(self) -> None:
        info = self.current()
        if info is None:
            return
        ctx, attachment_id = self.ctx, info.id
        ServiceOp(self, lambda: attachments.attachment_content(ctx, attachment_id), busy="Abrindo o anexo…",
                  lock=False).success(lambda got: show_attachment(self, *got)).run()

    def remove_selected(self) -> bool:
        info = self.current()
        if info is None or not self.editable:
            return False
        reason, ok = QInputDialog.getText(
            self, "Remover anexo",
            f"O arquivo «{info.filename}» sai do dossiê, mas fica guardado com o motivo.\nMotivo da remoção:")
        if not ok:
            return False
        ctx, attachment_id = self.ctx, info.id

        def removed(_result: object) -> None:
            self.set_items([a for a in self.items if a.id != attachment_id])
            self.changed.emit()

        ServiceOp(self, lambda: attachments.remove_attachment(ctx, attachment_id, reason), busy="Removendo o anexo…",
                  change="person").success(removed).run()
        return True
