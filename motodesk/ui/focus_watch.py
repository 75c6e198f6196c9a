"""Where the keyboard focus goes (issue #26 item 1): always in sight, and traceable from outside.

On every focus change of the application:

* **Reveal** (:func:`reveal`): the widget that took the focus is scrolled into view inside every
  scroll area it sits in (innermost first). Qt scrolls only when the scroll area itself handles the
  Tab; an access key (a label's buddy), a field that moves the focus by ``setFocus`` (Tab out of a
  date field, a form's first empty field) left the cursor in a field the clerk could not see.
* **Trace** (``MOTODESK_FOCUS_TRACE=path``, off by default): one JSON line per change is appended to
  ``path`` — the widget's objectName, class and accessibleName, its window's objectName and title,
  and whether any of it is visible on screen — so that a benchmark driving the real application
  with X keys (``bench/bench_keyboard_x.py``) knows where the cursor is without reaching inside.
"""

from __future__ import annotations

import json
import logging
import os
import time

from PySide6.QtWidgets import QApplication, QScrollArea, QWidget

log = logging.getLogger(__name__)

TRACE_ENV = "MOTODESK_FOCUS_TRACE"
MARGIN = 8  # pixels kept around the revealed widget (its focus frame shows too)


def scroll_areas(widget: QWidget) -> list[QScrollArea]:
    """The scroll areas ``widget`` is scrolled by, innermost first."""
    areas: list[QScrollArea] = []
    parent = widget.parentWidget()
    while parent is not None and not parent.isWindow():
        contents = parent.widget() if isinstance(parent, QScrollArea) else None
        if isinstance(parent, QScrollArea) and contents is not None and contents.isAncestorOf(widget):
            areas.append(parent)
        parent = parent.parentWidget()
    return areas


def reveal(widget: QWidget) -> None:
    """Scroll every scroll area holding ``widget`` so that the widget is inside its viewport."""
    for area in scroll_areas(widget):
        area.ensureWidgetVisible(widget, MARGIN, MARGIN)


def _record(widget: QWidget) -> dict[str, object]:
    window = widget.window()
    return {"t": round(time.time(), 3), "name": widget.objectName(), "class": type(widget).__name__,
            "accessible": widget.accessibleName(), "window": window.objectName(), "title": window.windowTitle(),
            "visible": widget.isVisible() and not widget.visibleRegion().isEmpty()}


class FocusWatch:
    def __init__(self, trace: str | None) -> None:
        self.trace = trace

    def changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        if new is None:
            return
        try:
            reveal(new)
            if self.trace:
                with open(self.trace, "a", encoding="utf-8") as out:
                    out.write(json.dumps(_record(new), ensure_ascii=False) + "\n")
        except (RuntimeError, OSError):  # a widget deleted meanwhile; a trace file that cannot be written
            log.debug("focus watch skipped", exc_info=True)


def install(app: QApplication) -> None:
    """Once per application: reveal on every focus change, and trace it when asked."""
    if getattr(app, "_motodesk_focus_watch", None) is None:
        watch = FocusWatch(os.environ.get(TRACE_ENV) or None)
        app.focusChanged.connect(watch.changed)
        app._motodesk_focus_watch = watch  # type: ignore[attr-defined]
