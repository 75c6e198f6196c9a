"""Shared fixtures: every database test runs on SQLite and on PostgreSQL.

PostgreSQL comes from MOTODESK_TEST_PG_URL (default: the local server, database `test`); each test
run creates its own database beside it.  With MOTODESK_REQUIRE_PG=1 (CI and the README's test
command) an unreachable server fails the tests instead of skipping them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

# The tests' own "today" (date.today(), datetime.now()) is the counter's: between 21:00 and 24:00 in
# Patrocínio the UTC date is already tomorrow, and a test that wrote date.today() beside a service
# that reads motodesk.clock (always America/Sao_Paulo) failed for three hours of every day.
os.environ["TZ"] = "America/Sao_Paulo"
time.tzset()
_TMP_HOME = tempfile.mkdtemp(prefix="motodesk-tests-")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if os.environ["QT_QPA_PLATFORM"] == "offscreen":  # the counter's screen: every window must fit 1366x768
    _SCREEN = os.environ.get("MOTODESK_TEST_SCREEN", "1366x768")
    os.environ["QT_QPA_PLATFORM"] = "offscreen:configfile=" + os.path.join(
        os.path.dirname(__file__), "data", f"screen-{_SCREEN}.json")
os.environ["MOTODESK_LOG_DIR"] = os.path.join(_TMP_HOME, "log")
os.environ["XDG_DATA_HOME"] = os.path.join(_TMP_HOME, "data")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_TMP_HOME, "config")
os.environ["XDG_CACHE_HOME"] = os.path.join(_TMP_HOME, "cache")
# The test workstation's badge signing keys: a file store in the tests' folder, never the real keyring.
os.environ["MOTODESK_BADGE_KEY_DIR"] = os.path.join(_TMP_HOME, "badge-keys")
os.environ.pop("MOTODESK_DATABASE_URL", None)

import pytest  # noqa: E402
from pg_scratch import scratch_database  # type: ignore[import-not-found]  # noqa: E402

from motodesk.models import Base  # noqa: E402
from motodesk.models.db import Database  # noqa: E402
from motodesk.rules.common import Role  # noqa: E402
from motodesk.services.context import AppContext, CurrentUser  # noqa: E402

#: the GUI tests' guard (no database session on the GUI thread) and their rerun of a crashed worker (only that)
pytest_plugins = ["gui_guard", "crash_rerun"]


def pytest_configure(config: pytest.Config) -> None:
    """Every qtbot wait scales with the machine's load (tests_helpers.wait_timeout): no bare 5 s."""
    from tests_helpers import scale_qtbot_waits  # type: ignore[import-not-found]

    scale_qtbot_waits()


def pytest_runtest_teardown(item: pytest.Item) -> None:
    """Once a GUI test made the application, Python's cyclic collector runs on the GUI thread only
    (motodesk.ui.collector); a test that spins no event loop gets its cycles collected here, on the
    main thread, so that a worker process's memory never waits for the next GUI test."""
    import gc

    if not gc.isenabled():
        from motodesk.ui.collector import collect_if_due

        collect_if_due()


BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """URL of a fresh PostgreSQL database for this test process (dropped at the end)."""
    with scratch_database(f"motodesk_test_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}") as url:
        yield url


@pytest.fixture
def empty_pg() -> Iterator[str]:
    """A new, empty PostgreSQL database on the test server, for one test (dropped afterwards)."""
    with scratch_database("motodesk_empty") as url:
        yield url


@pytest.fixture(scope="session")
def pg_migrated(pg_server: str) -> str:
    db = Database.open(pg_server)
    db.prepare(allow_upgrade_shared=True)
    db.dispose()
    return pg_server


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "template.sqlite3"
    db = Database.open(f"sqlite:///{path}")
    db.prepare()
    db.dispose()
    return path


def _finish_background_work() -> None:
    """Let screens' background queries end before their database goes away (no stray connections)."""
    import sys

    if "PySide6.QtCore" in sys.modules:
        from PySide6.QtCore import QThreadPool

        QThreadPool.globalInstance().waitForDone(30_000)


def _truncate_all(db: Database) -> None:
    names = ", ".join(f'"{t.name}"' for t in Base.metadata.sorted_tables)
    with db.engine.begin() as conn:
        # The append-only tables refuse TRUNCATE by trigger; the test server's superuser steps past it.
        conn.exec_driver_sql("SET LOCAL session_replication_role = replica")
        conn.exec_driver_sql(f"TRUNCATE {names} RESTART IDENTITY CASCADE")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def db_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if backend == "sqlite":
        template = request.getfixturevalue("sqlite_template")
        path = tmp_path / "motodesk.sqlite3"
        shutil.copy(template, path)
        return f"sqlite:///{path}"
    return request.getfixturevalue("pg_migrated")


@pytest.fixture
def db(db_url: str, backend: str) -> Iterator[Database]:
    database = Database.open(db_url)
    if backend == "postgresql":
        _truncate_all(database)
    yield database
    _finish_background_work()
    database.dispose()


@pytest.fixture
def ctx(db: Database) -> AppContext:
    """An administrator's context on a migrated database with default settings."""
    from motodesk.services.settings import ensure_defaults

    context = AppContext(db)
    ensure_defaults(context)
    register_test_station(context)
    return context


def register_test_station(context: AppContext) -> None:
    """Register the test workstation to print badges (its key in MOTODESK_BADGE_KEY_DIR)."""
    from motodesk.services.badges import register_printing_station

    register_printing_station(context)


def user_ctx(ctx: AppContext, role: Role, login: str | None = None) -> AppContext:
    return ctx.as_user(CurrentUser(id=None, login=login or role.value, full_name=role.label, role=role))


@pytest.fixture
def clerk(ctx: AppContext) -> AppContext:
    return user_ctx(ctx, Role.CLERK)


@pytest.fixture
def supervisor(ctx: AppContext) -> AppContext:
    return user_ctx(ctx, Role.SUPERVISOR)


@pytest.fixture
def inspector(ctx: AppContext) -> AppContext:
    return user_ctx(ctx, Role.INSPECTOR)


@pytest.fixture
def pg_ctx(request: pytest.FixtureRequest) -> Iterator[AppContext]:
    """An administrator's context on PostgreSQL only, for what exists only there (roles, pg_dump)."""
    from motodesk.services.settings import ensure_defaults

    database = Database.open(request.getfixturevalue("pg_migrated"))
    _truncate_all(database)
    context = AppContext(database)
    ensure_defaults(context)
    register_test_station(context)
    yield context
    _finish_background_work()
    database.dispose()


@pytest.fixture
def wait_ops(qtbot):  # noqa: ANN001, ANN201 - pytest-qt's fixture
    """``wait_ops()`` waits until every screen's ServiceOp has delivered its result (GUI tests)."""
    from motodesk.ui.ops import ServiceOp

    def wait(timeout: int = 10_000) -> None:
        qtbot.waitUntil(lambda: ServiceOp.running() == 0, timeout=timeout)
        qtbot.wait(1)  # the queued result callbacks

    return wait
