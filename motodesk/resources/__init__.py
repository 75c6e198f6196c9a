"""Icons and other files shipped inside the package (read with importlib.resources)."""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path


def resource_path(*parts: str) -> Path:
    """Path of a packaged resource, also inside a frozen (PyInstaller) build."""
    frozen_base = getattr(sys, "_MEIPASS", None)
    if frozen_base:
        return Path(frozen_base, "motodesk", "resources", *parts)
    return Path(str(resources.files("motodesk.resources").joinpath(*parts)))
