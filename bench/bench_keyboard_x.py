"""Hands on the keys (issue #26): the day at the counter played on a REAL X server, as a person does.

Run from the repository root (needs Xvfb, openbox, xdotool and ImageMagick: ``WITH_TEST=1 bash
scripts/setup.sh`` installs them)::

    PYTHONPATH=$PWD .venv/bin/python bench/bench_keyboard_x.py [--no-results] [--shots /tmp/keyx]

It starts Xvfb (1366x768x24) and the openbox window manager, launches the application itself
(``python -m motodesk --demo``) on a fresh demo SQLite database, logs in by keys and plays the day:
the clerk (search, Nova pessoa, the dossier's fields, save, the photo, the application, the vehicle
form), the inspector (the checklist and a notice of infraction) and the supervisor (the review, the
approval by decree, the issue, the badge saved to PDF). What the day needs before the counter opens and
no key at the counter makes — the mototáxi tender with the applicant called (Art. 6º), this workstation
registered to print badges — is seeded through the services and the administrator's command
(:func:`seed_tender`), never into the tables. Every key goes through ``xdotool key``/``xdotool type`` to whatever X window has the
focus: nothing reaches inside Qt. Where the focus is, the application says itself through
``MOTODESK_FOCUS_TRACE`` (one JSON line per focus change, ``motodesk/ui/focus_watch.py``), which the
walk reads to know when a window opened and whether the cursor is on a visible widget.

Counted per role: fields filled (a data string typed), characters of data, navigation keys (every
other key: Tab, Enter, Esc, Alt+letter, Ctrl+…, arrows), and the focus changes onto a widget not
visible on screen. Each step leaves a screenshot (``import -window root``) in ``--shots``. The
table is printed and, unless ``--no-results``, appended to ``bench/results.md`` with the date and
the commit, beside the targets of issue #26: clerk's dossier ≤ 1.25 navigation keys per field,
checklist ≤ 1.3 per item, notice ≤ 2.0 per field, supervisor ≤ 6 per action.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "tests" / "data" / "photos" / "astronaut-2x.jpg"
PLATE = "PTC4B83"  # the clerk's motorcycle
PASSWORD = "motodesk123"  # motodesk.services.demo.DEMO_PASSWORD
TARGETS = {"atendente": 1.25, "vistoriador": 1.3, "auto": 2.0, "supervisor": 6.0}
TOOLS = ("Xvfb", "openbox", "xdotool", "import")


class WalkError(RuntimeError):
    """A step of the walk did not happen (a window that never opened, a focus that never came)."""


@dataclass
class Count:
    fields: int = 0
    characters: int = 0
    navigation: int = 0
    actions: int = 0  # the supervisor's actions; the checklist's items
    items: int = 0
    keys: list[str] = field(default_factory=list)
    per_field: list[tuple[str, int]] = field(default_factory=list)  # (where the data landed, keys before it)
    invisible: list[str] = field(default_factory=list)
    done: bool = False
    error: str = ""
    seconds: float = 0.0


def _date(day: dt.date) -> str:
    return day.strftime("%d%m%Y")


class Desk:
    """One X display with a window manager, the application on it, and the keys sent to it."""

    def __init__(self, work: Path, shots: Path) -> None:
        self.work = work
        self.shots = shots
        self.trace = work / "focus.jsonl"
        self.procs: list[subprocess.Popen[bytes]] = []
        self.app: subprocess.Popen[bytes] | None = None
        self.display = ""
        self.counts: dict[str, Count] = {}
        self.role = ""
        self._since_field = 0
        self._shot_no = 0
        self._started = 0.0
        self.tender = ""  # the mototáxi tender seeded for the day's applicant (seed_tender)

    # -- the X server, the window manager, the application ---------------------------------
    def start_x(self) -> None:
        read, write = os.pipe()
        xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1366x768x24", "-nolisten", "tcp"],
                                pass_fds=(write,), stderr=subprocess.DEVNULL)
        os.close(write)
        self.procs.append(xvfb)
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        if not number:
            raise WalkError("o Xvfb não iniciou")
        self.display = f":{number}"
        self.procs.append(subprocess.Popen(["openbox"], env=self.env(), stdout=subprocess.DEVNULL,
                                           stderr=subprocess.DEVNULL))
        time.sleep(1.0)

    def env(self) -> dict[str, str]:
        return dict(os.environ, DISPLAY=self.display, XDG_DATA_HOME=str(self.work / "data"),
                    XDG_CONFIG_HOME=str(self.work / "config"), QT_QPA_PLATFORM="xcb",
                    MOTODESK_BADGE_KEY_DIR=str(self.work / "badge-keys"),  # never the desktop's keyring
                    MOTODESK_FOCUS_TRACE=str(self.trace), PYTHONPATH=str(ROOT))

    def launch(self, user: str) -> None:
        """The application, and its login dialog answered by keys (not counted in any role)."""
        self.quit_app()
        mark = self.mark()
        log = open(self.work / "app.log", "ab")  # noqa: SIM115 - held by the child
        self.app = subprocess.Popen([sys.executable, "-m", "motodesk", "--demo"], cwd=ROOT, env=self.env(),
                                    stdout=log, stderr=log)
        focus = self.wait_focus(lambda f: f["name"] == "password", mark, 180, "o diálogo de entrada")
        if user != "atendente":  # the demo pre-fills "atendente"
            self.send("key", "shift+Tab")
            self.wait_focus(lambda f: f["name"] == "login", mark, 10, "o campo de usuário")
            self.send("key", "ctrl+a")
            self.send("type", user)
            self.send("key", "Tab")
        del focus
        self.send("type", PASSWORD)
        mark = self.mark()
        self.send("key", "Return")
        self.wait_focus(lambda f: f["window"] == "MainWindow", mark, 120, "a janela principal")
        self.settle(1.5)
        self.shot(f"main-{user}")

    def quit_app(self) -> None:
        if self.app is not None and self.app.poll() is None:
            self.app.send_signal(signal.SIGTERM)
            try:
                self.app.wait(10)
            except subprocess.TimeoutExpired:
                self.app.kill()
                self.app.wait()
        self.app = None

    def stop(self) -> None:
        self.quit_app()
        for proc in reversed(self.procs):
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()

    # -- where the focus is ------------------------------------------------------------------
    def lines(self) -> list[dict[str, object]]:
        if not self.trace.exists():
            return []
        return [json.loads(line) for line in self.trace.read_text(encoding="utf-8").splitlines() if line.strip()]

    def mark(self) -> int:
        return len(self.lines())

    def focus(self) -> dict[str, object]:
        lines = self.lines()
        return lines[-1] if lines else {"name": "", "class": "", "window": "", "title": "", "visible": False}

    def wait_focus(self, match: Callable[[dict[str, object]], bool], since: int, timeout: float,
                   what: str) -> dict[str, object]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.app is not None and self.app.poll() is not None:
                raise WalkError(f"o aplicativo terminou (código {self.app.returncode}) esperando {what}")
            lines = self.lines()
            if len(lines) > since and match(lines[-1]):
                return lines[-1]
            time.sleep(0.1)
        raise WalkError(f"não veio {what}; foco em {self.focus()}")

    def wait_title(self, start: str, timeout: float = 30) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.active_title().startswith(start):
                return
            time.sleep(0.1)
        raise WalkError(f"a janela {start!r} não ficou ativa (ativa: {self.active_title()!r})")

    def active_title(self) -> str:
        run = subprocess.run(["xdotool", "getactivewindow", "getwindowname"], env=self.env(),
                             capture_output=True, text=True, check=False)
        return run.stdout.strip()

    def settle(self, seconds: float = 0.4) -> None:
        time.sleep(seconds)

    # -- keys ----------------------------------------------------------------------------------
    def send(self, how: str, what: str) -> None:
        if how == "key":
            command = ["xdotool", "key", "--clearmodifiers", "--delay", "60", what]
        else:
            command = ["xdotool", "type", "--clearmodifiers", "--delay", "25", "--", what]
        subprocess.run(command, env=self.env(), check=True)
        time.sleep(0.12)

    def start(self, role: str) -> Count:
        self.stop_role()
        self.role = role
        self._since_field = 0
        self._started = time.monotonic()
        self._trace_from = self.mark()
        return self.counts.setdefault(role, Count())

    def stop_role(self) -> None:
        if self.role:
            count = self.counts[self.role]
            count.seconds += time.monotonic() - self._started
            for line in self.lines()[self._trace_from:]:
                if not line["visible"]:
                    count.invisible.append(f"{line['class']} {line['name']!r} em {line['title']!r}")
        self.role = ""

    @property
    def now(self) -> Count:
        return self.counts[self.role]

    def key(self, *names: str) -> None:
        """Navigation keys, each counted ("Tab", "alt+2", "ctrl+s", "Return")."""
        for name in names:
            self.now.navigation += 1
            self.now.keys.append(name)
            self._since_field += 1
            self.send("key", name)

    def type(self, text: str) -> None:
        """One field's data, typed wherever the cursor is."""
        time.sleep(0.15)  # the focus change of the last key reaches the trace
        landed = self.focus()
        self.now.fields += 1
        self.now.characters += len(text)
        self.now.per_field.append((f"{landed['name'] or landed['class']}", self._since_field))
        self._since_field = 0
        self.send("type", text)

    def tab_to(self, name: str, limit: int = 10, key: str = "Tab") -> None:
        """Tab (counted) until the focus is on the widget named ``name``."""
        for _ in range(limit):
            if self.focus()["name"] == name:
                return
            self.key(key)
            self.settle(0.15)
        if self.focus()["name"] != name:
            raise WalkError(f"Tab não chegou a {name!r}: foco em {self.focus()}")

    def shot(self, name: str) -> None:
        self._shot_no += 1
        self.shots.mkdir(parents=True, exist_ok=True)
        subprocess.run(["import", "-window", "root", str(self.shots / f"{self._shot_no:02d}-{name}.png")],
                       env=self.env(), check=False, capture_output=True)


