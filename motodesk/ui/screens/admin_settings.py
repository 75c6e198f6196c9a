"""Administração › Configurações da lei: the form generated from :class:`~motodesk.rules.settings.LawSettings`
(:func:`motodesk.services.administration.settings_form`), one :class:`SettingEditor` per field chosen by
its type, saved in one transaction and judged by the rules; a refusal is placed on the fields it concerns.
Also :class:`AccessKeys`, which gives each label of a generated form an access key."""

from __future__ import annotations

import json
from datetime import date, datetime, time
from decimal import Decimal
from enum import Enum
from typing import Any

from PySide6.QtCore import QLocale, Qt, QTime
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QScrollArea,
    QSpinBox,
    QStackedWidget,
    QTimeEdit,
    QVBoxLayout,
    QWidget,
)

from motodesk.rules.text import parse_day
from motodesk.services import administration
from motodesk.services.administration import SettingField
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError
from motodesk.ui.formkit import push_button, wrapped_label
from motodesk.ui.guard import snapshot
from motodesk.ui.ops import ServiceOp, load_into
from motodesk.ui.widgets import MESSAGE_STYLE, NOTE_STYLE, DateField, mark_field, note_line

PT_BR = QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil)
WARN_STYLE = "color: #8a5a00"


#: Keys the settings tab's labels never take: its buttons, the page's tabs, the window's menus and
#: the backup reminder's buttons.
SETTINGS_RESERVED = "sdglucrafjomi"


class AccessKeys:
    """Gives each label an access key: the first letter of its text not used yet; when every letter
    is used, one that is at least not ``reserved`` (the buttons' and tabs' keys, which must stay unique)."""

    def __init__(self, reserved: str = "") -> None:
        self.reserved = set(reserved.lower())
        self.used = set(self.reserved)

    def __call__(self, text: str) -> str:
        for allowed in (lambda c: c not in self.used, lambda c: c not in self.reserved):
            for i, ch in enumerate(text):
                if ch.isascii() and ch.isalnum() and allowed(ch.lower()):
                    self.used.add(ch.lower())
                    return text[:i] + "&" + text[i:]
        return text


# -- Configurações da lei -----------------------------------------------------------------------------
def _parse_dates(text: str) -> tuple[date, ...]:
    days: list[date] = []
    for part in text.replace(",", ";").replace("\n", ";").split(";"):
        part = part.strip()
        if not part:
            continue
        try:
            days.append(parse_day(part))
        except ValueError:
            raise ValueError(f"Data inválida: “{part}”. Use dd/mm/aaaa, separadas por ponto e vírgula.") from None
    return tuple(sorted(set(days)))


def _parse_times(text: str) -> tuple[time, ...]:
    times: list[time] = []
    for part in text.replace(",", ";").split(";"):
        part = part.strip()
        if not part:
            continue
        try:
            times.append(datetime.strptime(part, "%H:%M").time())
        except ValueError:
            raise ValueError(f"Horário inválido: “{part}”. Use hh:mm, separados por ponto e vírgula.") from None
    return tuple(times)


def _enum_label(member: Enum) -> str:
    return str(getattr(member, "label", member.value))


