"""`bench-kit eval` commands."""

from __future__ import annotations

import click

from bench_kit.cli._common import BenchKitGroup


@click.group("eval", cls=BenchKitGroup)
def eval_group() -> None:
    """Run models on items and score their answers."""