# -- the day -------------------------------------------------------------------------------------
def _cpf() -> str:
    from validate_docbr import CPF

    return CPF().generate()


def seed_tender(desk: Desk, cpf: str, today: dt.date) -> str:
    """The secretariat's morning, before the counter opens: a mototáxi tender homologated 20 days ago,
    the day's applicant ranked first in it and called (Art. 6º; Art. 10, I: a place under the quota).

    Written through the services as the supervisor (``motodesk.services.tenders``, each step judged by
    the rules), never into the tables: the keyboard-seeded day lacked it, and the law refuses to approve
    a mototáxi whose applicant is not a called candidate of a homologated tender. Returns the tender's
    number. The medical certificate the clerk types (presented today) falls within the 30 days that run
    from the homologation (Art. 5º, § 2º)."""
    from motodesk.services import connection, tenders
    from motodesk.services.auth import authenticate

    url = f"sqlite:///{desk.work / 'data' / 'MotoDesk' / 'demonstracao.sqlite3'}"
    ctx = connection.open_context(url)
    try:
        supervisor = ctx.as_user(authenticate(ctx, "supervisor", PASSWORD))
        number = f"BANCADA-LIC/{today.year}"
        tender = tenders.create_tender(supervisor, number, description="Licitação de mototáxi (bancada)",
                                       homologated_on=today - dt.timedelta(days=20))
        tenders.add_candidate(supervisor, tender, 1, cpf, "Joao Batista Ferreira")
        tenders.call_next_candidate(supervisor, tender, on=today)
    finally:
        ctx.db.dispose()
    # The administrator registered this workstation to print badges (its signing key), as the
    # dialog asks for when it is not: the same command, in the application's own environment.
    subprocess.run([sys.executable, "-m", "motodesk", "register-printer-station", "--user", "admin",
                    "--password-stdin", "--database", url], input=f"{PASSWORD}\n".encode(), env=desk.env(),
                   cwd=ROOT, check=True, capture_output=True)
    return number


