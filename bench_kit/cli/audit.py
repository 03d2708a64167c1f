"""`bench-kit audit` commands."""

from __future__ import annotations

import click

from bench_kit.cli._common import BenchKitGroup


@click.group("audit", cls=BenchKitGroup)
def audit() -> None:
    """Audit items for ambiguity, bad labels, contamination and redundancy."""