class SettingEditor:
    """The input of one setting and how to read and write its value."""

    def __init__(self, field: SettingField, keys: AccessKeys) -> None:
        self.field = field
        self.checks: list[QCheckBox] = []
        self.widget: QWidget = self._build(field, keys)
        self.input: QWidget = self.checks[0] if self.checks and field.kind == administration.ENUM_SET else self.widget
        self.input.setObjectName(f"setting_{field.name}")
        tip = f"{field.label}\n{field.article}"
        if field.default is not None:
            tip += f"\nPadrão: {self.shown(field.default)}"
        self.widget.setToolTip(tip)
        self.set_value(field.value)

    def _build(self, f: SettingField, keys: AccessKeys) -> QWidget:
        kind = f.kind
        if kind == administration.BOOL:
            return QCheckBox()
        if kind in (administration.INT, administration.OPTIONAL_INT):
            spin = QSpinBox()
            spin.setLocale(PT_BR)
            spin.setRange(f.minimum if f.minimum is not None else 0, f.maximum if f.maximum is not None else 10**9)
            spin.setGroupSeparatorShown(spin.maximum() >= 100_000 and not f.name.endswith("_year"))
            if kind == administration.OPTIONAL_INT:
                spin.setSpecialValueText("vazio")
            spin.setMaximumWidth(180)
            return spin
        if kind in (administration.DECIMAL, administration.MONEY):
            money = QDoubleSpinBox()
            money.setLocale(PT_BR)
            money.setDecimals(2)
            money.setRange(0, 10**9)
            money.setGroupSeparatorShown(True)
            if kind == administration.MONEY:
                money.setPrefix("R$ ")
            money.setMaximumWidth(180)
            return money
        if kind == administration.DATE:
            return DateField()
        if kind == administration.TIME:
            edit = QTimeEdit()
            edit.setDisplayFormat("HH:mm")
            return edit
        if kind == administration.ENUM and f.enum is not None:
            combo = QComboBox()
            for member in f.enum:
                combo.addItem(_enum_label(member), member.value)
            return combo
        if kind == administration.ENUM_SET and f.enum is not None:
            box = QWidget()
            row = QHBoxLayout(box)
            row.setContentsMargins(0, 0, 0, 0)
            for member in f.enum:
                check = QCheckBox(keys(_enum_label(member)))
                check.setProperty("member", member.value)
                check.setObjectName(f"setting_{f.name}_{member.value}")
                self.checks.append(check)
                row.addWidget(check)
            row.addStretch(1)
            return box
        line = QLineEdit()
        if kind == administration.DATES:
            line.setPlaceholderText("dd/mm/aaaa; dd/mm/aaaa; …")
        elif kind == administration.TIMES:
            line.setPlaceholderText("hh:mm; hh:mm; …")
        elif kind == administration.TEXTS:
            line.setPlaceholderText("um valor; outro valor; …")
        elif kind == administration.OTHER:
            line.setPlaceholderText("valor em JSON")
        return line

    # -- values -----------------------------------------------------------------------------------
    def shown(self, value: Any) -> str:
        if value is None:
            return "vazio"
        if isinstance(value, bool):
            return "sim" if value else "não"
        if isinstance(value, tuple):
            return "; ".join(self.shown(v) for v in value) or "nenhum"
        if isinstance(value, date):
            return value.strftime("%d/%m/%Y")
        if isinstance(value, time):
            return value.strftime("%H:%M")
        if isinstance(value, Enum):
            return _enum_label(value)
        if isinstance(value, Decimal):
            return PT_BR.toString(float(value), "f", 2)
        if isinstance(value, int):
            return PT_BR.toString(value)
        return str(value)

    def set_value(self, value: Any) -> None:
        w, kind = self.widget, self.field.kind
        if isinstance(w, QCheckBox):
            w.setChecked(bool(value))
        elif isinstance(w, QSpinBox):
            w.setValue(w.minimum() if value is None else int(value))
        elif isinstance(w, QDoubleSpinBox):
            w.setValue(float(value))
        elif isinstance(w, DateField):
            w.set_value(value)
        elif isinstance(w, QTimeEdit):
            w.setTime(QTime(value.hour, value.minute) if value else QTime(0, 0))
        elif isinstance(w, QComboBox):
            w.setCurrentIndex(w.findData(value.value if isinstance(value, Enum) else value))
        elif self.checks:
            chosen = {v.value if isinstance(v, Enum) else v for v in (value or ())}
            for check in self.checks:
                check.setChecked(check.property("member") in chosen)
        elif isinstance(w, QLineEdit):
            if kind in (administration.DATES, administration.TIMES, administration.TEXTS):
                w.setText(self.shown(tuple(value or ())) if value else "")
            elif kind == administration.OTHER:
                from motodesk.services.settings import _encode

                w.setText(json.dumps(_encode(value), ensure_ascii=False))
            else:
                w.setText("" if value is None else str(value))
            w.setCursorPosition(0)  # the start of a long text (a legal basis) in view

    def value(self) -> Any:
        """The typed value, in the field's type; ValueError (pt_BR) when it cannot be read."""
        w, kind, f = self.widget, self.field.kind, self.field
        if isinstance(w, QCheckBox):
            return w.isChecked()
        if isinstance(w, QSpinBox):
            if kind == administration.OPTIONAL_INT and w.value() == w.minimum():
                return None
            return w.value()
        if isinstance(w, QDoubleSpinBox):
            return Decimal(str(round(w.value(), 2))).quantize(Decimal("0.01"))
        if isinstance(w, DateField):
            problem = w.problem()
            if problem:
                raise ValueError(problem)
            return w.value()
        if isinstance(w, QTimeEdit):
            t = w.time()
            return time(t.hour(), t.minute())
        if isinstance(w, QComboBox) and f.enum is not None:
            return f.enum(w.currentData())
        if self.checks and f.enum is not None:
            return tuple(f.enum(c.property("member")) for c in self.checks if c.isChecked())
        assert isinstance(w, QLineEdit)
        text = w.text()
        if kind == administration.DATES:
            return _parse_dates(text)
        if kind == administration.TIMES:
            return _parse_times(text)
        if kind == administration.TEXTS:
            return tuple(part.strip() for part in text.split(";") if part.strip())
        if kind == administration.OTHER:
            try:
                return json.loads(text)
            except json.JSONDecodeError:
                raise ValueError("Valor inválido (esperado JSON).") from None
        return text

    def changed(self) -> bool:
        try:
            value = self.value()
        except ValueError:
            return True
        current = self.field.value
        if isinstance(current, Decimal) and isinstance(value, Decimal):
            return current.quantize(Decimal("0.01")) != value
        return bool(value != current)


