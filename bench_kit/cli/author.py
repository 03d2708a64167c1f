"""`bench-kit author` commands."""

from __future__ import annotations

import click

from bench_kit.cli._common import BenchKitGroup


@click.group("author", cls=BenchKitGroup)
def author() -> None:
    """Author benchmark items: demo scenes, templates, variants."""
