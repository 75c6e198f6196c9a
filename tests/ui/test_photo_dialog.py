"""The 3x4 photo dialog, driven like a clerk at the counter with a fake camera (no webcam in CI).

Every picture other than the four files in tests/data/photos is generated here. Tests that only
exercise the screen run on SQLite (``SQLITE_ONLY``); those that store a photo run on both databases.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Callable
from datetime import date
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PySide6.QtCore import QPoint, QPointF, QSettings, Qt, QThreadPool
from PySide6.QtGui import QImage, QWheelEvent
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog
from tests_helpers import (  # type: ignore[import-not-found]
    SCREENSHOTS,
    drain_events,
    valid_cpf,
)

from motodesk.imaging import Box, centred_crop
from motodesk.imaging.quality import QualityCode
from motodesk.services import people, photos
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError
from motodesk.services.people import PersonInput
from motodesk.ui import camera as camera_module
from motodesk.ui import photo_dialog as photo_dialog_module
from motodesk.ui.app import create_application
from motodesk.ui.camera import SETTINGS_KEY, CameraChoice, FakeFrameSource, FrameSource
from motodesk.ui.changes import change_bus
from motodesk.ui.ops import ServiceOp
from motodesk.ui.photo_dialog import MSG_16_BIT, MSG_CMYK, MSG_GREY, PhotoDialog, pil_to_qimage

ROOT = Path(__file__).resolve().parents[2]
#: The plain-colour test pictures have no face: storing them needs the override (Art. 5º, IX).
SYNTHETIC = "foto sintética de teste, sem rosto"
PHOTOS = ROOT / "tests" / "data" / "photos"

ASTRONAUT = PHOTOS / "astronaut.png"
SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"])


# -- pictures ----------------------------------------------------------------------------------
def encode(im: Image.Image, fmt: str = "JPEG", **params: object) -> bytes:
    buffer = io.BytesIO()
    if fmt == "JPEG":
        params.setdefault("quality", 92)
    im.save(buffer, format=fmt, **params)
    return buffer.getvalue()


def astronaut() -> Image.Image:
    with Image.open(ASTRONAUT) as im:
        return im.convert("RGB")


def astronaut_4x3() -> Image.Image:
    """The astronaut on a 683 × 512 landscape canvas, like a webcam frame."""
    canvas = Image.new("RGB", (683, 512), astronaut().getpixel((5, 5)))
    canvas.paste(astronaut(), (85, 0))
    return canvas


def astronaut_frame(width: int, height: int) -> QImage:
    """The 4:3 astronaut as a camera frame of ``width × height`` (ARGB32, as Qt's cameras give)."""
    image = pil_to_qimage(astronaut_4x3().resize((width, height), Image.Resampling.BICUBIC))
    return image.convertToFormat(QImage.Format.Format_ARGB32)


def png_declaring(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims ``width × height``: a decompression bomb."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
            + chunk(b"IEND", b""))


def rotated_exif_jpeg() -> bytes:
    """The 4:3 astronaut stored lying on its side with EXIF orientation 6 ("rotate 90° CW to view")."""
    exif = Image.Exif()
    exif[0x0112] = 6
    return encode(astronaut_4x3().transpose(Image.Transpose.ROTATE_90), exif=exif)


def big_astronaut_png() -> bytes:
    """1536 × 1152: enough pixels that the proposed crop needs no upscaling (no warning)."""
    return encode(astronaut_4x3().resize((1536, 1152), Image.Resampling.BICUBIC), "PNG")


# -- driving the dialog --------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def _clean_settings_and_workers():  # noqa: ANN202
    QSettings().remove(SETTINGS_KEY)
    yield
    QThreadPool.globalInstance().waitForDone(30_000)  # no analysis outlives its test
    QSettings().remove(SETTINGS_KEY)


@pytest.fixture
def person(clerk: AppContext) -> int:
    return people.save_person(clerk, PersonInput(full_name="Eileen Marie Collins", cpf=valid_cpf(),
                                                 birth_date=date(1986, 11, 19), sex="F")).id


def fake_factory(image: QImage | Path = ASTRONAUT, **kwargs: object) -> tuple[Callable[..., FrameSource],
                                                                            list[FakeFrameSource]]:
    """A source factory for the dialog, and the list of the sources it made (to drive them)."""
    made: list[FakeFrameSource] = []

    def factory(parent: object) -> FrameSource:
        kwargs.setdefault("interval_ms", 100)
        source = FakeFrameSource(image, parent, **kwargs)  # type: ignore[arg-type]
        made.append(source)
        return source

    return factory, made


def open_dialog(qtbot, ctx: AppContext, person_id: int, factory: Callable[..., FrameSource] | None = None,  # noqa: ANN001
                **kwargs: object) -> PhotoDialog:
    create_application()
    if factory is None:
        factory = fake_factory()[0]
    dialog = PhotoDialog(ctx, person_id, source_factory=factory, person_name="Eileen Marie Collins",
                         **kwargs)  # type: ignore[arg-type]
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: ServiceOp.running() == 0)  # the history is read off the GUI thread
    return dialog


