"""Rotating log file in the user's log folder."""

from __future__ import annotations

import logging
import logging.handlers
import os
from pathlib import Path

_configured = False


def log_path() -> Path:
    from platformdirs import user_log_dir

    base = os.environ.get("MOTODESK_LOG_DIR") or user_log_dir("MotoDesk", "SESTRAN Patrocinio")
    return Path(base) / "motodesk.log"


def setup_logging(level: int = logging.INFO) -> Path:
    global _configured
    path = log_path()
    if _configured:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=2_000_000, backupCount=5, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
    _configured = True
    return path
