"""`bench-kit models` commands."""

from __future__ import annotations

import click

from bench_kit.cli._common import BenchKitGroup, params_option

COLUMNS = ("name", "adapter", "model", "enabled", "api_key_env", "key")


@click.group("models", cls=BenchKitGroup)
def models() -> None:
    """Inspect the models configured under `models:` in params.yaml."""


@models.command("list")
@click.option("--format", "fmt", default="table", show_default=True,
              type=click.Choice(["table", "json"]), help="Output format (on stdout).")
@params_option
def list_command(fmt: str, params_path: str) -> None:
    """List configured models, their adapter, whether they are enabled and whether the
    environment variable holding their API key is set (the key itself is never shown).

    \b
    Example:
      bench-kit models list
      bench-kit models list --format json --params params.yaml
    """
    import json

    from bench_kit.models.config import model_statuses
    from bench_kit.params import load_params

    rows = model_statuses(load_params(params_path), params_path)
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, sort_keys=True))
        return
    cells = [[_cell(row[c]) for c in COLUMNS] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) if cells else len(c)
              for i, c in enumerate(COLUMNS)]
    click.echo("  ".join(c.ljust(w) for c, w in zip(COLUMNS, widths)).rstrip())
    for row, line in zip(rows, cells):
        click.echo("  ".join(v.ljust(w) for v, w in zip(line, widths)).rstrip())
        if row["problem"]:
            click.echo(f"  problem: {row['problem']}")


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
