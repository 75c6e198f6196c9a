"""The keyboard, the same in every window, by construction (issue #26 items 1, 2, 3 and 7).

One application-wide filter (:class:`KeyboardFilter`, installed by ``create_application``) applies
these rules to every window, dialog and page when it is shown, instead of each screen doing it:

* **Tab stops** (:func:`tidy_tab_stops`): a table or list never keeps Tab inside itself (Tab leaves
  it: ``tabKeyNavigation`` off), a scroll area is never a stop (its contents are), and an empty list or
  table is skipped by Tab until it has rows.
* **Where the focus starts** (:func:`initial_focus`): a window or dialog opens with the focus in its
  first empty field (a line edit, text box, spin box, editable combo box, or a group of radio buttons
  none of which is chosen); with none, where the screen put it, or on its first stop. After a dialog,
  a preview or a picker closes, the focus goes back to a visible widget (:func:`restore_focus`).
* **Access keys** (:func:`deconflict_access_keys`): within one window the menu bar, the page shown and
  its buttons never share an underlined letter — the letters are assigned by a matching over the
  letters of each text (the menu bar keeps its letters, push buttons keep theirs, a field with few
  letters is served first), again whenever Alt is pressed (texts set after the window was shown).
  Only in a window with more fields than letters may two labels share one (Alt+letter then moves
  the focus to each in turn); never a label and something that acts. A letter that could do nothing
  (a label without a buddy, a button whose shortcut was replaced by Ctrl+P) is either made to work
  or no longer underlined.
* **Enter and Home/End**: Enter on a focused push or tool button clicks it (in dialogs and in plain
  windows alike, whatever its ``autoDefault``); Home and End in a table of rows go to the first and
  last row, not the first and last column.

The focused widget is marked by the application style sheet (``motodesk.ui.app.FOCUS_STYLE``).
"""

from __future__ import annotations

import logging
import re
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDateTimeEdit,
    QDialog,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMenuBar,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QStackedWidget,
    QTabBar,
    QTableView,
    QTextEdit,
    QToolButton,
    QWidget,
)

log = logging.getLogger(__name__)

#: A window may set this property to keep the focus where its own code put it.
KEEP_FOCUS = "keyboard_keep_focus"
_EMPTY_SKIP = "_keyboard_empty_skip"  # an empty view whose Tab focus was taken away (its policy is kept here)
_ALT_HELPER = "_keyboard_alt_helper"

_MNEMONIC = re.compile(r"(?<!&)&(?!&)(.)")


# -- access keys ------------------------------------------------------------------------------------
def mnemonic(text: str | None) -> str | None:
    """The underlined letter of ``text`` ("Sa&lvar" → "l"), lower-case; None without one."""
    if not text:
        return None
    match = _MNEMONIC.search(text.replace("&&", "\0\0"))
    return match.group(1).lower() if match else None


