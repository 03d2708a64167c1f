"""Shared CLI plumbing: error mapping, common options, progress output."""

from __future__ import annotations

import sys
from typing import Any, Callable

import click

from bench_kit.errors import BenchKitError, ValidationFailed


class BenchKitGroup(click.Group):
    """A click group whose commands turn BenchKitError into a one-line message + exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        from bench_kit.params import on_defaults

        on_defaults(info)
        try:
            return super().invoke(ctx)
        except ValidationFailed as exc:
            for line in exc.lines():
                click.echo(line, err=True)
            click.echo(f"error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except BenchKitError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("interrupted; completed work is kept (re-run to continue)", err=True)
            sys.exit(130)


def params_option(func: Callable) -> Callable:
    """`--params FILE` (default params.yaml; without one, the documented defaults)."""
    return click.option("--params", "params_path", default="params.yaml", show_default=True,
                        type=click.Path(dir_okay=False),
                        help="params.yaml to read settings from (when ./params.yaml does not "
                             "exist, every section takes its documented defaults).")(func)


def format_option(help: str = "Output format.") -> Callable[[Callable], Callable]:
    """`--format text|json` (default text) as `fmt`."""
    return click.option("--format", "fmt", type=click.Choice(["text", "json"]),
                        default="text", show_default=True, help=help)


def budget_options(calls: str = "model calls") -> Callable[[Callable], Callable]:
    """`--max-cost USD` and `--max-requests N` (defaults: `eval.budget`, else no limit)."""
    def decorate(func: Callable) -> Callable:
        func = click.option("--max-requests", default=None, type=click.IntRange(min=0),
                            help=f"Stop after this many {calls} [default: "
                                 "eval.budget.max_requests, else no limit].")(func)
        return click.option("--max-cost", default=None, type=click.FloatRange(min=0),
                            help=f"Stop starting {calls} once this many USD are spent "
                                 "[default: eval.budget.max_cost, else no limit].")(func)
    return decorate


def info(message: str) -> None:
    """A progress/log line on stderr (stdout stays clean for data)."""
    click.echo(message, err=True)