def wait_settled(qtbot, dialog: PhotoDialog) -> None:  # noqa: ANN001
    """Until an analysis has finished (or been refused) and the quality check has run."""
    qtbot.waitUntil(lambda: dialog.mode == "review", timeout=30_000)
    qtbot.waitUntil(lambda: not dialog._quality_timer.isActive(), timeout=5_000)


def capture(qtbot, dialog: PhotoDialog) -> None:  # noqa: ANN001
    qtbot.waitUntil(dialog.capture_button.isEnabled, timeout=5_000)
    qtbot.mouseClick(dialog.capture_button, Qt.MouseButton.LeftButton)
    wait_settled(qtbot, dialog)


def import_file(qtbot, monkeypatch: pytest.MonkeyPatch, dialog: PhotoDialog, path: Path) -> None:  # noqa: ANN001
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    wait_settled(qtbot, dialog)


def tick(qtbot, checkbox) -> None:  # noqa: ANN001
    """Click the box itself (the widget is as wide as the panel; its centre is empty space)."""
    qtbot.mouseClick(checkbox, Qt.MouseButton.LeftButton, pos=QPoint(8, checkbox.height() // 2))


def accept(qtbot, dialog: PhotoDialog) -> None:  # noqa: ANN001
    qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result() == QDialog.DialogCode.Accepted, timeout=15_000)


def assert_badge_jpeg(data: bytes) -> None:
    with Image.open(io.BytesIO(data)) as im:
        assert (im.format, im.mode, im.size) == ("JPEG", "RGB", (354, 472))
        assert tuple(round(v) for v in im.info["dpi"]) == (300, 300)
        assert im.info.get("icc_profile")


def assert_3x4_inside(box: Box, size: tuple[int, int]) -> None:
    assert box.width * 4 == box.height * 3
    assert box.left >= 0 and box.top >= 0 and box.right <= size[0] and box.bottom <= size[1]


# -- capture from the camera ---------------------------------------------------------------------
def test_capture_crop_and_accept_stores_the_badge_photo(qtbot, clerk: AppContext, person: int) -> None:  # noqa: ANN001
    factory, made = fake_factory(astronaut_frame(1600, 1200))
    dialog = open_dialog(qtbot, clerk, person, factory)
    source = made[0]
    qtbot.waitUntil(lambda: source.frames_sent >= 2 and not dialog.source_view.image.isNull())
    assert dialog.mode == "live" and dialog.capture_button.isEnabled()
    assert not dialog.accept_button.isEnabled()  # nothing to accept yet
    assert dialog.source_view.crop is None  # live: the centred 3:4 guide
    area = dialog.source_view.overlay_rect()
    assert area.width() * 4 == pytest.approx(area.height() * 3, abs=0.01)

    capture(qtbot, dialog)
    assert not source.is_active()  # the camera rests while the clerk edits the crop
    analysis = dialog.analysis
    assert analysis is not None and analysis.source == "camera"
    assert analysis.proposal.face_found and analysis.proposal.faces == 1
    assert_3x4_inside(dialog.box, analysis.photo.size)
    face = analysis.proposal.face
    assert face is not None and dialog.box.left < face.left and face.right < dialog.box.right
    assert not dialog.crop_view.image.isNull()
    assert dialog.crop_view.image.height() == 360 and dialog.crop_view.image.width() == 270
    assert dialog.source_view.crop is not None  # the left view now shows the crop being edited
    assert dialog.warning_texts() == [] and not dialog.override.isVisible()

    changes: list[str] = []
    change_bus().changed.connect(changes.append)
    accept(qtbot, dialog)
    assert changes == ["person"]  # the open dossier and the lists show the new photo
    stored = photos.newest_photo(clerk, person)
    assert stored is not None and dialog.stored is not None and stored.id == dialog.stored.id
    assert (stored.source, stored.captured_by, stored.width, stored.height) == ("camera", "clerk", 354, 472)
    assert stored.local_date == date.today() or (date.today() - stored.local_date).days <= 1
    assert_badge_jpeg(stored.jpeg)


@SQLITE_ONLY
def test_a_12_megapixel_still_is_framed_like_a_small_one(qtbot, clerk: AppContext, person: int) -> None:  # noqa: ANN001
    small = astronaut_frame(640, 480)
    factory, made = fake_factory(small, still=astronaut_frame(4000, 3000))
    dialog = open_dialog(qtbot, clerk, person, factory)
    capture(qtbot, dialog)
    analysis = dialog.analysis
    assert analysis is not None
    assert analysis.photo.original_size == (4000, 3000)
    assert analysis.photo.size == (2000, 1500)  # the working size of the imaging package
    assert analysis.photo.scale == pytest.approx(0.5)
    assert analysis.proposal.face_found
    # The crop covers the same part of the picture as on a small frame of the same scene.
    box = dialog.box
    relative = (box.left / 2000, box.top / 1500, box.height / 1500)
    assert relative[0] == pytest.approx(0.325, abs=0.03) and relative[2] == pytest.approx(0.46, abs=0.05)
    assert dialog.warning_texts() == []
    assert analysis.seconds < 10  # reported; the benchmark holds the real figure


@SQLITE_ONLY
def test_retake_goes_back_to_the_live_camera(qtbot, clerk: AppContext, person: int) -> None:  # noqa: ANN001
    factory, made = fake_factory()
    dialog = open_dialog(qtbot, clerk, person, factory)
    capture(qtbot, dialog)
    assert dialog.retake_button.isEnabled()
    qtbot.mouseClick(dialog.retake_button, Qt.MouseButton.LeftButton)
    assert dialog.mode == "live" and dialog.analysis is None and dialog.crop_view.image.isNull()
    before = made[0].frames_sent
    qtbot.waitUntil(lambda: made[0].frames_sent > before)
    assert dialog.source_view.crop is None and dialog.capture_button.isEnabled()
    assert not dialog.accept_button.isEnabled()
    capture(qtbot, dialog)
    assert made[0].captures == 2 and dialog.analysis is not None


@SQLITE_ONLY
def test_return_captures_while_live_and_never_accepts_by_accident(qtbot, clerk: AppContext, person: int) -> None:  # noqa: ANN001
    factory, made = fake_factory()
    dialog = open_dialog(qtbot, clerk, person, factory)
    qtbot.waitUntil(dialog.capture_button.isEnabled)
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    wait_settled(qtbot, dialog)
    assert made[0].captures == 1 and dialog.isVisible()
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    assert dialog.isVisible() and dialog.stored is None


# -- import from a file --------------------------------------------------------------------------
def test_import_png_file_and_accept(qtbot, monkeypatch, tmp_path: Path, clerk: AppContext, person: int) -> None:  # noqa: ANN001
    path = tmp_path / "requerente.png"
    path.write_bytes(big_astronaut_png())
    dialog = open_dialog(qtbot, clerk, person)
    import_file(qtbot, monkeypatch, dialog, path)
    assert dialog.analysis is not None and dialog.analysis.source == "file"
    assert dialog.analysis.proposal.face_found and dialog.warning_texts() == []
    accept(qtbot, dialog)
    stored = photos.newest_photo(clerk, person)
    assert stored is not None and stored.source == "file"
    assert_badge_jpeg(stored.jpeg)


@SQLITE_ONLY
def test_rotated_exif_photo_is_turned_upright_before_cropping(qtbot, monkeypatch, tmp_path: Path,  # noqa: ANN001
                                                              clerk: AppContext, person: int) -> None:
    path = tmp_path / "celular.jpg"
    path.write_bytes(rotated_exif_jpeg())
    with Image.open(path) as raw:
        assert raw.size == (512, 683)  # stored on its side
    dialog = open_dialog(qtbot, clerk, person)
    import_file(qtbot, monkeypatch, dialog, path)
    analysis = dialog.analysis
    assert analysis is not None
    assert analysis.photo.size == (683, 512)  # upright again: landscape, as it was shot
    assert analysis.proposal.face_found  # Haar cascades only find upright faces
    face = analysis.proposal.face
    assert face is not None and 178 + 85 - 30 < face.left < 178 + 85 + 30 and face.top < 120
    assert_3x4_inside(dialog.box, analysis.photo.size)


@SQLITE_ONLY
def test_face_less_photo_gets_a_centred_crop_and_the_clerk_is_told(qtbot, monkeypatch, clerk: AppContext,  # noqa: ANN001
                                                                   person: int) -> None:
    dialog = open_dialog(qtbot, clerk, person)
    import_file(qtbot, monkeypatch, dialog, PHOTOS / "coffee.png")
    analysis = dialog.analysis
    assert analysis is not None and not analysis.proposal.face_found
    assert dialog.box == centred_crop(analysis.photo.size)
    assert "Nenhum rosto encontrado" in dialog.crop_note.text()
    assert "ajuste manualmente" in dialog.crop_note.text()
    codes = [w.code for w in dialog.quality]
    assert QualityCode.NO_FACE in codes
    items = [dialog.warning_list.item(i).text() for i in range(dialog.warning_list.count())]
    assert any("Nenhum rosto encontrado" in text for text in items)
    # A warning blocks "Aceitar" until the clerk overrides it.
    assert dialog.override.isVisible() and not dialog.override.isChecked()
    assert not dialog.accept_button.isEnabled()
    tick(qtbot, dialog.override)
    assert dialog.override.isChecked()
    assert not dialog.accept_button.isEnabled()  # the override needs its reason (Art. 5º, IX, kept in the audit)
    qtbot.keyClicks(dialog.override_reason, "Requerente trouxe apenas esta foto")
    assert dialog.accept_button.isEnabled()


def test_override_lets_a_poor_photo_through(qtbot, monkeypatch, tmp_path: Path, clerk: AppContext,  # noqa: ANN001
                                            person: int) -> None:
    dark = Image.fromarray((np.asarray(astronaut(), dtype=np.float32) * 0.3).astype(np.uint8))
    path = tmp_path / "escura.jpg"
    path.write_bytes(encode(dark))
    dialog = open_dialog(qtbot, clerk, person)
    import_file(qtbot, monkeypatch, dialog, path)
    assert any("muito escura" in t for t in dialog.warning_texts())
    assert any("ampliado" in t for t in dialog.warning_texts())  # 512 px: the crop is upscaled
    qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
    assert dialog.mode == "review" and photos.newest_photo(clerk, person) is None  # refused: not ticked
    tick(qtbot, dialog.override)
    qtbot.keyClicks(dialog.override_reason, "Sem outra foto no momento")
    accept(qtbot, dialog)
    stored = photos.newest_photo(clerk, person)
    assert stored is not None
    assert_badge_jpeg(stored.jpeg)
    assert stored.override_reason is not None and stored.override_reason.startswith("Sem outra foto no momento")


@SQLITE_ONLY
def test_two_faces_are_reported(qtbot, monkeypatch, tmp_path: Path, clerk: AppContext, person: int) -> None:  # noqa: ANN001
    face = astronaut()
    pair = Image.new("RGB", (1024, 512))
    pair.paste(face, (0, 0))
    pair.paste(face.transpose(Image.Transpose.FLIP_LEFT_RIGHT), (512, 0))
    path = tmp_path / "dupla.png"
    path.write_bytes(encode(pair, "PNG"))
    dialog = open_dialog(qtbot, clerk, person)
    import_file(qtbot, monkeypatch, dialog, path)
    assert dialog.analysis is not None and dialog.analysis.proposal.faces == 2
    assert "Mais de um rosto" in dialog.crop_note.text()
    assert any("mais de um rosto" in t for t in dialog.warning_texts())


@SQLITE_ONLY
def test_black_and_white_photo_is_flagged(qtbot, monkeypatch, tmp_path: Path, clerk: AppContext,  # noqa: ANN001
                                          person: int) -> None:
    path = tmp_path / "pb.jpg"
    path.write_bytes(encode(astronaut().convert("L").convert("RGB").resize((1024, 1024))))
    dialog = open_dialog(qtbot, clerk, person)
    import_file(qtbot, monkeypatch, dialog, path)
    assert MSG_GREY in dialog.warning_texts() and not dialog.accept_button.isEnabled()


# -- bad input -----------------------------------------------------------------------------------
def _bad_files() -> list[tuple[str, bytes, str]]:
    jpeg = encode(astronaut())
    return [
        ("truncated.jpg", jpeg[: len(jpeg) // 3], "corrompida ou incompleta"),
        ("bomba.png", png_declaring(60_000, 60_000), "grande demais"),
        ("bomba-56mp.png", png_declaring(8_000, 7_000), "grande demais"),
        ("planilha.jpg", "Nome;CPF\nJoão;123.456.789-00\n".encode(), "não é uma imagem em formato aceito"),
        ("vazio.jpg", b"", "vazio"),
        ("iphone.jpg", b"\0\0\0\x18ftypheic" + b"\0" * 64, "HEIC"),
        ("minuscula.png", encode(astronaut().resize((20, 30)), "PNG"), "pequena demais"),
    ]


@SQLITE_ONLY
@pytest.mark.parametrize(("name", "data", "message"), _bad_files(), ids=[b[0] for b in _bad_files()])
def test_bad_files_are_refused_with_a_clear_message_and_nothing_is_stored(
        qtbot, monkeypatch, tmp_path: Path, clerk: AppContext, person: int,  # noqa: ANN001
        name: str, data: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    dialog = open_dialog(qtbot, clerk, person)
    import_file(qtbot, monkeypatch, dialog, path)
    assert dialog.refusal.isVisible()
    assert dialog.refusal.text().startswith("Foto recusada: ") and message in dialog.refusal.text()
    assert dialog.analysis is None and dialog.crop_view.image.isNull()
    assert not dialog.accept_button.isEnabled()
    dialog.accept_photo()  # even if called, there is nothing to keep
    assert photos.photo_history(clerk, person) == []
    # The clerk can go on: another file works.
    import_file(qtbot, monkeypatch, dialog, ASTRONAUT)
    assert not dialog.refusal.isVisible() and dialog.analysis is not None


@SQLITE_ONLY
def test_unreadable_and_oversized_files_are_refused(qtbot, monkeypatch, tmp_path: Path, clerk: AppContext,  # noqa: ANN001
                                                    person: int) -> None:
    dialog = open_dialog(qtbot, clerk, person)
    import_file(qtbot, monkeypatch, dialog, tmp_path / "sumiu.jpg")
    assert "Não foi possível ler o arquivo" in dialog.refusal.text()
    huge = tmp_path / "enorme.jpg"
    with huge.open("wb") as f:
        f.truncate(photo_dialog_module.MAX_FILE_BYTES + 1)
    import_file(qtbot, monkeypatch, dialog, huge)
    assert "o limite para uma foto é 60 MB" in dialog.refusal.text()


@pytest.mark.parametrize("kind", ["cmyk", "16-bit"])
def test_cmyk_and_16_bit_files_are_converted_and_say_so(qtbot, monkeypatch, tmp_path: Path,  # noqa: ANN001
                                                        clerk: AppContext, person: int, kind: str) -> None:
    big = astronaut_4x3().resize((1536, 1152), Image.Resampling.BICUBIC)
    if kind == "cmyk":
        data, note = encode(big.convert("CMYK"), quality=95), MSG_CMYK
    else:
        import cv2

        rgb16 = np.asarray(big).astype(np.uint16) * 257
        ok, png = cv2.imencode(".png", rgb16[:, :, ::-1])
        assert ok
        data, note = png.tobytes(), MSG_16_BIT
    path = tmp_path / f"{kind}.img"
    path.write_bytes(data)
    dialog = open_dialog(qtbot, clerk, person)
    import_file(qtbot, monkeypatch, dialog, path)
    assert note in dialog.crop_note.text()
    assert dialog.analysis is not None and dialog.analysis.proposal.face_found
    assert dialog.warning_texts() == []
    accept(qtbot, dialog)
    stored = photos.newest_photo(clerk, person)
    assert stored is not None
    assert_badge_jpeg(stored.jpeg)
    with Image.open(io.BytesIO(stored.jpeg)) as im:  # the colours survived the conversion
        r, g, b = (float(np.asarray(im)[..., c].mean()) for c in range(3))
        assert r > b  # skin tones and the orange suit: red dominates


@SQLITE_ONLY
def test_a_refusal_by_the_service_keeps_the_dialog_open(qtbot, monkeypatch, clerk: AppContext,  # noqa: ANN001
                                                        person: int) -> None:
    shown: list[str] = []
    monkeypatch.setattr(photo_dialog_module, "show_error", lambda parent, exc, title=None: shown.append(str(exc)))

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise InvalidInputError("Art. 5º, IX: a foto 3x4 deve ter 354×472 pixels.")

    monkeypatch.setattr(photos, "store_photo", refuse)
    dialog = open_dialog(qtbot, clerk, person, fake_factory(astronaut_frame(1600, 1200))[0])
    capture(qtbot, dialog)
    qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(shown))
    assert "Art. 5º, IX" in shown[0]
    assert dialog.isVisible() and dialog.mode == "review" and dialog.accept_button.isEnabled()


@SQLITE_ONLY
def test_warnings_the_service_finds_are_shown_and_overridden_with_a_reason(qtbot, monkeypatch,  # noqa: ANN001
                                                                          clerk: AppContext, person: int) -> None:
    # The service judges the finished photo itself (Art. 5º, IX): here it finds a blur the dialog did not.
    monkeypatch.setattr(photos, "quality_warnings", lambda _jpeg: ("Foto tremida ou fora de foco.",))
    dialog = open_dialog(qtbot, clerk, person, fake_factory(astronaut_frame(1600, 1200))[0])
    capture(qtbot, dialog)
    assert dialog.warning_texts() == []
    qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.mode == "review" and bool(dialog.service_warnings), timeout=15_000)
    assert photos.newest_photo(clerk, person) is None
    assert "Foto tremida ou fora de foco." in dialog.warning_texts()
    assert dialog.override.isVisible() and not dialog.accept_button.isEnabled()
    tick(qtbot, dialog.override)
    qtbot.keyClicks(dialog.override_reason, "Requerente com tremor, outra foto sairia igual")
    accept(qtbot, dialog)
    stored = photos.newest_photo(clerk, person)
    assert stored is not None and stored.override_reason is not None
    assert stored.override_reason.startswith("Requerente com tremor") and "tremida" in stored.override_reason


# -- editing the crop ----------------------------------------------------------------------------
@SQLITE_ONLY
def test_drag_wheel_slider_keys_and_reset(qtbot, clerk: AppContext, person: int) -> None:  # noqa: ANN001
    dialog = open_dialog(qtbot, clerk, person, fake_factory(astronaut_frame(1600, 1200))[0])
    capture(qtbot, dialog)
    analysis = dialog.analysis
    assert analysis is not None
    size = analysis.photo.size
    proposed = dialog.box
    view = dialog.crop_view

    # Drag the photo 27 px (a tenth of the view) to the right: the crop moves left.
    qtbot.mousePress(view, Qt.MouseButton.LeftButton, pos=QPoint(100, 100))
    qtbot.mouseMove(view, QPoint(127, 100))
    qtbot.mouseRelease(view, Qt.MouseButton.LeftButton, pos=QPoint(127, 100))
    moved = dialog.box
    assert moved.width == proposed.width and moved.top == proposed.top
    assert moved.left == proposed.left - round(27 * proposed.width / view.width())
    assert_3x4_inside(moved, size)

    # Wheel up zooms in (smaller crop) around the pointer.
    wheel = QWheelEvent(QPointF(135, 180), QPointF(view.mapToGlobal(QPoint(135, 180))), QPoint(), QPoint(0, 120),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(view, wheel)
    zoomed = dialog.box
    assert zoomed.width < moved.width
    assert zoomed.center[0] == pytest.approx(moved.center[0], abs=3)
    assert_3x4_inside(zoomed, size)
    assert dialog.zoom_slider.value() > 0

    # The slider all the way left: the largest crop the picture allows.
    dialog.zoom_slider.setValue(0)
    assert dialog.box.height == size[1] // 4 * 4 or dialog.box.width == size[0] // 3 * 3
    assert_3x4_inside(dialog.box, size)

    # Keys: focus on the crop, arrows move, + zooms.
    view.setFocus()
    dialog.reset_button.click()
    assert dialog.box == proposed
    qtbot.keyClick(view, Qt.Key.Key_Down)
    assert dialog.box.top > proposed.top and dialog.box.left == proposed.left
    qtbot.keyClick(view, Qt.Key.Key_Plus)
    assert dialog.box.width < proposed.width
    wait_settled(qtbot, dialog)
    # The left view follows the crop (in display pixels).
    s = analysis.display_scale
    assert dialog.source_view.crop is not None
    assert dialog.source_view.crop.width() == pytest.approx(dialog.box.width * s)


@SQLITE_ONLY
def test_zooming_in_too_far_warns_again_and_takes_back_the_override(qtbot, monkeypatch, tmp_path: Path,  # noqa: ANN001
                                                                     clerk: AppContext, person: int) -> None:
    with Image.open(PHOTOS / "coffee.png") as coffee:
        big = coffee.convert("RGB").resize((1800, 1200), Image.Resampling.BICUBIC)
    path = tmp_path / "xicara.png"
    path.write_bytes(encode(big, "PNG"))
    dialog = open_dialog(qtbot, clerk, person)
    import_file(qtbot, monkeypatch, dialog, path)  # no face: a warning to override
    assert [w.code for w in dialog.quality] == [QualityCode.NO_FACE]
    tick(qtbot, dialog.override)
    qtbot.keyClicks(dialog.override_reason, "Foto de teste")
    assert dialog.accept_button.isEnabled()
    dialog.zoom_slider.setValue(900)  # a tiny crop: it would be upscaled a lot
    wait_settled(qtbot, dialog)
    assert any("ampliado" in t for t in dialog.warning_texts())
    assert not dialog.override.isChecked() and not dialog.accept_button.isEnabled()


# -- no camera -----------------------------------------------------------------------------------
@SQLITE_ONLY
def test_without_a_camera_the_dialog_says_so_and_import_still_works(qtbot, monkeypatch, clerk: AppContext,  # noqa: ANN001
                                                                    person: int) -> None:
    factory, made = fake_factory(cameras=())
    dialog = open_dialog(qtbot, clerk, person, factory)
    assert dialog.mode == "no_camera"
    assert dialog.camera_message.isVisible()
    assert dialog.camera_message.text().startswith("Nenhuma câmera encontrada")
    assert dialog.source_view.message.startswith("Nenhuma câmera encontrada")
    assert not dialog.capture_button.isEnabled() and not dialog.retake_button.isEnabled()
    assert dialog.import_button.isEnabled() and made[0].frames_sent == 0
    import_file(qtbot, monkeypatch, dialog, ASTRONAUT)
    assert dialog.analysis is not None and not dialog.retake_button.isEnabled()
    assert not dialog.camera_message.isVisible()  # the photo is in: the warning is gone (#26 item 10)


@SQLITE_ONLY
def test_without_qtmultimedia_the_dialog_explains_and_offers_import(qtbot, monkeypatch, clerk: AppContext,  # noqa: ANN001
                                                                    person: int) -> None:
    def broken() -> None:
        raise ImportError("libpulse.so.0: cannot open shared object file: No such file or directory")

    monkeypatch.setattr(camera_module, "_import_multimedia", broken)
    create_application()
    dialog = PhotoDialog(clerk, person)  # the real default source
    qtbot.addWidget(dialog)
    dialog.show()
    text = dialog.camera_message.text()
    assert text.startswith("O suporte a câmera não está disponível neste computador: libpulse.so.0")
    assert "Importe a foto de um arquivo" in text
    assert not dialog.capture_button.isEnabled() and dialog.import_button.isEnabled()
    import_file(qtbot, monkeypatch, dialog, ASTRONAUT)
    assert dialog.analysis is not None


@SQLITE_ONLY
def test_camera_unplugged_and_camera_errors(qtbot, clerk: AppContext, person: int) -> None:  # noqa: ANN001
    factory, made = fake_factory()
    dialog = open_dialog(qtbot, clerk, person, factory)
    qtbot.waitUntil(dialog.capture_button.isEnabled)
    made[0].fail("A câmera informou um erro: dispositivo ocupado. Escolha outra câmera ou importe a foto de um arquivo.")
    assert "dispositivo ocupado" in dialog.camera_message.text()
    assert not dialog.capture_button.isEnabled() and dialog.import_button.isEnabled()
    made[0].set_cameras(())
    assert dialog.mode == "no_camera" and "Nenhuma câmera encontrada" in dialog.camera_message.text()
    made[0].set_cameras((CameraChoice("fake-0", "Câmera de teste"),))  # plugged back in
    assert dialog.mode == "live" and not dialog.camera_message.isVisible()
    qtbot.waitUntil(dialog.capture_button.isEnabled)


@SQLITE_ONLY
def test_the_chosen_camera_is_remembered(qtbot, clerk: AppContext, person: int) -> None:  # noqa: ANN001
    cameras = (CameraChoice("fake-0", "Webcam do balcão"), CameraChoice("fake-1", "Câmera USB HD"))
    factory, made = fake_factory(cameras=cameras)
    dialog = open_dialog(qtbot, clerk, person, factory)
    combo = dialog.camera_combo
    assert combo.isEnabled() and [combo.itemText(i) for i in range(combo.count())] == [c.name for c in cameras]
    assert combo.currentIndex() == 0 and made[0].current_camera() == "fake-0"
    combo.setCurrentIndex(1)
    assert made[0].current_camera() == "fake-1" and made[0].is_active()
    assert QSettings().value(SETTINGS_KEY) == "fake-1"
    dialog.reject()

    again = open_dialog(qtbot, clerk, person, factory)
    assert again.camera_combo.currentText() == "Câmera USB HD" and made[1].current_camera() == "fake-1"


# -- leaving -------------------------------------------------------------------------------------
@SQLITE_ONLY
def test_escape_cancels_and_stores_nothing(qtbot, clerk: AppContext, person: int) -> None:  # noqa: ANN001
    factory, made = fake_factory()
    dialog = open_dialog(qtbot, clerk, person, factory)
    capture(qtbot, dialog)
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert dialog.result() == QDialog.DialogCode.Rejected and not dialog.isVisible()
    assert not made[0].is_active() and dialog.stored is None
    assert photos.photo_history(clerk, person) == []


@SQLITE_ONLY
def test_an_abandoned_analysis_is_ignored(qtbot, monkeypatch, clerk: AppContext, person: int) -> None:  # noqa: ANN001
    dialog = open_dialog(qtbot, clerk, person)
    qtbot.waitUntil(dialog.capture_button.isEnabled)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(ASTRONAUT), ""))
    dialog.import_file()
    assert dialog.mode == "analysing" and dialog.retake_button.isEnabled()
    dialog.retake()  # the clerk changed their mind before the analysis finished
    QThreadPool.globalInstance().waitForDone(30_000)
    qtbot.waitUntil(lambda: ServiceOp.running() == 0)  # the result delivered (and dropped)
    drain_events()
    assert dialog.mode == "live" and dialog.analysis is None and dialog.crop_view.image.isNull()


@SQLITE_ONLY
def test_closing_during_analysis_is_harmless(qtbot, monkeypatch, clerk: AppContext, person: int) -> None:  # noqa: ANN001
    dialog = open_dialog(qtbot, clerk, person)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(ASTRONAUT), ""))
    dialog.import_file()
    dialog.reject()
    QThreadPool.globalInstance().waitForDone(30_000)
    qtbot.waitUntil(lambda: ServiceOp.running() == 0)  # the result delivered (and dropped)
    drain_events()
    assert dialog.analysis is None and dialog.stored is None


