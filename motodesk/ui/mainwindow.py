"""The main window: navigation on the left, one page per area of the secretariat's work."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping

from PySide6.QtCore import QEvent, QSize, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QKeyEvent, QPaintEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from motodesk import __version__
from motodesk.clock import local_now
from motodesk.rules.common import Role
from motodesk.services.context import AppContext
from motodesk.ui.actions import ActionCollection
from motodesk.ui.page_focus import first_useful, focus_first_useful, focus_page, follow_tabs
from motodesk.ui.widgets import after

# (key, pt_BR label) of each page, in navigation order.
SECTIONS: tuple[tuple[str, str], ...] = (
    ("people", "Pessoas"),
    ("vehicles", "Veículos"),
    ("permits", "Permissões"),
    ("inspections", "Vistorias"),
    ("infractions", "Autos de infração"),
    ("deadlines", "Prazos"),
    ("campaign", "Recadastramento"),
    ("organisations", "Organizações"),
    ("stands", "Pontos"),
    ("reports", "Relatórios"),
    ("admin", "Administração"),
)

#: Sections only some roles see (the others: everyone).
SECTION_ROLES: dict[str, frozenset[Role]] = {"admin": frozenset({Role.ADMIN})}
#: The size the window opens at, when the screen has room for it (the counter's screen is 1366x768).
PREFERRED_SIZE = QSize(1280, 720)
#: A page chosen is built after its loading state is painted, or after this long at the latest.
LOADING_FALLBACK_MS = 120

PageFactory = Callable[[AppContext, "MainWindow"], QWidget]
PAGE_FACTORIES: dict[str, PageFactory] = {}


def register_page(key: str) -> Callable[[PageFactory], PageFactory]:
    """Pages register themselves here so the window does not import every screen up front."""

    def decorate(factory: PageFactory) -> PageFactory:
        PAGE_FACTORIES[key] = factory
        return factory

    return decorate


def _section_placeholder(label: str) -> QWidget:
    page = QWidget()
    layout = QVBoxLayout(page)
    title = QLabel(f"<h2>{label}</h2>")
    layout.addWidget(title)
    note = QLabel("Esta área ainda não está disponível nesta versão do MotoDesk.")
    note.setObjectName("unavailable")
    layout.addWidget(note)
    layout.addStretch(1)
    return page


class LoadingPage(QLabel):
    """What a page chosen for the first time shows at once, while it is built: its name and that it
    is loading. It holds the keyboard meanwhile and keeps every key typed, for the page to receive
    when it is ready (:meth:`replay`) — a search typed straight after choosing the page is not lost."""

    def __init__(self, label: str) -> None:
        super().__init__(f"<h2>{label}</h2><p>⏳ Carregando…</p>")
        self.setObjectName("loading_page")
        self.setAccessibleName(f"{label}: carregando")
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.typed: list[tuple[int, Qt.KeyboardModifier, str]] = []
        self.after_paint: Callable[[], None] | None = None  # the page's build, once this is on screen

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        super().paintEvent(event)
        then, self.after_paint = self.after_paint, None
        if then is not None:
            QTimer.singleShot(0, then)  # after this frame reaches the screen

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.text() and event.text().isprintable() or event.key() == Qt.Key.Key_Backspace:
            self.typed.append((event.key(), event.modifiers(), event.text()))
            event.accept()
            return
        super().keyPressEvent(event)

    def replay(self, target: QWidget) -> None:
        """Send the keys typed here to ``target``, in order, as if typed there."""
        for key, modifiers, text in self.typed:
            for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
                QApplication.sendEvent(target, QKeyEvent(kind, key, modifiers, text))
        self.typed.clear()


def typing_target(page: QWidget) -> QWidget:
    """Where keys typed for a page go: its focus proxy, else its first visible editable search field
    (else any editable line), else the page."""
    proxy = page.focusProxy()
    if proxy is not None:
        return proxy
    lines = [w for w in page.findChildren(QLineEdit)
             if w.isVisibleTo(page) and w.isEnabled() and not w.isReadOnly()
             and isinstance(w.parentWidget(), QWidget) and not isinstance(w.parentWidget(), (QComboBox,
                                                                                          QAbstractSpinBox))]
    searches = [w for w in lines if "search" in w.objectName().lower() or "busca" in w.placeholderText().lower()]
    found: list[QWidget] = [*searches, *lines]
    return found[0] if found else page


def load_page_module(key: str) -> bool:
    """Import the screen module of a page: `motodesk/ui/screens/<key>.py` registers it. False when
    there is no such module (the section shows that it is not available in this version); a module
    that exists but registers nothing is a bug, not a missing section."""
    if key in PAGE_FACTORIES:
        return True
    try:
        importlib.import_module(f"motodesk.ui.screens.{key}")
    except ModuleNotFoundError as exc:
        if exc.name != f"motodesk.ui.screens.{key}":
            raise
        return False
    if key not in PAGE_FACTORIES:
        raise RuntimeError(f"motodesk.ui.screens.{key} does not register the page {key!r} (register_page)")
    return True


def section_visible(key: str, role: Role) -> bool:
    roles = SECTION_ROLES.get(key)
    return roles is None or role in roles


class LazyPages(Mapping[str, QWidget]):
    """The window's pages by key, each built the first time it is asked for.

    Start-up builds only the first page; the other screens (and what they import) wait until a
    clerk opens them.
    """

    def __init__(self, window: MainWindow) -> None:
        self._window = window
        self._built: dict[str, QWidget] = {}

    def __getitem__(self, key: str) -> QWidget:
        if key not in self._built:
            labels = dict(SECTIONS)
            if key not in labels:
                raise KeyError(key)
            load_page_module(key)
            factory = PAGE_FACTORIES.get(key)
            page = factory(self._window.ctx, self._window) if factory else _section_placeholder(labels[key])
            page.setObjectName(f"page_{key}")
            self._window.page_holders[key].addWidget(page)
            self._built[key] = page
            follow_tabs(page)  # a tab chosen takes the focus into it
            self._window._page_built(key, page)
        return self._built[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._built)

    def __len__(self) -> int:
        return len(self._built)

    def is_built(self, key: str) -> bool:
        return key in self._built


class MainWindow(QMainWindow):
    def __init__(self, ctx: AppContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.setObjectName("MainWindow")
        self.setWindowTitle(f"MotoDesk – {ctx.user.full_name} ({ctx.user.role.label})")
        self.resize(self.opening_size())
        self.action_collection = ActionCollection(self)  # not `actions`: QWidget.actions() is Qt's

        self.nav = QListWidget()
        self.nav.setObjectName("navigation")
        self.nav.setAccessibleName("Seções")
        self.nav.setFixedWidth(190)
        self.pages = QStackedWidget()
        self.page_holders: dict[str, QVBoxLayout] = {}  # the layout each page is put in when built
        self.page_by_key = LazyPages(self)
        for key, label in SECTIONS:
            item = QListWidgetItem(label)
            item.setData(Qt.ItemDataRole.UserRole, key)
            self.nav.addItem(item)
            item.setHidden(not section_visible(key, ctx.user.role))
            holder = QWidget()
            holder.setObjectName(f"holder_{key}")
            holder_layout = QVBoxLayout(holder)
            holder_layout.setContentsMargins(0, 0, 0, 0)
            self.page_holders[key] = holder_layout
            # A page taller or wider than the screen scrolls inside the window; the window never grows.
            scroll = QScrollArea()
            scroll.setObjectName(f"scroll_{key}")
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QFrame.Shape.NoFrame)
            scroll.setWidget(holder)
            self.pages.addWidget(scroll)
        self.loading: dict[str, LoadingPage] = {}  # pages chosen and not built yet
        self.nav.currentRowChanged.connect(self._show_row)
        self.nav.itemActivated.connect(lambda _item: self.focus_current_page())  # Enter: into the page
        self.nav.itemClicked.connect(lambda _item: self.focus_current_page())  # a click: into the page too
        self.nav.setCurrentRow(0)
        self.page_by_key[SECTIONS[0][0]]  # the first page, at once: it is the window's own
        from motodesk.ui.keyboard import NAVIGATION_TIP, page_shortcuts

        self.nav.setToolTip(NAVIGATION_TIP)  # type-to-find and Ctrl+1…, said where the clerk looks
        self.nav.setStatusTip(NAVIGATION_TIP)
        visible = [key for key, _ in SECTIONS if section_visible(key, ctx.user.role)]
        self.page_keys = page_shortcuts(self, visible, self.choose_section)
        for number, key in zip([*"123456789", "0"], visible, strict=False):
            item = self.nav.item([k for k, _ in SECTIONS].index(key))
            item.setToolTip(f"{item.text()} (Ctrl+{number})")
        self._first_show = True
        self.switch_user_requested = False

        central = QWidget()
        layout = QHBoxLayout(central)
        layout.addWidget(self.nav)
        layout.addWidget(self.pages, 1)
        self.setCentralWidget(central)
        self._build_menus()
        where = "SQLite local" if ctx.db.is_sqlite else f"servidor {ctx.db.url.host}"
        self.statusBar().showMessage(f"Conectado: {where} · usuário {ctx.user.login} · versão {__version__}")
        self.clock = QLabel()
        self.clock.setObjectName("clock")
        self.clock.setToolTip("Horário de Brasília (America/Sao_Paulo)")
        self.statusBar().addPermanentWidget(self.clock)
        self._clock_timer = QTimer(self)
        self._clock_timer.timeout.connect(self.update_clock)
        self._clock_timer.start(15_000)
        self.update_clock()

    @staticmethod
    def opening_size() -> QSize:
        """The preferred size, or less on a smaller screen (the window's frame counted)."""
        screen = QApplication.primaryScreen()
        if screen is None:
            return PREFERRED_SIZE
        room = screen.availableGeometry()
        return QSize(min(PREFERRED_SIZE.width(), room.width() - 16), min(PREFERRED_SIZE.height(), room.height() - 48))

    def update_clock(self) -> None:
        """The time of the counter (America/Sao_Paulo), whatever the workstation's own zone."""
        self.clock.setText(local_now().strftime("%d/%m/%Y %H:%M"))

    def _build_menus(self) -> None:
        a = self.action_collection
        file_menu = self.menuBar().addMenu("&Arquivo")
        file_menu.addAction(a["new_person"])
        file_menu.addAction(a["find"])
        file_menu.addAction(a["save"])
        file_menu.addSeparator()
        file_menu.addAction(a["backup"])
        file_menu.addAction(a["database_settings"])
        file_menu.addSeparator()
        own_password = file_menu.addAction("&Alterar minha senha…")
        own_password.setObjectName("change_own_password")
        own_password.setEnabled(self.ctx.user.id is not None)
        own_password.triggered.connect(self.change_own_password)
        self.own_password_action = own_password
        file_menu.addAction(a["logout"])
        file_menu.addAction(a["quit"])
        tools_menu = self.menuBar().addMenu("&Ferramentas")
        tools_menu.addAction(a["verify_badge"])
        a["verify_badge"].triggered.connect(self.open_badge_verifier)
        card_stock = tools_menu.addAction("&Estoque de cartões…")  # batches, spoiled cards, period report
        card_stock.setObjectName("card_stock")
        card_stock.setEnabled(self.ctx.user.role.value != "inspector")
        card_stock.triggered.connect(self.open_card_stock)
        help_menu = self.menuBar().addMenu("A&juda")
        help_menu.addAction(a["about"])
        a["quit"].triggered.connect(self.close)
        a["logout"].triggered.connect(self.switch_user)
        a["about"].triggered.connect(self.show_about)
        from motodesk.ui.db_settings import install_admin_tools  # backups, database, backup reminder

        install_admin_tools(self, self.ctx, a["backup"], a["database_settings"])

    def change_own_password(self) -> None:
        from motodesk.ui.own_password import OwnPasswordDialog

        dialog = OwnPasswordDialog(self.ctx, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.statusBar().showMessage("Senha trocada.", 8000))
        self.own_password_dialog = dialog
        dialog.open()

    def switch_user(self) -> None:
        """"Trocar de usuário": the window closes (open work may keep it) and the login dialog returns."""
        self.switch_user_requested = True
        if not self.close():
            self.switch_user_requested = False

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        """Pages with open work (a dossier with unsaved changes) may keep the window open."""
        for page in self.page_by_key.values():
            confirm = getattr(page, "confirm_close", None)
            if confirm is not None and not confirm():
                event.ignore()
                return
        event.accept()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        if self._first_show:  # the clerk types into the first page (the search box), not the navigation
            self._first_show = False
            self.page_by_key[SECTIONS[0][0]].setFocus(Qt.FocusReason.OtherFocusReason)

    def _show_row(self, row: int) -> None:
        """A page chosen answers at once: built, it shows; chosen for the first time, its loading
        state shows (and keeps the keys typed) while it is built just after this paint."""
        if not 0 <= row < len(SECTIONS):
            return
        key, label = SECTIONS[row]
        if self.page_by_key.is_built(key) or not hasattr(self, "loading"):
            self.pages.setCurrentIndex(row)
            if self.page_by_key.is_built(key) and not self.nav.hasFocus():  # chosen by a shortcut or a menu
                focus_first_useful(self.page_by_key[key])  # (browsing the list keeps the focus there)
            return
        typing_elsewhere = not self.nav.hasFocus()  # chosen by a shortcut, a menu or a click
        placeholder = self.loading.get(key)
        if placeholder is None:
            placeholder = self.loading[key] = LoadingPage(label)
            self.page_holders[key].addWidget(placeholder)
        self.pages.setCurrentIndex(row)
        if typing_elsewhere:
            placeholder.setFocus(Qt.FocusReason.OtherFocusReason)
        # Built once the loading state is painted (the clerk sees the page answer first); the timer
        # builds it anyway should no paint come (a window not exposed). The timer is the window's, not
        # the loading state's: deleting the loading state with a Python timer inside it crashed now and
        # then (SIGSEGV in Shiboken's releaseWrapper on its DeferredDelete, one walk of the pages in six).
        placeholder.after_paint = lambda: self._build_chosen(key)
        after(self, LOADING_FALLBACK_MS, lambda: self._build_chosen(key))

    def _build_chosen(self, key: str) -> None:
        if key in self.loading:
            self.page_by_key[key]

    def _page_built(self, key: str, page: QWidget) -> None:
        """The page of a loading state is ready: it takes the place, the focus and the keys typed."""
        placeholder = self.loading.pop(key, None)
        if placeholder is None:
            return
        had_focus = placeholder.hasFocus() or bool(placeholder.typed)
        page.show()  # the layout would show it on the next turn of the loop: the focus needs it now
        placeholder.hide()
        # The page came after its stacked area was shown: the screen reader pass it would have had then.
        # ... and the keyboard's: its scroll areas and tables are tidied, its letters sorted out.
        from motodesk.ui.accessible import name_inputs
        from motodesk.ui.keyboard import deconflict_access_keys, tidy_tab_stops

        area = self.pages.widget([k for k, _ in SECTIONS].index(key))
        if area is not None:
            name_inputs(area)
            tidy_tab_stops(area)
            deconflict_access_keys(self)
        if had_focus:
            target = first_useful(page) or typing_target(page)
            target.setFocus(Qt.FocusReason.OtherFocusReason)
            placeholder.replay(target)
        placeholder.deleteLater()

    def focus_current_page(self) -> None:
        """Into the shown page (Enter in the navigation): its loading state while it builds."""
        key = SECTIONS[self.nav.currentRow()][0]
        placeholder = self.loading.get(key)
        if placeholder is not None:
            placeholder.setFocus(Qt.FocusReason.OtherFocusReason)
        elif self.page_by_key.is_built(key):
            page = self.page_by_key[key]
            (first_useful(page) or typing_target(page)).setFocus(Qt.FocusReason.OtherFocusReason)

    def show_section(self, key: str) -> QWidget:
        if not section_visible(key, self.ctx.user.role):
            raise PermissionError(f"the section {key!r} is not shown to {self.ctx.user.role.label}")
        index = [k for k, _ in SECTIONS].index(key)
        self.nav.setCurrentRow(index)
        return self.page_by_key[key]

    def choose_section(self, key: str) -> QWidget:
        """Ctrl+1…: the section shown and the focus in it (its search field, list or first field)."""
        page = self.show_section(key)
        focus_page(page)
        return page

    def show_about(self) -> None:
        QMessageBox.about(
            self,
            "Sobre o MotoDesk",
            f"<b>MotoDesk {__version__}</b><br>Permissões de mototáxi, motoboy e moto-frete<br>"
            "Lei Municipal nº 4.883/2017 – Patrocínio-MG<br>SESTRAN",
        )

    def open_badge_verifier(self) -> None:
        from motodesk.ui.badge_verify import open_badge_verifier

        open_badge_verifier(self.ctx, self)

    def open_card_stock(self) -> None:
        from motodesk.ui.card_stock import open_card_stock

        open_card_stock(self.ctx, self)
