"""The detail under a list (:class:`motodesk.ui.listpage.ListSpec`'s ``detail``): a title line, then two
labelled lists side by side, the left one wider (3:2)."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from motodesk.ui.listpage import labelled


def side_by_side(title: QLabel, left: tuple[str, QWidget], right: tuple[str, QWidget],
                 *under_right: QWidget) -> QWidget:
    """``title`` above ``left`` and ``right`` (each a label with its access key and the list it names);
    ``under_right`` below the right list."""
    details = QWidget()
    layout = QVBoxLayout(details)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(title)
    row = QHBoxLayout()
    for (label, widget), stretch, more in ((left, 3, ()), (right, 2, under_right)):
        column = QVBoxLayout()
        column.addWidget(labelled(label, widget))
        column.addWidget(widget)
        for extra in more:
            column.addWidget(extra)
        row.addLayout(column, stretch)
    layout.addLayout(row)
    return details
