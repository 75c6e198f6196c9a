"""Imports every module of motodesk.ui.screens so that each registers its page with the window."""

from __future__ import annotations

import importlib
import pkgutil

import motodesk.ui.screens as _screens

for _info in sorted(pkgutil.iter_modules(_screens.__path__), key=lambda i: i.name):
    importlib.import_module(f"{_screens.__name__}.{_info.name}")
