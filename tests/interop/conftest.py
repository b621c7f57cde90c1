"""Shared set-up of the interop tests: the kingme binary under test and a
deadline for tests that pydraughts could leave hanging.

A missing binary or a missing pydraughts is a failure, not a skip: `.ci/run`
builds the one and installs the other, so a skip would only hide a broken set-up.
"""

import os
import signal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KINGME = Path(os.environ.get("KINGME_BIN") or ROOT / "target" / "release" / "kingme")


def pytest_sessionstart(session):
    if not KINGME.exists():
        raise pytest.UsageError(f"{KINGME} not found: run `cargo build --release` (or set KINGME_BIN)")


class Timeout(Exception):
    pass


def _alarm(_signum, _frame):
    raise Timeout("kingme did not answer in time")


@pytest.fixture
def deadline():
    """Fails a test that hangs (pydraughts waits forever for an engine's answer)."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)
