"""The secretariat's calendar: today and wall-clock time in Patrocínio (America/Sao_Paulo)."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

LOCAL_TZ = ZoneInfo("America/Sao_Paulo")


def local_today() -> date:
    return datetime.now(LOCAL_TZ).date()


def local_time(moment: datetime) -> datetime:
    """An aware moment as the secretariat's wall clock shows it (naive, America/Sao_Paulo)."""
    return moment.astimezone(LOCAL_TZ).replace(tzinfo=None)