def through_file_dialog(desk: Desk, key: str, back_to: str, path: Path, opening: str, returning: str) -> None:
    """``key`` opens Qt's file dialog from the ``back_to`` window; the path is typed into its name
    field and Enter takes it, back in ``back_to`` (the photo's import, the badge's PDF)."""
    mark = desk.mark()
    desk.key(key)
    desk.wait_focus(lambda f: f["class"] == "QLineEdit" and f["window"] != back_to, mark, 30, opening)
    desk.settle(0.8)
    desk.type(str(path))
    mark = desk.mark()
    desk.key("Return")
    desk.wait_focus(lambda f: f["window"] == back_to, mark, 30, returning)
    desk.settle(3.0)


def clerk_day(desk: Desk, cpf: str, today: dt.date) -> None:
    from validate_docbr import CNH, PIS, RENAVAM, TituloEleitoral

    desk.launch("atendente")  # the first start creates the demo database…
    tender = seed_tender(desk, cpf, today)  # …where the tender was held before the counter opened
    desk.tender = tender
    desk.start("atendente")
    desk.type("Joao Batista Ferreira")  # the search box has the cursor: not found, so…
    mark = desk.mark()
    desk.key("ctrl+n")  # …Nova pessoa carries the name searched
    desk.wait_focus(lambda f: f["window"] == "dossier", mark, 30, "o dossiê")
    desk.settle(1.0)
    desk.shot("clerk-dossier-open")
    for n, value in enumerate([cpf, _date(dt.date(1990, 5, 17)), "M", "Ana Maria Ferreira", "34999881234",
                               "joao.ferreira@example.com", "Rua Presidente Vargas, 1200", "Centro", "Patrocinio",
                               "MG", "38740000"]):
        if n:
            desk.key("Tab")
        desk.type(value)
    desk.shot("clerk-personal-data")
    desk.key("alt+2")
    desk.settle(0.5)
    values = [
        "MG14325876", "SSP", "MG", _date(dt.date(2008, 3, 10)),
        CNH().generate(), "AB", _date(dt.date(2012, 4, 2)), _date(today + dt.timedelta(days=800)), "S",
        "2025/0193", "CFC Alto Paranaiba", _date(today - dt.timedelta(days=60)),
        "123456789012",
        TituloEleitoral().generate(), "S",
        _date(today - dt.timedelta(days=12)), _date(today), "Dr Paulo CRM 12345",
        PIS().generate(),
        _date(today - dt.timedelta(days=7)), "CEMIG",
        _date(today - dt.timedelta(days=20)), "N",
    ]
    for n, value in enumerate(values):
        if n:
            desk.key("Tab")
        desk.type(value)
        if n in (3, 12, 18):
            desk.shot(f"clerk-documents-{n}")
    desk.key("Tab")
    desk.type(_date(today))  # declaration of Art. 8
    desk.key("Tab")
    desk.type("S")
    desk.shot("clerk-documents-end")
    desk.key("alt+v")
    desk.type("Motot")
    desk.key("ctrl+s")
    desk.settle(3.0)
    desk.shot("clerk-saved")

    # the photo: Alt+F opens the photo dialog, Alt+I Qt's file dialog, the path, Enter, Alt+A
    mark = desk.mark()
    desk.key("alt+f")
    desk.wait_focus(lambda f: f["window"] == "photo_dialog", mark, 30, "o diálogo da foto")
    desk.settle(1.0)
    desk.shot("clerk-photo-dialog")
    first = desk.focus()
    desk.now.per_field.append((f"(primeiro foco do diálogo da foto: {first['class']} {first['name']!r})", 0))
    through_file_dialog(desk, "alt+i", "photo_dialog", PHOTO, "o diálogo de arquivo", "a volta ao diálogo da foto")
    desk.shot("clerk-photo")
    mark = desk.mark()
    desk.key("alt+a")
    back = desk.wait_focus(lambda f: f["window"] == "dossier", mark, 30, "a volta ao dossiê")
    desk.settle(2.0)
    back = desk.focus()
    desk.now.per_field.append((f"(foco após a foto: {back['class']} {back['name']!r}, visível={back['visible']})", 0))
    desk.shot("clerk-after-photo")

    # the application: Alt+3, Alt+Q and "Sim"
    desk.key("alt+3")
    desk.settle(0.8)
    mark = desk.mark()
    desk.key("alt+q")
    desk.settle(1.5)
    desk.shot("clerk-application-question")
    desk.key("alt+s")  # Sim
    desk.settle(2.0)
    desk.shot("clerk-application")
    mark = desk.mark()
    desk.key("Escape")  # Fechar: nothing left unsaved
    desk.wait_focus(lambda f: f["window"] == "MainWindow", mark, 20, "a janela principal")
    desk.settle(1.0)

    # the motorcycle: Veículos (Ctrl+2), Novo veículo, the holder's CPF, the service, the fields
    desk.key("ctrl+2")
    desk.settle(1.5)
    desk.shot("clerk-vehicles")
    mark = desk.mark()
    desk.key("alt+n")
    desk.wait_focus(lambda f: f["window"] not in ("MainWindow", ""), mark, 30, "o formulário do veículo")
    desk.settle(1.0)
    desk.shot("clerk-vehicle-open")
    if desk.focus()["name"] == "holder_cpf":
        desk.type(cpf)
        desk.key("Tab")
        desk.settle(1.5)
    if desk.focus()["name"] == "service_type":
        desk.type("Motot")
        desk.key("Tab")
    for n, value in enumerate(["PTC4B83", RENAVAM().generate(), "9C2KC1670JR500001", "Honda", "CG 160 Fan",
                               str(today.year - 1), str(today.year), "162", "Am", "Al", str(today.year),
                               "Patrocinio", "MG"]):
        if n:
            desk.key("Tab")
        desk.type(value)
    desk.key("alt+m")  # Mesmo do titular: the owner is the holder
    desk.settle(0.8)
    desk.tab_to("insurance_valid_until", 12)
    desk.type(_date(today + dt.timedelta(days=300)))
    desk.key("Tab")
    desk.type("SPVAT123")
    desk.tab_to("passenger_insurance_valid_until", 8)
    desk.type(_date(today + dt.timedelta(days=300)))
    desk.shot("clerk-vehicle")
    mark = desk.mark()
    desk.key("alt+s")
    desk.wait_focus(lambda f: f["window"] == "MainWindow", mark, 30, "a volta à janela principal (veículo salvo)")
    desk.settle(1.0)
    desk.shot("clerk-vehicle-saved")
    desk.now.done = True


