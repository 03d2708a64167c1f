"""`bench-kit validate`."""

from __future__ import annotations

import click


@click.command("validate")
def validate() -> None:
    """Validate an items file."""
