"""The scratch cluster itself: it checks passwords (the shared test server trusts everyone)."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine
from sqlalchemy.exc import OperationalError

from tests.pgroles.conftest import Cluster


def test_the_scratch_cluster_refuses_a_wrong_password_and_accepts_the_right_one(pg_cluster: Cluster) -> None:
    good = create_engine(pg_cluster.url())
    with good.connect() as conn:
        assert conn.exec_driver_sql("SHOW password_encryption").scalar() == "scram-sha-256"
        assert conn.exec_driver_sql("SELECT inet_server_port()").scalar() == pg_cluster.port
    good.dispose()
    bad = create_engine(pg_cluster.url(password="errada"))
    with pytest.raises(OperationalError, match="password authentication failed"):
        bad.connect()
    bad.dispose()
