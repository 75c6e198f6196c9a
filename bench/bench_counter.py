"""The counter benchmark (issue #18): a day at the counter from the keyboard only, counted per role.

Run from the repository root (no display needed: Qt's offscreen platform at 1366x768)::

    PYTHONPATH=$PWD .venv/bin/python bench/bench_counter.py [--backend sqlite|postgresql] [--out table.md]

It runs ``tests/ui/test_counter_day.py`` (pytest-qt, key events only to the focused widget) — the
day, and the inspector's notice of infraction written from the Infrações page (the role ``auto``) — and
prints, per role, the fields filled, the characters of data typed, the navigation keys (every other
key: Tab, Enter, Alt+letter, arrows, Esc) and the wall time. The baseline is the floor of one
navigation key per field filled (a Tab between fields): the target for the clerk's complete
dossier is navigation keys ≤ 1.25 × fields filled. ``MOTODESK_SCREENSHOTS=1`` refreshes
``docs/screenshots/counter-NN-*.png`` on the way.

As a person types (issue #26): this module is also loaded into that test run as a pytest plugin
(``-p bench_counter``). It makes every key — each character of data too, not a field's string at
once — go to ``QApplication.focusWidget()`` at the moment it is pressed (the focused widget of the
active window: where a real keyboard's key lands), and counts the keys that found no focused widget
or a focused widget outside the active window, and the fields whose characters ended in another
widget than they started in (a focus that moved under the typist's hands). It also reads how many
checklist items the inspector's dialog answered, so the checklist's keys are counted per item.

Targets (issue #26): clerk's dossier ≤ 1.25 navigation keys per field; inspector's checklist ≤ 1.3
per item; the notice (auto de infração) ≤ 2.0 per field; supervisor ≤ 6 navigation keys per action.
``--x11`` runs it under ``xvfb-run -a`` with Qt's xcb platform instead of offscreen.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGET = 1.25
TARGETS = {"atendente": 1.25, "vistoriador": 1.3, "auto": 2.0}
SUPERVISOR_TARGET = 6.0
#: The supervisor's actions the day plays (tests/ui/test_counter_day.py::_supervisor_day); finding the
#: application by CPF is the way to the next one, not an action of its own.
SUPERVISOR_ACTIONS = ("Convocar próximo", "Iniciar análise", "Aprovar por decreto", "Emitir",
                      "Imprimir crachá (PDF)", "Conferir crachá")
FOCUS_REPORT = "MOTODESK_BENCH_FOCUS_REPORT"


# -- the pytest plugin: keys to the focused widget of the active window, one by one ----------------
_focus: dict[str, Any] = {"no_focus": 0, "outside_active_window": 0, "moved_while_typing": [],
                          "checklist_items": None, "keys_sent": 0}


def _person_focus() -> Any:  # noqa: ANN401 - a QWidget
    from PySide6.QtWidgets import QApplication

    widget = QApplication.focusWidget()
    active = QApplication.activeWindow()
    if widget is None:
        _focus["no_focus"] += 1
        widget = QApplication.activeModalWidget() or active  # X delivers it to the active window
    elif active is not None and widget.window() is not active:
        _focus["outside_active_window"] += 1
    assert widget is not None, "nothing has the keyboard focus"
    return widget


def pytest_runtest_setup(item: Any) -> None:  # noqa: ANN401
    """Make the day's key recorder type like a keyboard: each key to the focus of that moment."""
    module = getattr(item, "module", None)
    recorder = getattr(module, "KeyRecorder", None)
    if recorder is None or getattr(recorder, "_as_a_person", False):
        return
    recorder._as_a_person = True

    def focus() -> Any:  # noqa: ANN401
        _focus["keys_sent"] += 1
        return _person_focus()

    def type_(self: Any, text: str) -> None:  # noqa: ANN401
        self.now.fields += 1
        self.now.characters += len(text)
        first = None
        for ch in text:
            widget = focus()
            first = first or widget
            self.qtbot.keyClicks(widget, ch)
        if first is not None and _person_focus() is not first:
            _focus["moved_while_typing"].append(f"{self.role}: {text[:20]!r}")

    recorder.focus = staticmethod(focus)  # key() asks it before each navigation key
    recorder.type = type_
    dialog = getattr(module, "ChecklistDialog", None)
    if dialog is not None:
        class Counted(dialog):  # type: ignore[misc, valid-type]
            def __init__(self, *args: Any, **kwargs: Any) -> None:  # noqa: ANN401
                super().__init__(*args, **kwargs)
                _focus["checklist_items"] = len(self.rows)

        module.ChecklistDialog = Counted


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:  # noqa: ANN401, ARG001
    target = os.environ.get(FOCUS_REPORT)
    if target:
        from PySide6.QtGui import QGuiApplication

        _focus["platform"] = QGuiApplication.platformName() if QGuiApplication.instance() else None
        Path(target).write_text(json.dumps(_focus, ensure_ascii=False), encoding="utf-8")
