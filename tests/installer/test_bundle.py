"""The installable build: installer/build.sh makes the bundle and the .deb, and both pass --self-test.

Slow (about 3–5 minutes on two cores) but run in CI: it is the only test of the frozen program,
which is where data files, Qt plugins and translations go missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from motodesk import __version__

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux build")]


def _clean_env(home: Path) -> dict[str, str]:
    """The environment of a clerk's computer: no virtual environment, no source tree on the path."""
    return {
        "PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", "QT_QPA_PLATFORM": "offscreen",
        "XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"), "MOTODESK_LOG_DIR": str(home / "log"),
    }


def _self_test(executable: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(executable), "--self-test"], capture_output=True, text=True, timeout=180,
                          env=_clean_env(home), cwd=home)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("installer")
    env = {**os.environ, "MOTODESK_DIST": str(out / "dist"), "MOTODESK_BUILD": str(out / "build")}
    proc = subprocess.run(["bash", str(ROOT / "installer" / "build.sh")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    return out / "dist"


@pytest.mark.timeout(2400)
def test_bundle_passes_its_self_test(built: Path, tmp_path: Path) -> None:
    executable = built / "motodesk" / "motodesk"
    assert executable.is_file() and os.access(executable, os.X_OK)
    proc = _self_test(executable, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-4000:]
    assert "Autoteste concluído" in proc.stdout
    for part in ("migrações", "crachá assinado em PDF", "restaurada e conferida", "Cancelar", "QtPdf",
                 "QtMultimedia com backend", "modelo de rostos"):
        assert part in proc.stdout, part
    version = subprocess.run([str(executable), "--version"], capture_output=True, text=True, timeout=60,
                             env=_clean_env(tmp_path))
    assert version.stdout.strip() == f"MotoDesk {__version__}"
    internal = built / "motodesk" / "_internal"
    assert (internal / "motodesk" / "models" / "migrations" / "versions" / "0001_first_schema.py").is_file()
    qms = sorted(p.name for p in internal.rglob("*.qm"))
    assert "qtbase_pt_BR.qm" in qms and all("pt_BR" in name for name in qms)
    assert not list(internal.rglob("*WebEngine*")), "QtWebEngine is not used and must not be shipped"


@pytest.mark.timeout(2400)
def test_deb_installs_the_bundle_and_a_desktop_entry(built: Path, tmp_path: Path) -> None:
    debs = list(built.glob(f"motodesk_{__version__}_*.deb"))
    assert len(debs) == 1
    info = subprocess.run(["dpkg-deb", "--field", str(debs[0]), "Package", "Version"], capture_output=True,
                          text=True, check=True).stdout
    assert "Package: motodesk" in info and f"Version: {__version__}" in info
    root = tmp_path / "root"
    subprocess.run(["dpkg-deb", "-x", str(debs[0]), str(root)], check=True)
    desktop = (root / "usr/share/applications/motodesk.desktop").read_text(encoding="utf-8")
    assert "Exec=/usr/bin/motodesk" in desktop and "Icon=motodesk" in desktop and "Name=MotoDesk" in desktop
    assert os.readlink(root / "usr/bin/motodesk") == "/opt/motodesk/motodesk"
    assert (root / "usr/share/icons/hicolor/256x256/apps/motodesk.png").is_file()
    if shutil.which("desktop-file-validate"):
        subprocess.run(["desktop-file-validate", str(root / "usr/share/applications/motodesk.desktop")], check=True)
    proc = _self_test(root / "opt/motodesk/motodesk", tmp_path)
    assert proc.returncode == 0 and "Autoteste concluído" in proc.stdout, proc.stdout + proc.stderr[-4000:]
