"""The Qt half of `motodesk --self-test`: the parts a frozen build most often loses."""

from __future__ import annotations

import os

from PySide6.QtCore import QBuffer, QByteArray, QCoreApplication, QIODevice
from PySide6.QtGui import QIcon


def check_qt(pdf: bytes) -> list[str]:
    """Raise AssertionError on the first missing part; return the pt_BR lines of what was checked."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # a self-test opens no window
    from motodesk.ui.app import create_application

    app = create_application()
    lines = [f"Qt {app.applicationName()} na plataforma {app.platformName()}"]

    cancel = QCoreApplication.translate("QPlatformTheme", "Cancel")
    if cancel != "Cancelar":
        raise AssertionError(f"tradução do Qt para pt_BR ausente (Cancel → {cancel!r})")
    lines.append("traduções do Qt em pt_BR (Cancelar)")

    from motodesk.resources import resource_path

    icon = QIcon(str(resource_path("icons", "motodesk.svg")))
    if icon.pixmap(64, 64).isNull():
        raise AssertionError("ícone SVG não carregou (módulo de imagens SVG do Qt ausente)")
    lines.append("ícone SVG")

    from PySide6.QtPdf import QPdfDocument

    document = QPdfDocument(app)
    buffer = QBuffer(app)
    buffer.setData(QByteArray(pdf))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    document.load(buffer)
    if document.pageCount() != 2:
        raise AssertionError(f"QtPdf: o crachá tem {document.pageCount()} página(s) em vez de 2")
    image = document.render(0, document.pagePointSize(0).toSize())
    if image.isNull():
        raise AssertionError("QtPdf não desenhou o crachá")
    lines.append("QtPdf abre e desenha o crachá")

    from PySide6.QtMultimedia import QMediaDevices, QMediaFormat

    formats = QMediaFormat().supportedFileFormats(QMediaFormat.ConversionMode.Decode)
    if not formats:
        raise AssertionError("QtMultimedia sem backend (plugin de multimídia ausente): a câmera não funcionaria")
    cameras = len(QMediaDevices.videoInputs())
    lines.append(f"QtMultimedia com backend ({len(formats)} formatos; {cameras} câmera(s) neste computador)")

    import PySide6.QtCharts  # noqa: F401
    import PySide6.QtMultimediaWidgets  # noqa: F401
    import PySide6.QtPdfWidgets  # noqa: F401
    import PySide6.QtPrintSupport  # noqa: F401
    import PySide6.QtSvg  # noqa: F401

    lines.append("módulos QtCharts, QtMultimediaWidgets, QtPdfWidgets, QtPrintSupport e QtSvg")
    document.close()
    return lines