def _db(desk: Desk) -> sqlite3.Connection:
    return sqlite3.connect(desk.work / "data" / "MotoDesk" / "demonstracao.sqlite3")


def inspector_day(desk: Desk, today: dt.date) -> None:
    """Vistorias (Ctrl+4), the new motorcycle's row found by typing its plate, Iniciar vistoria, every
    item Conforme (Alt+M), Concluir (Alt+C) and "Sim", the laudo read and closed (Esc)."""
    desk.launch("vistoriador")
    count = desk.start("vistoriador")
    desk.key("ctrl+4")
    desk.settle(2.0)
    desk.shot("inspector-queue")
    # the new motorcycle is not in today's queue: Agendar vistoria… (Alt+G), its plate, Tab (the
    # vehicle is looked up), Enter (Agendar, the default); the booking comes back as the queue's
    # chosen row with the focus there (a2a52bb); before, the queue was reached by Tabs and End
    mark = desk.mark()
    desk.key("alt+g")
    desk.wait_focus(lambda f: f["window"] not in ("MainWindow", ""), mark, 20, "o agendamento")
    desk.settle(0.8)
    desk.type(PLATE)
    desk.key("Tab")
    desk.settle(1.5)
    desk.shot("inspector-schedule")
    mark = desk.mark()
    desk.key("Return")
    desk.wait_focus(lambda f: f["window"] == "MainWindow", mark, 20, "a volta à fila")
    desk.settle(2.0)
    tabs = 0
    for _ in range(8):
        if desk.focus()["class"] == "QTableView":
            break
        desk.key("Tab")
        tabs += 1
        desk.settle(0.2)
    if tabs:
        desk.key("End")  # reached by hand: the new row is the queue's last
        desk.settle(0.5)
    desk.shot("inspector-queue-row")
    mark = desk.mark()
    desk.key("alt+i")  # Iniciar vistoria
    desk.wait_focus(lambda f: f["window"] == "checklist", mark, 30, "o checklist")
    desk.settle(1.5)
    desk.shot("inspector-checklist-open")
    desk.key("alt+m")  # every unanswered item Conforme
    desk.settle(1.0)
    desk.shot("inspector-checklist")
    mark = desk.mark()
    desk.key("alt+c")  # Concluir vistoria: asks first
    desk.settle(1.5)
    desk.shot("inspector-conclude-question")
    desk.key("alt+s")  # Sim
    desk.settle(4.0)
    desk.shot("inspector-laudo")
    if desk.active_title().startswith("Laudo"):
        desk.key("Escape")
        desk.settle(1.0)
    if desk.focus()["window"] == "checklist":
        desk.key("Escape")
        desk.settle(1.0)
    with _db(desk) as db:
        row = db.execute("select i.id, i.status, count(t.id), v.plate from inspections i join inspection_items t "
                         "on t.inspection_id = i.id join vehicles v on v.id = i.vehicle_id "
                         "group by i.id order by i.id desc limit 1").fetchone()
    count.items = int(row[2]) if row else 0
    count.per_field.append((f"(vistoria {row[0] if row else '?'} de {row[3] if row else '?'}: "
                            f"{row[1] if row else '?'}, {count.items} itens)", 0))
    count.done = bool(row) and str(row[1]).lower() == "approved" and row[3] == PLATE
    if not count.done:
        count.error = (f"a vistoria feita foi a de {row[3]} ({row[1]}), não a da moto do dia ({PLATE})" if row
                       else "nenhuma vistoria registrada")


