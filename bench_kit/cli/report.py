"""`bench-kit report`."""

from __future__ import annotations

import click


@click.command("report")
def report() -> None:
    """Write the report."""