# -- history and roles ---------------------------------------------------------------------------
def _badge(colour: tuple[int, int, int]) -> bytes:
    return encode(Image.new("RGB", (354, 472), colour), quality=90, dpi=(300, 300))


@SQLITE_ONLY
def test_history_tab_lists_earlier_photos_newest_first(qtbot, qtmodeltester, clerk: AppContext,  # noqa: ANN001
                                                       supervisor: AppContext, person: int) -> None:
    first = photos.store_photo(clerk, person, _badge((200, 40, 40)), "file", override_reason=SYNTHETIC)
    second = photos.store_photo(supervisor, person, _badge((40, 40, 200)), "camera", override_reason=SYNTHETIC)
    dialog = open_dialog(qtbot, clerk, person)
    model = dialog.history_model
    qtmodeltester.check(model)
    assert dialog.tabs.tabText(1) == "&Histórico (2)"
    assert [model.row_at(r).id for r in range(model.rowCount())] == [second.id, first.id]
    cells = [[model.index(r, c).data() for c in range(model.columnCount())] for r in range(2)]
    assert cells[0][2:] == ["supervisor", "câmera", "No crachá"]
    assert cells[1][2:] == ["clerk", "arquivo", "Anterior"]
    assert cells[0][1].count("/") == 2  # dd/mm/aaaa hh:mm
    thumb = model.index(0, 0).data(Qt.ItemDataRole.DecorationRole)
    assert thumb is not None and not thumb.isNull() and thumb.height() == 60
    dialog.tabs.setCurrentIndex(1)
    dialog.history_view.selectRow(1)
    shown = dialog.history_photo.pixmap().toImage()
    assert shown.pixelColor(shown.width() // 2, shown.height() // 2).red() > 150  # the red one


@SQLITE_ONLY
def test_history_of_a_person_without_photos(qtbot, clerk: AppContext, person: int) -> None:  # noqa: ANN001
    dialog = open_dialog(qtbot, clerk, person)
    assert dialog.tabs.tabText(1) == "&Histórico (0)"
    assert dialog.history_note.text() == "Nenhuma foto guardada ainda."


@SQLITE_ONLY
def test_an_inspector_may_look_but_not_store(qtbot, inspector: AppContext, person: int) -> None:  # noqa: ANN001
    dialog = open_dialog(qtbot, inspector, person, fake_factory(astronaut_frame(1600, 1200))[0])
    capture(qtbot, dialog)
    assert not dialog.accept_button.isEnabled()
    assert "atendimento e a supervisão" in dialog.accept_button.toolTip()


# -- screenshot ----------------------------------------------------------------------------------
@SQLITE_ONLY
def test_screenshot(qtbot, clerk: AppContext, person: int) -> None:  # noqa: ANN001
    from motodesk.imaging import process_upload

    photos.store_photo(clerk, person, process_upload(ASTRONAUT.read_bytes()).jpeg, "file")
    factory, _made = fake_factory(astronaut_frame(1600, 1200))
    dialog = open_dialog(qtbot, clerk, person, factory)
    qtbot.waitUntil(lambda: not dialog.source_view.image.isNull())
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    dialog.grab().save(str(SCREENSHOTS / "photo_dialog_live.png"))
    capture(qtbot, dialog)
    dialog.grab().save(str(SCREENSHOTS / "photo_dialog.png"))
    assert (SCREENSHOTS / "photo_dialog.png").stat().st_size > 10_000
    dialog.tabs.setCurrentIndex(1)
    dialog.grab().save(str(SCREENSHOTS / "photo_dialog_history.png"))


# -- the dossier's hook ----------------------------------------------------------------------------
@SQLITE_ONLY
def test_take_photo_returns_the_stored_photo_or_none(qtbot, monkeypatch, clerk: AppContext,  # noqa: ANN001
                                                     person: int) -> None:
    create_application()
    factory, _made = fake_factory(astronaut_frame(1600, 1200))

    def clerk_takes_the_photo(dialog: PhotoDialog) -> int:
        dialog.show()
        capture(qtbot, dialog)
        accept(qtbot, dialog)
        return dialog.result()

    monkeypatch.setattr(PhotoDialog, "exec", clerk_takes_the_photo)
    stored = photo_dialog_module.take_photo(clerk, person, person_name="Eileen", source_factory=factory)
    newest = photos.newest_photo(clerk, person)
    assert stored is not None and newest is not None and stored.id == newest.id

    def clerk_cancels(dialog: PhotoDialog) -> int:
        dialog.show()
        qtbot.keyClick(dialog, Qt.Key.Key_Escape)
        return dialog.result()

    monkeypatch.setattr(PhotoDialog, "exec", clerk_cancels)
    assert photo_dialog_module.take_photo(clerk, person, source_factory=factory) is None
    assert len(photos.photo_history(clerk, person)) == 1