def notice_day(desk: Desk, today: dt.date) -> None:
    """Autos de infração (Ctrl+5), Novo auto (Ctrl+Shift+N): the infraction typed into the picker,
    Enter, date and time, place, the offender by CPF (Enter searches), the account, Lavrar auto, "Sim"."""
    with _db(desk) as db:
        row = db.execute("select p.cpf from people p join permits m on m.person_id = p.id "
                         "where lower(m.state) = 'active' limit 1").fetchone()
    offender = row[0] if row else ""
    count = desk.start("auto")
    desk.key("ctrl+5")
    desk.settle(2.0)
    mark = desk.mark()
    desk.key("ctrl+shift+n")
    desk.wait_focus(lambda f: f["window"] == "notice_form", mark, 30, "o auto de infração")
    desk.settle(1.0)
    desk.shot("notice-open")
    desk.tab_to("infraction_search", 8)
    desk.type("troco")
    desk.settle(0.5)
    desk.key("Return")
    desk.settle(0.3)
    desk.tab_to("occurred_at", 8)
    desk.type((today - dt.timedelta(days=1)).strftime("%d%m%Y") + "1430")
    desk.tab_to("place", 8)
    desk.type("Praca Santa Luzia, Centro")
    desk.tab_to("offender_search", 8)
    desk.type(offender)
    desk.key("Return")
    desk.settle(2.0)
    desk.tab_to("description", 10)
    desk.type("Passageira pagou com R$ 50,00 e nao recebeu o troco.")
    desk.shot("notice-filled")
    desk.key("alt+l")  # Lavrar auto: asks first
    desk.settle(1.5)
    desk.shot("notice-question")
    desk.key("alt+s")
    desk.settle(4.0)
    desk.shot("notice-done")
    if desk.active_title().startswith("Auto de Infração"):
        desk.key("Escape")  # the printed notice's preview
        desk.settle(1.0)
    with _db(desk) as db:
        stored = db.execute("select count(*) from infraction_notices where place = 'Praca Santa Luzia, Centro'").fetchone()
    count.done = bool(stored and stored[0])
    if not count.done:
        count.error = "o auto não foi gravado"


