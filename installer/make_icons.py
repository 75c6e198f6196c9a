"""Render motodesk/resources/icons/motodesk.svg to the PNG and ICO files the installers need.

Used by motodesk.spec at build time (so the icons never drift from the SVG); can also be run alone:
`.venv/bin/python installer/make_icons.py OUT_DIR`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SVG = ROOT / "motodesk" / "resources" / "icons" / "motodesk.svg"
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)


def render_png(size: int, target: Path) -> Path:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])  # noqa: F841 (fonts need an app)
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        raise SystemExit(f"invalid SVG: {SVG}")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    if not image.save(str(target)):
        raise SystemExit(f"could not write {target}")
    return target


def make_icons(out_dir: Path) -> dict[str, Path]:
    """motodesk.png (256 px) and motodesk.ico (16–256 px) in out_dir."""
    from PIL import Image

    out_dir.mkdir(parents=True, exist_ok=True)
    png = render_png(256, out_dir / "motodesk.png")
    ico = out_dir / "motodesk.ico"
    with Image.open(png) as im:
        im.save(ico, format="ICO", sizes=[(s, s) for s in ICO_SIZES])
    return {"png": png, "ico": ico, "svg": SVG}


if __name__ == "__main__":
    made = make_icons(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "icons")
    print("\n".join(str(p) for p in made.values()))