def without_mnemonic(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&&")


def with_mnemonic(text: str, used: set[str]) -> str | None:
    """``text`` with its access key moved to a letter not in ``used``: the first letter of a word
    first, then any letter (ASCII letters and digits only, so that every keyboard types it).
    None when every letter of the text is taken."""
    plain = without_mnemonic(text)
    chars = plain.replace("&&", "\0\0")
    starts = [i for i, ch in enumerate(chars) if ch.isascii() and ch.isalnum() and (i == 0 or not chars[i - 1].isalnum())]
    others = [i for i, ch in enumerate(chars) if ch.isascii() and ch.isalnum() and i not in starts]
    for index in starts + others:
        if chars[index].lower() not in used:
            return f"{plain[:index]}&{plain[index:]}"
    return None


@dataclass(eq=False)
class Owner:
    """Something in a window that owns an underlined letter."""

    what: str  # for messages: "QPushButton 'save' '&Salvar'"
    text: str
    fixed: bool  # the menu bar's titles and shortcuts keep their letter
    widget: QWidget | None = None
    action: QAction | None = None
    tab: tuple[QTabBar, int] | None = None

    @property
    def letter(self) -> str | None:
        return mnemonic(self.text)

    def _memo(self) -> tuple[QObject | None, str]:
        if self.tab is not None:
            return self.tab[0], f"_keyboard_tab_{self.tab[1]}"
        return self.widget, "_keyboard_text"

    @property
    def original(self) -> str:
        """The text the screen gave (before this module moved its letter); a text the screen set since
        is the screen's again."""
        holder, key = self._memo()
        memo = holder.property(key) if holder is not None else None
        if isinstance(memo, list) and len(memo) == 2 and memo[1] == self.text:
            return str(memo[0])
        return self.text

    def set_text(self, text: str) -> None:
        holder, key = self._memo()
        original = self.original
        if holder is not None:
            holder.setProperty(key, [original, text])
        if self.action is not None:
            self.action.setText(text)
        elif self.tab is not None:
            self.tab[0].setTabText(self.tab[1], text)
        elif isinstance(self.widget, (QAbstractButton, QLabel)):
            self.widget.setText(text)
        elif isinstance(self.widget, QGroupBox):
            self.widget.setTitle(text)
        self.text = text


def _shown_in(widget: QWidget, window: QWidget) -> bool:
    return widget.window() is window and widget.isVisibleTo(window)


def _alt_letter(sequence: QKeySequence) -> str | None:
    """"Alt+S" → "s" (a shortcut that takes an access key's place)."""
    if sequence.count() != 1:
        return None
    combo = sequence[0]  # type: ignore[index]
    if combo.keyboardModifiers() != Qt.KeyboardModifier.AltModifier:
        return None
    text = QKeySequence(combo.key()).toString()
    return text.lower() if len(text) == 1 and text.isalnum() else None


def access_key_owners(window: QWidget) -> list[Owner]:
    """Every underlined letter the window answers to now (what is shown), the menu bar first."""
    owners: list[Owner] = []
    bars = [window.menuBar()] if isinstance(window, QMainWindow) and window.menuWidget() is not None else []
    for bar in bars:
        for action in bar.actions():
            if action.isVisible() and mnemonic(action.text()):
                owners.append(Owner(f"menu {action.text()!r}", action.text(), True, action=action))
    for shortcut in window.findChildren(QShortcut):
        parent = shortcut.parent()
        if not shortcut.isEnabled() or (isinstance(parent, QWidget) and not _shown_in(parent, window)):
            continue
        for sequence in shortcut.keys():
            letter = _alt_letter(sequence)
            if letter and not shortcut.property(_ALT_HELPER):
                owners.append(Owner(f"QShortcut {sequence.toString()}", f"&{letter}", True))
    for widget in _focus_order(window):
        if not _shown_in(widget, window) or isinstance(widget, QMenuBar):
            continue
        if isinstance(widget, QTabBar):
            for index in range(widget.count()):
                tab = Owner(f"tab {widget.tabText(index)!r}", widget.tabText(index), False,
                            widget=widget, tab=(widget, index))
                if widget.isTabVisible(index) and mnemonic(tab.original):
                    owners.append(tab)
            continue
        text = ""
        if isinstance(widget, (QAbstractButton, QLabel)):
            text = widget.text()
        elif isinstance(widget, QGroupBox):
            text = widget.title()
        if isinstance(widget, QLabel) and widget.textFormat() == Qt.TextFormat.RichText:
            continue  # rich text shows '&' as is: no access key
        owner = Owner(f"{type(widget).__name__} {widget.objectName()!r} {text!r}", text, False, widget=widget)
        if text and mnemonic(owner.original):  # its letter, or one this module took away and may give back
            owners.append(owner)
    return owners


def _focus_order(window: QWidget) -> list[QWidget]:
    """Every widget of the window in the order Tab visits them, labels just before their buddies.

    The order is that of the window's children, depth first: the order in which they were put in the
    window, which is the order Qt links them into the Tab chain (the screens here do not reorder it
    but for a few ``setTabOrder`` calls that follow it). The chain itself (``nextInFocusChain``) is
    not walked: after widgets are moved between parents it may still point at deleted ones, and
    following such a link crashed the application.
    """
    ordered: list[QWidget] = []

    def visit(parent: QWidget) -> None:
        for child in parent.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if child.isWindow():
                continue  # a dialog or popup owned by the window: a window of its own
            ordered.append(child)
            visit(child)

    visit(window)
    # a label goes just before its buddy, so that the pair keeps the letter the screen gave it
    labels = [w for w in ordered if isinstance(w, QLabel) and w.buddy() is not None]
    label_ids = {id(w) for w in labels}
    by_buddy: dict[int, list[QWidget]] = {}
    for label in labels:
        assert isinstance(label, QLabel)
        by_buddy.setdefault(id(label.buddy()), []).append(label)
    result: list[QWidget] = []
    for widget in ordered:
        if id(widget) in label_ids:
            continue
        result.extend(by_buddy.pop(id(widget), []))
        result.append(widget)
    for group in by_buddy.values():
        result.extend(group)
    return result


def does_nothing(owner: Owner, window: QWidget) -> bool:
    """An underlined letter that Alt+letter would not act on."""
    widget = owner.widget
    if isinstance(widget, QLabel):
        buddy = widget.buddy()
        return buddy is None or not _shown_in(buddy, window)
    if isinstance(widget, QAbstractButton) and owner.letter:
        own = widget.shortcut()
        if own.matches(QKeySequence.mnemonic(owner.text)) == QKeySequence.SequenceMatch.ExactMatch:
            return False
        return not any(isinstance(s, QShortcut) and s.property(_ALT_HELPER) == owner.letter
                       for s in widget.children())
    return False


def _make_work(owner: Owner) -> None:
    """A button whose own shortcut replaced its access key (``setShortcut("Ctrl+P")``): Alt+letter
    clicks it too."""
    widget = owner.widget
    assert isinstance(widget, QAbstractButton) and owner.letter
    for old in widget.children():
        if isinstance(old, QShortcut) and old.property(_ALT_HELPER):
            if old.property(_ALT_HELPER) == owner.letter:
                return
            old.setEnabled(False)
            old.setProperty(_ALT_HELPER, None)
            old.deleteLater()  # Qt deletes it (never setParent(None): Python would delete it a second time)
    helper = QShortcut(QKeySequence(f"Alt+{owner.letter.upper()}"), widget)
    helper.setProperty(_ALT_HELPER, owner.letter)
    helper.setContext(Qt.ShortcutContext.WindowShortcut)
    helper.activated.connect(lambda: _click_enabled(helper))


def _click_enabled(helper: QShortcut) -> None:
    button = helper.parent()  # never a lambda holding the button: it would outlive (and delete) it
    if isinstance(button, QAbstractButton) and button.isVisible() and button.isEnabled():
        button.animateClick()


def later(context: QWidget, call: Callable[[QWidget], object]) -> None:
    """``call(context)`` once the event loop is back, unless ``context`` is gone by then. The timer holds
    only a weak reference: a lambda holding the widget itself would, when Qt deletes the widget and
    the timer with it, drop the last Python reference in the middle of the deletion and delete it twice."""
    ref = weakref.ref(context)

    def run() -> None:
        widget = ref()
        if widget is not None and _alive(widget):
            call(widget)

    QTimer.singleShot(0, context, run)


def acts(owner: Owner) -> bool:
    """Alt+letter does something (a menu, a shortcut, a button or box pressed), not only moves the focus."""
    return owner.fixed or isinstance(owner.widget, QAbstractButton)


def clashes(window: QWidget, *, focus_only: bool = False) -> list[str]:
    """Letters the window's shown owners share where one of them acts ("s: menu '&Sobre' / QPushButton
    'save' '&Salvar'"); with ``focus_only``, the letters only labels and tabs share instead."""
    by_letter: dict[str, list[Owner]] = {}
    for owner in access_key_owners(window):
        if owner.letter:
            by_letter.setdefault(owner.letter, []).append(owner)
    return [f"{letter}: " + " / ".join(o.what for o in owners) for letter, owners in by_letter.items()
            if len(owners) > 1 and any(acts(o) for o in owners) != focus_only]


def idle_letters(window: QWidget) -> list[str]:
    return [owner.what for owner in access_key_owners(window) if owner.letter and does_nothing(owner, window)]


def candidate_letters(text: str, current: str | None) -> list[str]:
    """The letters ``text`` could underline, best first: its current one, word starts, the others."""
    plain = without_mnemonic(text).replace("&&", "\0\0")
    starts = [ch.lower() for i, ch in enumerate(plain)
              if ch.isascii() and ch.isalnum() and (i == 0 or not plain[i - 1].isalnum())]
    others = [ch.lower() for ch in plain if ch.isascii() and ch.isalnum()]
    ordered = ([current] if current else []) + starts + others
    return list(dict.fromkeys(ordered))


def _underline(text: str, letter: str) -> str:
    """``text`` with ``letter`` underlined: the first word starting with it, else its first occurrence."""
    plain = without_mnemonic(text)
    chars = plain.replace("&&", "\0\0")
    spots = [i for i, ch in enumerate(chars) if ch.lower() == letter]
    start = next((i for i in spots if i == 0 or not chars[i - 1].isalnum()), spots[0])
    return f"{plain[:start]}&{plain[start:]}"


def assign_letters(owners: list[Owner]) -> dict[int, str | None]:
    """A letter for as many owners as possible, none twice, moving as few as possible.

    Every owner whose letter is still free when its turn comes keeps it (in order: the menu bar, then
    push buttons, then the rest in Tab order), so a letter a screen gave and a clerk learnt never
    moves because of another widget. Only those that shared a letter move, to a free letter of their
    own text; one left without takes a letter from another mover that can move again (a matching),
    and a button still without one from a label, then from another button (never from the menu bar).
    Returns the letter of each owner by index; None where none could be found.
    """
    taken: dict[str, int] = {}
    letter_of: dict[int, str | None] = {}
    for i, owner in enumerate(owners):  # the letter the screen gave, when it is free
        first = mnemonic(owner.original)
        if first and first not in taken:
            taken[first] = i
            letter_of[i] = first
    kept = set(letter_of)
    movers = [i for i in range(len(owners)) if i not in kept]
    options = {i: candidate_letters(owners[i].original, owners[i].letter) for i in movers}
    for i in movers:
        letter = next((c for c in options[i] if c not in taken), None)
        letter_of[i] = letter
        if letter is not None:
            taken[letter] = i

    def augment(i: int, seen: set[str], pinned: set[int]) -> bool:
        for c in options.setdefault(i, candidate_letters(owners[i].original, None)):
            if c in seen:
                continue
            seen.add(c)
            holder = taken.get(c)
            if holder is None or (holder not in pinned and augment(holder, seen, pinned)):
                taken[c] = i
                letter_of[i] = c
                return True
        return False

    for i in movers:
        if letter_of[i] is None and not augment(i, set(), kept) and acts(owners[i]):
            # a button left without a letter may take one from a label or a tab (they only move the
            # focus), and failing that from another button that can move to a free letter of its own
            if not augment(i, set(), {j for j in kept if acts(owners[j])}):
                augment(i, set(), {j for j in kept if owners[j].fixed})
    return letter_of


def deconflict_access_keys(window: QWidget) -> int:
    """Give every shown owner of the window a letter of its own; returns how many texts changed."""
    changed = 0
    owners = access_key_owners(window)
    idle = [o for o in owners if isinstance(o.widget, QLabel) and o.widget.buddy() is None]
    for owner in idle:
        if owner.letter:
            owner.set_text(without_mnemonic(owner.text))  # no underline that promises nothing
            changed += 1
    # the menu bar first, then the push buttons (Salvar, Fechar keep the letters a clerk's hands know),
    # then tabs, labels, check boxes and group boxes, each in Tab order
    live = [o for o in owners if all(o is not i for i in idle)]
    buttons = [o for o in live if not o.fixed and isinstance(o.widget, (QPushButton, QToolButton))]
    ordered = [o for o in live if o.fixed] + buttons + [o for o in live if not o.fixed and all(o is not b for b in buttons)]
    letters = assign_letters(ordered)
    holders = {letter: ordered[i] for i, letter in letters.items() if letter is not None}
    for index, owner in enumerate(ordered):
        if owner.fixed:
            continue
        letter = letters.get(index)
        if letter is None:
            # every letter of its text is taken (a window with more fields than letters): a label or a tab
            # may share one with other labels (Alt+letter then moves the focus to each in turn), never with
            # something that acts; a button without a free letter keeps Enter and Space
            holder = holders.get(owner.letter or "")
            if owner.letter and (acts(owner) or (holder is not None and acts(holder))):
                owner.set_text(without_mnemonic(owner.text))
                changed += 1
            continue
        if letter != owner.letter:
            original = owner.original
            owner.set_text(original if mnemonic(original) == letter else _underline(original, letter))
            changed += 1
        if isinstance(owner.widget, QAbstractButton) and does_nothing(owner, window):
            _make_work(owner)
    return changed


# -- Tab stops --------------------------------------------------------------------------------------
def _is_empty_view(view: QAbstractItemView) -> bool:
    model = view.model()
    return model is None or model.rowCount(view.rootIndex()) == 0


def tidy_tab_stops(root: QWidget) -> None:
    """Tables and lists let Tab out; scroll areas are no stops; empty views are skipped by Tab."""
    for view in [root, *root.findChildren(QWidget)]:
        if isinstance(view, QAbstractItemView):
            view.setTabKeyNavigation(False)
        elif isinstance(view, (QPlainTextEdit, QTextEdit)):
            view.setTabChangesFocus(True)  # a Tab typed into a note is never what the clerk meant
        elif isinstance(view, QScrollArea) and view.focusPolicy() != Qt.FocusPolicy.NoFocus:
            view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    skip_empty_views(root.window())


def skip_empty_views(window: QWidget) -> None:
    """An empty list or table takes no Tab focus (a click still focuses it); one with rows takes it back."""
    for view in window.findChildren(QAbstractItemView):
        if view.parentWidget() is not None and isinstance(view.parentWidget(), QComboBox):
            continue
        kept = view.property(_EMPTY_SKIP)
        if _is_empty_view(view) and not view.hasFocus():
            if kept is None and view.focusPolicy() & Qt.FocusPolicy.TabFocus:
                view.setProperty(_EMPTY_SKIP, int(view.focusPolicy().value))
                view.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        elif kept is not None and not _is_empty_view(view):
            view.setFocusPolicy(Qt.FocusPolicy(kept))
            view.setProperty(_EMPTY_SKIP, None)


def tab_stops(window: QWidget) -> list[QWidget]:
    """The widgets Tab visits in the window, in order."""
    stops: list[QWidget] = []
    for widget in _focus_order(window):
        if not (widget.focusPolicy() & Qt.FocusPolicy.TabFocus) or not widget.isEnabled():
            continue
        if isinstance(widget.parentWidget(), (QAbstractSpinBox, QComboBox)):
            continue  # their line edit: the spin box or combo box is the stop (never ask focusProxy():
            #           a proxy deleted before the widget is a dangling pointer, and reading it crashed)
        if not _shown_in(widget, window) or isinstance(widget, QMenu):
            continue
        stops.append(widget)
    return stops


# -- where the focus starts -------------------------------------------------------------------------
def _radio_group_unanswered(button: QRadioButton) -> bool:
    group = button.group()
    if group is not None:
        return group.exclusive() and group.checkedButton() is None
    if not button.autoExclusive():
        return False
    parent = button.parentWidget()
    siblings = [b for b in (parent.findChildren(QRadioButton, options=Qt.FindChildOption.FindDirectChildrenOnly)
                            if parent else []) if b.group() is None]
    return not any(b.isChecked() for b in siblings)


def is_empty_input(widget: QWidget) -> bool:
    """A field waiting to be typed into (or a question still unanswered)."""
    if isinstance(widget, QLineEdit):
        return not widget.isReadOnly() and not any(ch.isalnum() for ch in widget.text())
    if isinstance(widget, (QPlainTextEdit, QTextEdit)):
        return not widget.isReadOnly() and not widget.toPlainText().strip()
    if isinstance(widget, QAbstractSpinBox):
        return not widget.isReadOnly() and not any(ch.isalnum() for ch in widget.text())
    if isinstance(widget, QComboBox):
        return widget.isEditable() and not widget.currentText().strip()
    if isinstance(widget, QRadioButton):
        return _radio_group_unanswered(widget)
    return False


def first_empty_input(window: QWidget) -> QWidget | None:
    return next((w for w in tab_stops(window) if is_empty_input(w)), None)


def initial_focus(window: QWidget) -> QWidget | None:
    """Put the focus where typing starts: the first empty field; without one, where the screen put it
    (when that is a visible stop) or the first stop. Returns the widget focused."""
    if not window.isVisible():
        return None
    current = window.focusWidget()
    stops = tab_stops(window)
    usable = current is not None and current in stops
    if usable and current is not None and is_empty_input(current):
        return current
    target = first_empty_input(window)
    if target is None:
        target = current if usable else (stops[0] if stops else None)
    if target is not None and target is not current:
        target.setFocus(Qt.FocusReason.OtherFocusReason)
    return target


def focus_is_lost(widget: QWidget | None) -> bool:
    return widget is None or not widget.isVisible() or not widget.isEnabled()


def restore_focus(back_to: QWidget | None = None) -> QWidget | None:
    """After a window closes, the focus is on a visible, enabled widget of the window that is left
    (the active one, or ``back_to``: the window the closed one belonged to)."""
    current = QApplication.focusWidget()
    if not focus_is_lost(current):
        return current
    window: QWidget | None = QApplication.activeWindow()
    if window is None or not window.isVisible():
        window = back_to
    if window is None or not window.isVisible():
        return None
    target: QWidget | None = window.focusWidget()
    if focus_is_lost(target):
        stops = tab_stops(window)
        target = first_empty_input(window) or (stops[0] if stops else None)
    if target is None:
        return None
    window.activateWindow()
    target.setFocus(Qt.FocusReason.ActiveWindowFocusReason)
    return target


# -- Enter, Home and End ----------------------------------------------------------------------------
_ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


def _press_button(button: QAbstractButton) -> None:
    if isinstance(button, QPushButton) and button.menu() is not None:
        button.showMenu()
    elif isinstance(button, QToolButton) and button.menu() is not None \
            and button.popupMode() != QToolButton.ToolButtonPopupMode.DelayedPopup:
        button.showMenu()
    else:
        button.animateClick()


def _row_end(view: QTableView, last: bool) -> bool:
    model = view.model()
    if model is None or view.selectionBehavior() != QAbstractItemView.SelectionBehavior.SelectRows:
        return False
    rows = model.rowCount(view.rootIndex())
    if not rows:
        return True
    column = max(view.currentIndex().column(), 0)
    index = model.index(rows - 1 if last else 0, column, view.rootIndex())
    view.setCurrentIndex(index)
    view.scrollTo(index)
    return True


def _is_window(widget: QObject) -> bool:
    return isinstance(widget, QWidget) and widget.isWindow() and not (
        widget.windowType() in (Qt.WindowType.Popup, Qt.WindowType.ToolTip, Qt.WindowType.SplashScreen)
        or isinstance(widget, QMenu))


class KeyboardFilter(QObject):
    """Application-wide: applies the module's rules to what is shown, and Enter/Home/End."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._opened: set[int] = set()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        kind = event.type()
        try:
            if kind == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
                return self._key(watched, event)
            if kind == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) \
                    and event.modifiers() & Qt.KeyboardModifier.AltModifier and isinstance(watched, QWidget):
                # texts changed since the window was shown: sorted out for the next key. Never now:
                # Qt is looking this key up among the shortcuts, and changing a text re-registers one
                # (that corrupted memory and crashed the application later)
                later(watched.window(), deconflict_access_keys)
            elif kind == QEvent.Type.EnabledChange and isinstance(watched, QWidget) and watched.isEnabled():
                later(watched.window(), _recover)  # a form unlocked after a load or a save: the focus is back in it
            elif kind == QEvent.Type.Show and isinstance(watched, QWidget):
                self._shown(watched)
            elif kind == QEvent.Type.Hide and _is_window(watched):
                assert isinstance(watched, QWidget)
                self._opened.discard(id(watched))
                parent = watched.parentWidget()
                if parent is not None:  # the window left behind gets the focus back
                    later(parent.window(), restore_focus)
                else:
                    QTimer.singleShot(0, self, restore_focus)
        except RuntimeError:  # a widget deleted meanwhile
            log.debug("keyboard pass skipped", exc_info=True)
        return False

    def _shown(self, widget: QWidget) -> None:
        if not (_is_window(widget) or isinstance(widget.parentWidget(), QStackedWidget)):
            return
        tidy_tab_stops(widget)
        window = widget.window()
        deconflict_access_keys(window)
        if not _is_window(widget):  # a page of a stack: the page it replaces may still be shown now
            later(window, deconflict_access_keys)
        if _is_window(widget) and id(widget) not in self._opened and not widget.property(KEEP_FOCUS):
            self._opened.add(id(widget))
            if isinstance(widget, (QDialog, QMainWindow)) or widget.isWindow():
                initial_focus(widget)  # now: its children are shown already, and typing starts there

    def _key(self, watched: QObject, event: QKeyEvent) -> bool:
        key, mods = event.key(), event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if key in (Qt.Key.Key_Alt, Qt.Key.Key_AltGr) and isinstance(watched, QWidget):
            deconflict_access_keys(watched.window())  # Alt pressed alone: the letters are sorted out first
            return False
        if key in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab) and isinstance(watched, QWidget):
            skip_empty_views(watched.window())
            if _in_date_time(watched):  # Tab leaves a date-and-time field, it does not walk its sections
                return _leave(watched, forward=key == Qt.Key.Key_Tab and not mods & Qt.KeyboardModifier.ShiftModifier)
            return False
        if key in _ENTER and mods == Qt.KeyboardModifier.NoModifier and isinstance(watched, (QPushButton, QToolButton)) \
                and watched.isEnabled() and watched.hasFocus():
            _press_button(watched)
            return True
        if key in (Qt.Key.Key_Home, Qt.Key.Key_End) and mods == Qt.KeyboardModifier.NoModifier \
                and isinstance(watched, QTableView):
            return _row_end(watched, key == Qt.Key.Key_End)
        return False


def _in_date_time(widget: QWidget) -> bool:
    return isinstance(widget, QDateTimeEdit) or isinstance(widget.parentWidget(), QDateTimeEdit)


def _leave(widget: QWidget, *, forward: bool) -> bool:
    """Move the focus to the next (previous) stop of the window after ``widget``."""
    field = widget if isinstance(widget, QDateTimeEdit) else widget.parentWidget()
    stops = tab_stops(widget.window())
    if field not in stops or len(stops) < 2:
        return False
    index = stops.index(field)
    stops[(index + (1 if forward else -1)) % len(stops)].setFocus(
        Qt.FocusReason.TabFocusReason if forward else Qt.FocusReason.BacktabFocusReason)
    return True


def _recover(window: QWidget) -> None:
    """The active window whose focus is on nothing (or on a hidden or disabled widget) gets it back."""
    if _alive(window) and window.isVisible() and QApplication.activeWindow() is window \
            and focus_is_lost(QApplication.focusWidget()):
        initial_focus(window)


def _alive(widget: QWidget) -> bool:
    try:
        widget.objectName()
    except RuntimeError:
        return False
    return True


def install(app: QApplication) -> None:
    """Install the filter once per application."""
    if getattr(app, "_motodesk_keyboard", None) is None:
        keyboard = KeyboardFilter(app)
        app.installEventFilter(keyboard)
        app._motodesk_keyboard = keyboard  # type: ignore[attr-defined]


# -- the main window's pages ------------------------------------------------------------------------
NAVIGATION_TIP = ("Ctrl+1 … Ctrl+9 e Ctrl+0 vão direto às seções, na ordem da lista. "
                  "Com a lista em foco, digite as primeiras letras de uma seção para ir até ela.")


def page_shortcuts(window: QMainWindow, keys: list[str], show: object) -> list[QShortcut]:
    """Ctrl+1…Ctrl+9 and Ctrl+0 choose the window's visible sections in order; ``show(key)`` shows one."""
    made: list[QShortcut] = []
    for number, key in zip([*"123456789", "0"], keys, strict=False):
        shortcut = QShortcut(QKeySequence(f"Ctrl+{number}"), window)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.activated.connect(lambda k=key: show(k))  # type: ignore[operator]
        made.append(shortcut)
    return made


def iter_windows() -> Iterator[QWidget]:
    for widget in QApplication.topLevelWidgets():
        if _is_window(widget) and widget.isVisible():
            yield widget