def supervisor_day(desk: Desk, cpf: str, today: dt.date) -> None:
    """Permissões (Ctrl+3): the clerk's application found by CPF (Alt+B), Iniciar análise (Alt+I),
    Aprovar… by decree (Alt+P: the decree's number and date, Enter), Emitir (Alt+M and "Sim"), and the
    badge printed to a PDF file (Imprimir crachá…, Alt+C; Salvar PDF…, Alt+S; the file's name; Enter)."""
    desk.launch("supervisor")
    count = desk.start("supervisor")
    if desk.tender:
        count.per_field.append((f"(licitação {desk.tender}: o requerente é o 1º, convocado)", 0))
    desk.key("ctrl+3")
    desk.settle(2.0)
    desk.key("alt+b")
    desk.type(cpf)
    desk.settle(1.5)
    desk.key("Tab")  # into the table: the row found
    desk.settle(0.5)
    desk.shot("supervisor-found")
    count.actions += 1
    desk.key("alt+i")  # Iniciar análise
    desk.settle(2.0)
    desk.shot("supervisor-review")
    count.actions += 1
    mark = desk.mark()
    desk.key("alt+p")  # Aprovar…
    desk.wait_focus(lambda f: f["window"] not in ("MainWindow", ""), mark, 20, "o diálogo de aprovação")
    desk.settle(1.0)
    desk.type(f"{today.year}/0183")
    desk.key("Tab")
    desk.type(_date(today))
    desk.shot("supervisor-decree")
    desk.key("Return")
    desk.settle(3.0)
    desk.shot("supervisor-approved")
    if desk.active_title().startswith("Impedimento"):
        count.per_field.append(("(aprovação recusada pela lei)", 0))
        desk.key("Return")  # OK
        raise WalkError("a aprovação foi recusada pela lei")
    landed = desk.focus()
    count.per_field.append((f"(foco após aprovar: {landed['class']} {landed['name']!r})", 0))
    count.actions += 1
    desk.key("alt+m")  # Emitir: asks first
    desk.settle(1.5)
    desk.shot("supervisor-issue-question")
    desk.key("alt+s")  # Sim
    desk.settle(3.0)
    desk.shot("supervisor-issued")
    if desk.active_title().startswith("Impedimento"):
        count.per_field.append(("(emissão recusada pela lei)", 0))
        desk.key("Return")
        raise WalkError("a emissão foi recusada pela lei")
    landed = desk.focus()
    count.per_field.append((f"(foco após emitir: {landed['class']} {landed['name']!r})", 0))
    count.actions += 1
    pdf = desk.work / "cracha.pdf"
    mark = desk.mark()
    desk.key("alt+c")  # Imprimir crachá…
    desk.wait_focus(lambda f: f["window"] == "badge_print", mark, 30, "o diálogo do crachá")
    desk.settle(2.5)
    desk.shot("supervisor-badge-dialog")
    first = desk.focus()
    count.per_field.append((f"(primeiro foco do crachá: {first['class']} {first['name']!r})", 0))
    through_file_dialog(desk, "alt+s", "badge_print", pdf, "o diálogo de salvar",  # Salvar PDF…
                        "a volta ao diálogo do crachá")
    desk.shot("supervisor-badge-saved")
    if desk.focus()["window"] == "badge_print":
        desk.key("Escape")  # Fechar: the badges are logged as printed
        desk.settle(1.0)
    desk.shot("supervisor-end")
    with _db(desk) as db:
        row = db.execute("select a.state from applications a join people p on p.id = a.person_id "
                         "where p.cpf = ? order by a.id desc limit 1", (cpf,)).fetchone()
        permit = db.execute("select m.number, m.state, (select count(*) from badge_prints b where b.permit_id = m.id) "
                            "from permits m join people p on p.id = m.person_id where p.cpf = ? "
                            "order by m.id desc limit 1", (cpf,)).fetchone()
    count.per_field.append((f"(requerimento: {row[0] if row else '?'})", 0))
    count.per_field.append((f"(permissão: {permit[0]} {permit[1]}, {permit[2]} crachá(s) registrado(s))" if permit
                            else "(permissão: nenhuma)", 0))
    saved = pdf.exists() and pdf.read_bytes().startswith(b"%PDF")
    if saved:
        shutil.copy(pdf, desk.shots / "cracha.pdf")
    count.per_field.append((f"(PDF do crachá: {pdf.stat().st_size if saved else 0} bytes)", 0))
    count.done = bool(permit) and str(permit[1]).lower() == "active" and int(permit[2]) > 0 and saved
    if not count.done:
        count.error = ("nenhuma permissão emitida" if not permit else
                       f"permissão {permit[1]}, {permit[2]} crachá(s), PDF {'salvo' if saved else 'não salvo'}")


