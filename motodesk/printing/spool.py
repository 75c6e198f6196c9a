"""The system's print queue on Linux and macOS: CUPS, through its ordinary commands (`lpstat`, `lp`).

Qt's print dialog chooses the queue; the program renders the job (:mod:`motodesk.ui.printqueue`)
and hands it to CUPS here, so it knows whether the queue *accepted* it (``lp`` answers with the job's
id or refuses) — Qt's own CUPS engine gives no such answer. Before anything is signed or numbered,
:func:`problem` says in pt_BR why a queue cannot take a job now: missing, off (stopped), out of cards
or paper, or refusing jobs.

On Windows the spooler is reached through Qt itself (the dialog's printer); nothing here runs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

#: How long `lp` and `lpstat` may take (a CUPS server on another machine that stopped answering).
TIMEOUT_S = 20
_JOB = re.compile(r"request id is (\S+)")
#: Where `lpstat -l`'s long listing starts, after the reason lines.
_LONG_KEYS = ("Form mounted:", "Content types:", "Printer types:", "Description:", "Alerts:", "Location:",
              "Connection:", "Interface:")
_MEDIA_OUT = ("media-empty", "media-needed", "media-jam", "input-tray-missing", "sem cart", "sem papel")


class SpoolError(Exception):
    """The queue cannot take the job, or refused it; the message says why in pt_BR (the screens
    show it as :class:`motodesk.ui.printqueue.PrintQueueError`)."""


@dataclass(frozen=True)
class QueueState:
    name: str
    exists: bool
    enabled: bool = True
    accepting: bool = True
    message: str = ""  # the administrator's or the driver's reason (cupsdisable -r, a backend's ERROR:)
    reasons: tuple[str, ...] = ()  # CUPS's printer-state-reasons ("media-empty-error", "paused")


@dataclass(frozen=True)
class Receipt:
    """A job the queue accepted."""

    printer: str
    job_id: str | None  # CUPS's request id; None on Windows (the spooler's own) or for a PDF file
    pages: int


def available() -> bool:
    """True where jobs go through CUPS commands (not Windows; the commands are installed)."""
    return sys.platform != "win32" and shutil.which("lp") is not None and shutil.which("lpstat") is not None


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LC_ALL": "C", "LANG": "C"}  # the answers are parsed: CUPS's English ones
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT_S, env=env, check=False)
    except subprocess.TimeoutExpired:
        raise SpoolError("O sistema de impressão (CUPS) não respondeu a tempo. Verifique se o serviço de "
                              "impressão está em execução e tente de novo.") from None
    except OSError as exc:
        raise SpoolError(f"Não foi possível falar com o sistema de impressão: {exc.strerror or exc}.") from None


def _reason(lines: list[str]) -> str:
    """The indented lines right under the state line: the reason an administrator or driver gave."""
    reason = []
    for line in lines[1:]:
        if not line.startswith(("\t", " ")) or line.strip().startswith(_LONG_KEYS):
            break
        reason.append(line.strip())
    return " ".join(reason)


def _alerts(lines: list[str]) -> tuple[str, ...]:
    """printer-state-reasons, as `lpstat -l` lists them ("Alerts: media-empty-error paused")."""
    for line in lines:
        if line.strip().startswith("Alerts:"):
            return tuple(word for word in line.split(":", 1)[1].split() if word != "none")
    return ()


def queue_state(name: str) -> QueueState:
    printer = _run(["lpstat", "-l", "-p", name])
    if printer.returncode != 0 or not printer.stdout.strip():
        return QueueState(name, exists=False)
    lines = printer.stdout.splitlines()
    enabled = " disabled " not in f" {lines[0]} "
    message = _reason(lines)
    accepts = _run(["lpstat", "-a", name])
    accept_lines = accepts.stdout.splitlines()
    accepting = bool(accept_lines) and " not accepting " not in f" {accept_lines[0]} "
    if not accepting:
        message = message or _reason(accept_lines)
    return QueueState(name, exists=True, enabled=enabled, accepting=accepting, message=message,
                      reasons=_alerts(lines))


def describe(state: QueueState) -> str | None:
    """Why the queue cannot take a job now (pt_BR), or None when it can."""
    name = state.name
    why = f" (motivo informado: {state.message})" if state.message else ""
    if not state.exists:
        return (f"A impressora “{name}” não está instalada neste computador (ou foi removida). "
                "Escolha outra impressora ou peça ao suporte que a instale.")
    said = " ".join((state.message, *state.reasons)).lower()
    if any(marker in said for marker in _MEDIA_OUT):
        return (f"A impressora “{name}” está sem cartões ou sem papel{why}. Abasteça-a, retome a fila e "
                "tente de novo.")
    if not state.enabled:
        return (f"A impressora “{name}” está desligada ou com a fila pausada{why}. Ligue-a ou retome a fila "
                "(Configurações de impressão) e tente de novo.")
    if not state.accepting:
        return f"A fila da impressora “{name}” não está aceitando trabalhos{why}. Tente outra impressora."
    return None


def problem(name: str) -> str | None:
    """:func:`describe` of the named queue, asked of CUPS now."""
    if not name:
        return "Nenhuma impressora foi escolhida (e este computador não tem impressora padrão)."
    return describe(queue_state(name))


def submit(name: str, pdf: Path, title: str, *, copies: int = 1, media: str | None = None) -> str:
    """Hand the PDF to the queue; returns the job's id once the queue accepted it.

    ``media``: CUPS's name of the paper (``A4``, ``Custom.85.6x54mm`` for the CR80 card), so the
    queue neither scales the page nor picks its default paper."""
    found = problem(name)
    if found:
        raise SpoolError(found)
    args = ["lp", "-d", name, "-t", title[:120] or "MotoDesk", "-n", str(max(1, copies)),
            "-o", "fit-to-page=false", "-o", "scaling=100"]
    if media:
        args += ["-o", f"media={media}", "-o", f"PageSize={media}"]
    done = _run([*args, "--", str(pdf)])
    job = _JOB.search(done.stdout)
    if done.returncode != 0 or job is None:
        found = problem(name)
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise SpoolError(found or ("A fila de impressão recusou o trabalho"
                                        + (f": {detail[-1][:200]}" if detail else ".")))
    return job.group(1)


def media_name(width_mm: float, height_mm: float) -> str:
    """The CUPS media of a page: A4 by its name, anything else as a custom size."""
    if {round(width_mm), round(height_mm)} == {210, 297}:
        return "A4"
    return f"Custom.{width_mm:g}x{height_mm:g}mm"