class SettingsTab(QWidget):
    """The form of every LawSettings field, grouped, each with its article."""

    def __init__(self, ctx: AppContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.setObjectName("settings_tab")
        self.editors: dict[str, SettingEditor] = {}
        self._clean: dict[str, Any] | None = None
        self._pending = ""
        self.stale = False
        # One page per group of settings (a list on the left): each fits the screen without scrolling,
        # and a scroll area is there should a group grow.
        self.groups = QListWidget()
        self.groups.setObjectName("settings_groups")
        self.groups.setMaximumWidth(250)
        self.groups.setWordWrap(True)
        self.stack = QStackedWidget()
        self.stack.setObjectName("settings_stack")
        self.groups.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.form_holder = self.stack
        self.group_of: dict[str, int] = {}
        self.scrolls: list[QScrollArea] = []
        groups_label = QLabel("&Grupo:")
        groups_label.setBuddy(self.groups)
        self.save_button = push_button("&Salvar configurações", "save_settings", self.save, auto_default=False)
        self.revert_button = push_button("&Desfazer alterações", "revert_settings", self.revert, auto_default=False)
        self.message = QLabel()
        self.message.setObjectName("settings_message")
        self.message.setWordWrap(True)
        intro = note_line("Valores que a Lei nº 4.883/2017 deixa ao Decreto, ao IBGE ou à Secretaria. Cada campo "
                          "mostra o artigo a que serve; os marcados como provisórios devem ser confirmados quando o "
                          "Decreto for publicado. Toda alteração fica na trilha de auditoria (valor anterior → novo).")
        buttons = QHBoxLayout()
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.revert_button)
        buttons.addWidget(self.message, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        body = QHBoxLayout()
        side = QVBoxLayout()
        side.addWidget(groups_label)
        side.addWidget(self.groups, 1)
        body.addLayout(side)
        body.addWidget(self.stack, 1)
        layout.addLayout(body, 1)
        layout.addLayout(buttons)

    # -- loading ----------------------------------------------------------------------------------
    def reload(self) -> None:
        if self.has_changes():
            self.stale = True
            self.message.setStyleSheet(WARN_STYLE)
            self.message.setText("As configurações foram alteradas em outra estação ou tela: salve ou desfaça as "
                                 "suas alterações para ver os valores atuais.")
            return
        ctx = self.ctx
        load_into(self, lambda: administration.settings_form(ctx), self._build, key="settings")

    def _build(self, fields: list[SettingField]) -> None:
        focused = self.focusWidget().objectName() if self.focusWidget() else ""
        shown = max(0, self.groups.currentRow())
        self.groups.blockSignals(True)
        self.groups.clear()
        self.groups.blockSignals(False)
        while self.stack.count():
            old = self.stack.widget(0)
            assert old is not None
            self.stack.removeWidget(old)
            old.setParent(None)  # out of the snapshot at once
            old.deleteLater()
        self.editors = {}
        self.group_of = {}
        self.scrolls = []
        keys = AccessKeys(SETTINGS_RESERVED)
        groups: dict[str, QFormLayout] = {}
        for f in fields:
            form = groups.get(f.group)
            if form is None:
                scroll = QScrollArea()
                scroll.setObjectName(f"settings_scroll_{len(groups)}")
                scroll.setWidgetResizable(True)
                scroll.setFrameShape(QScrollArea.Shape.NoFrame)
                box = QGroupBox(f.group)
                box.setObjectName(f"group_{len(groups)}")
                form = QFormLayout(box)
                form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
                holder = QWidget()
                column = QVBoxLayout(holder)
                column.addWidget(box)
                column.addStretch(1)
                scroll.setWidget(holder)
                self.stack.addWidget(scroll)
                self.scrolls.append(scroll)
                self.groups.addItem(f.group)
                groups[f.group] = form
            self.group_of[f.name] = len(groups) - 1
            editor = SettingEditor(f, keys)
            self.editors[f.name] = editor
            label = wrapped_label(keys(f.label) + ":")
            label.setBuddy(editor.input)
            label.setObjectName(f"label_{f.name}")
            label.setMinimumWidth(240)
            label.setMaximumWidth(380)
            row = QWidget()
            line = QHBoxLayout(row)
            line.setContentsMargins(0, 0, 0, 0)
            wide = f.kind in (administration.TEXT, administration.TEXTS, administration.DATES, administration.TIMES,
                              administration.OTHER)
            line.addWidget(editor.widget, 2 if wide else 0)
            notes = [f.article]
            if f.placeholder:
                notes.append("<span style='color:#8a5a00'>provisório: confirme quando o Decreto for publicado</span>")
            if f.damaged:
                notes.append("<span style='color:#b00020'>o valor gravado não pôde ser lido: vale o padrão</span>")
            article = QLabel(" · ".join(notes))
            article.setObjectName(f"article_{f.name}")
            article.setWordWrap(True)
            article.setStyleSheet("color: #555; font-size: 9pt")
            line.addWidget(article, 1)
            form.addRow(label, row)
        self.groups.setCurrentRow(min(shown, self.groups.count() - 1))
        self._clean = snapshot(self.form_holder)
        self.stale = False
        if self._pending:  # kept until the next save: the save's own reload and the one its announced
            self.message.setStyleSheet("color: #1b5e20")  # change brings may end in either order
            self.message.setText(self._pending)
        else:
            self.message.setStyleSheet(NOTE_STYLE)
            self.message.setText(f"{len(fields)} configurações.")
        target = self.findChild(QWidget, focused) if focused else None
        if target is not None:
            target.setFocus()

    # -- changes and saving -----------------------------------------------------------------------
    def has_changes(self) -> bool:
        return self._clean is not None and snapshot(self.form_holder) != self._clean

    def changes(self) -> dict[str, Any]:
        """The changed values; a value that cannot be read is marked on its field (ValueError)."""
        values: dict[str, Any] = {}
        problems: dict[QWidget, str] = {}
        for name, editor in self.editors.items():
            mark_field(editor.input, None)
            if not editor.changed():
                continue
            try:
                values[name] = editor.value()
            except ValueError as exc:
                problems[editor.input] = str(exc)
        if problems:
            for widget, text in problems.items():
                mark_field(widget, text)
            first = next(iter(problems))
            self.show_field(first)
            raise ValueError("; ".join(problems.values()))
        return values

    def save(self) -> None:
        self._pending = ""
        try:
            changes = self.changes()
        except ValueError as exc:
            self._show_error(str(exc))
            return
        if not changes:
            self.message.setStyleSheet(NOTE_STYLE)
            self.message.setText("Nenhuma configuração foi alterada.")
            return
        ctx = self.ctx
        fields = {name: editor.input for name, editor in self.editors.items()}
        names = [self.editors[k].field.label for k in changes]

        def saved(_settings: object) -> None:
            self._clean = None  # the reload rebuilds the form with the stored values
            self._pending = f"{len(changes)} configuração(ões) salva(s): {'; '.join(names)}."
            self.reload()

        def failed(exc: BaseException) -> None:
            if isinstance(exc, InvalidInputError):
                self._show_error(str(exc))
                first = next((fields[k] for k in exc.fields if k in fields), None)
                if first is not None:
                    self.show_field(first)

        ServiceOp(self, lambda: administration.save_law_settings(ctx, changes), busy="Salvando as configurações…",
                  fields=fields, change="settings", title="Configurações não salvas", on_conflict=self.revert) \
            .failure(failed).success(saved).run()

    def show_field(self, widget: QWidget) -> None:
        """Bring the group page of a field forward, scroll to it and focus it."""
        for name, editor in self.editors.items():
            if editor.input is widget:
                index = self.group_of[name]
                self.groups.setCurrentRow(index)
                self.scrolls[index].ensureWidgetVisible(widget)
        widget.setFocus(Qt.FocusReason.OtherFocusReason)

    def _show_error(self, text: str) -> None:
        self.message.setStyleSheet(MESSAGE_STYLE)
        self.message.setText(text)

    def revert(self) -> None:
        self._clean = None
        self.reload()