def run_role(desk: Desk, role: str, play: Callable[[], None]) -> None:
    try:
        play()
    except (WalkError, subprocess.CalledProcessError, sqlite3.Error) as exc:
        count = desk.counts.setdefault(role, Count())
        count.error = str(exc)
        desk.shot(f"{role}-failed")
    finally:
        desk.stop_role()


def _ratio(count: Count, role: str) -> float | None:
    if role == "vistoriador":
        return count.navigation / count.items if count.items else None
    if role == "supervisor":
        return count.navigation / count.actions if count.actions else None
    return count.navigation / count.fields if count.fields else None


LABELS = {"atendente": "Atendente (dossiê, foto, requerimento, veículo)", "vistoriador": "Vistoriador (checklist)",
          "auto": "Fiscal (auto de infração)", "supervisor": "Supervisor (decisão)"}
UNITS = {"atendente": "campo", "vistoriador": "item", "auto": "campo", "supervisor": "ação"}


def table(desk: Desk, commit: str) -> list[str]:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"### Teclado num X real (Xvfb 1366x768 + openbox, xdotool), {stamp}, commit {commit}", "",
             "| papel | campos | caracteres | teclas de navegação | navegação por unidade | meta | foco invisível | tempo | fim |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for role, count in desk.counts.items():
        ratio = _ratio(count, role)
        unit = UNITS.get(role, "campo")
        verdict = "—" if ratio is None else ("atendida" if ratio <= TARGETS[role] else "NÃO atendida")
        lines.append(f"| {LABELS.get(role, role)} | {count.fields} | {count.characters} | {count.navigation} | "
                     f"{'—' if ratio is None else f'{ratio:.2f} por {unit}'} | ≤ {TARGETS[role]} ({verdict}) | "
                     f"{len(count.invisible)} | {count.seconds:.0f} s | "
                     f"{'completo' if count.done else 'interrompido: ' + count.error[:160]} |")
    lines.append("")
    for role, count in desk.counts.items():
        lines.append(f"- {role}: teclas de navegação: {' '.join(count.keys)}")
        lines.append("  - por campo (onde os dados caíram, teclas antes): "
                     + "; ".join(f"{name} {keys}" for name, keys in count.per_field))
        if count.invisible:
            lines.append(f"  - foco num widget invisível: {'; '.join(count.invisible[:8])}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shots", type=Path, default=Path("/tmp/keyx"), help="where the screenshots go")
    parser.add_argument("--no-results", action="store_true", help="do not append to bench/results.md")
    parser.add_argument("--roles", default="atendente,vistoriador,auto,supervisor")
    args = parser.parse_args()
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        print(f"faltam {', '.join(missing)}: WITH_TEST=1 bash scripts/setup.sh instala")
        return 1
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                            check=False).stdout.strip() or "?"
    if args.shots.exists():
        shutil.rmtree(args.shots)
    today = dt.date.today()
    cpf = _cpf()
    roles = args.roles.split(",")
    with tempfile.TemporaryDirectory(prefix="keyx-") as folder:
        desk = Desk(Path(folder), args.shots)
        try:
            desk.start_x()
            if "atendente" in roles:
                run_role(desk, "atendente", lambda: clerk_day(desk, cpf, today))
            if "vistoriador" in roles:
                run_role(desk, "vistoriador", lambda: inspector_day(desk, today))
            if "auto" in roles:  # the inspector again, in the same session
                run_role(desk, "auto", lambda: notice_day(desk, today))
            if "supervisor" in roles:
                run_role(desk, "supervisor", lambda: supervisor_day(desk, cpf, today))
        finally:
            desk.stop()
            shutil.copy(Path(folder) / "app.log", args.shots / "app.log") if (Path(folder) / "app.log").exists() else None
            shutil.copy(desk.trace, args.shots / "focus.jsonl") if desk.trace.exists() else None
    lines = table(desk, commit)
    print("\n".join(lines))
    if not args.no_results:
        with open(ROOT / "bench" / "results.md", "a", encoding="utf-8") as out:
            out.write("\n" + "\n".join(lines) + "\n")
    return 0 if all(c.done for c in desk.counts.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