ROLE_LABELS = {"atendente": "Atendente (dossiê, foto, requerimento, veículo)", "vistoriador": "Vistoriador (checklist)",
               "supervisor": "Supervisor (convocação, decreto, emissão, crachá)",
               "auto": "Fiscal (auto de infração: infração, data e hora, local, autuado por CPF, relato)"}


def _verdict(name: str, value: float | None, target: float, unit: str) -> str:
    if value is None:
        return f"{name}: não medido (meta ≤ {target} {unit})."
    return f"{name}: {value:.2f} {unit} (meta ≤ {target}) — {'atendida' if value <= target else 'NÃO atendida'}."


def verdicts(rows: list[dict[str, Any]], focus: dict[str, Any] | None) -> list[str]:
    """One line per target of issue #26, and where the keys went."""
    by_role = {r["role"]: r for r in rows}
    clerk, inspector, supervisor = (by_role.get(k) for k in ("atendente", "vistoriador", "supervisor"))
    lines = [_verdict("Atendente, dossiê e o resto do atendimento", clerk["navigation"] / clerk["fields"]
                      if clerk and clerk["fields"] else None, TARGETS["atendente"], "teclas de navegação por campo")]
    items = focus.get("checklist_items") if focus else None
    lines.append(_verdict(f"Vistoriador, checklist ({items or '?'} itens)",
                          inspector["navigation"] / items if inspector and items else None, TARGETS["vistoriador"],
                          "teclas de navegação por item"))
    auto = by_role.get("auto")
    lines.append(_verdict("Auto de infração", auto["navigation"] / auto["fields"] if auto and auto["fields"] else None,
                          TARGETS["auto"], "teclas de navegação por campo")
                 + ("" if auto else " O dia do teste não lavra auto: falta jogá-lo."))
    lines.append(_verdict(f"Supervisor ({len(SUPERVISOR_ACTIONS)} ações: {', '.join(SUPERVISOR_ACTIONS)})",
                          supervisor["navigation"] / len(SUPERVISOR_ACTIONS) if supervisor else None,
                          SUPERVISOR_TARGET, "teclas de navegação por ação"))
    if focus:
        moved = focus["moved_while_typing"]
        lines.append(f"Plataforma Qt usada: {focus.get('platform')}.")
        lines.append(f"Teclas enviadas ao foco do momento: {focus['keys_sent']}; sem widget com foco: "
                     f"{focus['no_focus']}; foco fora da janela ativa: {focus['outside_active_window']}; "
                     f"campos cujo foco mudou durante a digitação: {len(moved)}{' — ' + '; '.join(moved) if moved else ''}.")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    parser.add_argument("--x11", action="store_true", help="under xvfb-run -a (Qt xcb) instead of offscreen")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "counter.json"
        focus_report = Path(folder) / "focus.json"
        platform = "xcb" if args.x11 else os.environ.get("QT_QPA_PLATFORM", "offscreen")
        env = dict(os.environ, MOTODESK_COUNTER_REPORT=str(report), PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'bench'}",
                   QT_QPA_PLATFORM=platform, **{FOCUS_REPORT: str(focus_report)})
        command = [sys.executable, "-m", "pytest", "tests/ui/test_counter_day.py", "-q", "-x", "-n", "0",
                   "-p", "no:cacheprovider", "-p", "bench_counter", "-k", f"keyboard and {args.backend}"]
        if args.x11:
            xvfb = shutil.which("xvfb-run")
            if xvfb is None:
                print("xvfb-run não encontrado")
                return 1
            command = [xvfb, "-a", "-s", "-screen 0 1366x768x24", *command]
        run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        if not report.exists():
            print(run.stdout[-4000:], run.stderr[-2000:], sep="\n")
            print("o dia no balcão não chegou ao fim: sem tabela")
            return 1
        rows = json.loads(report.read_text(encoding="utf-8"))
        focus = json.loads(focus_report.read_text(encoding="utf-8")) if focus_report.exists() else None

    screen = "Xvfb (xcb), sem gerenciador de janelas" if args.x11 else "offscreen"
    lines = [f"Dia no balcão, só teclado, 1366x768 {screen} ({args.backend}); teclas ao widget com o foco", "",
             "| papel | campos preenchidos | caracteres de dados | teclas de navegação | navegação ÷ campos | tempo |",
             "|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        ratio = row["navigation_per_field"]
        lines.append(f"| {ROLE_LABELS.get(row['role'], row['role'])} | {row['fields']} | {row['characters']} | "
                     f"{row['navigation']} | {'—' if ratio is None else f'{ratio:.2f}'} | {row['seconds']:.1f} s |")
    lines.append("")
    lines.extend(verdicts(rows, focus))
    lines.append(f"Teste: {'passou' if run.returncode == 0 else 'FALHOU (código ' + str(run.returncode) + ')'}.")
    for row in rows:
        lines.append(f"Teclas de navegação ({row['role']}): {' '.join(row['keys'])}")
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0 if run.returncode == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
