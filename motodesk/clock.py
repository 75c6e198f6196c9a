"""The secretariat's one clock: today and wall-clock time in Patrocínio (America/Sao_Paulo).

Every time a person sees (status bar, histories, PDFs, file names) and every "today" a rule is
judged on comes from here, whatever time zone the workstation or the server is set to. It imports
nothing of the project, so every layer may use it.
"""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

LOCAL_TZ = ZoneInfo("America/Sao_Paulo")


def local_today() -> date:
    return datetime.now(LOCAL_TZ).date()


def local_now() -> datetime:
    """Now, aware, on the secretariat's wall clock."""
    return datetime.now(LOCAL_TZ)


def local_time(moment: datetime) -> datetime:
    """An aware moment as the secretariat's wall clock shows it (naive, America/Sao_Paulo)."""
    return moment.astimezone(LOCAL_TZ).replace(tzinfo=None)
