"""Shared CLI plumbing: error mapping, common options, progress output."""

from __future__ import annotations

import logging
import os
import re
import sys
import traceback
from typing import Any, Callable

import click

from bench_kit.errors import BenchKitError, ValidationFailed

DEBUG_KEY = "bench_kit.debug"
DEBUG_ENV = "BENCH_KIT_DEBUG"
_LOG_HANDLER = "bench_kit.cli"


def debug_enabled(ctx: click.Context | None = None) -> bool:
    """Whether `--debug` (or BENCH_KIT_DEBUG=1) asks for tracebacks."""
    if ctx is not None and DEBUG_KEY in ctx.meta:
        return bool(ctx.meta[DEBUG_KEY])
    return os.environ.get(DEBUG_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def configure_logging(verbose: bool, debug: bool) -> None:
    """Library log lines to stderr: INFO with `--verbose`, DEBUG with `--verbose --debug`;
    none without (the package logger keeps only its NullHandler)."""
    logger = logging.getLogger("bench_kit")
    for handler in [h for h in logger.handlers if h.get_name() == _LOG_HANDLER]:
        logger.removeHandler(handler)
    if not verbose:
        logger.setLevel(logging.NOTSET)
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.set_name(_LOG_HANDLER)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if debug else logging.INFO)


# A parameter named in a library message: `name` or `name=value` (bench_kit.errors.param).
_PARAMETER = re.compile(r"`([a-z_][a-z0-9_]*)(?:=([^`]*))?`")


def as_flags(text: str, command: click.Command | None = None) -> str:
    """A library message as the CLI's user reads it: each parameter it names that
    `command` (default: the one running) has an option for becomes that option, with its
    value (`join_on=id` -> `--join-on id`). The mapping is the command's own options: a
    parameter is known by the option's Python name (`items_path`) or by its flag written
    as a name (`items`).

    >>> command = click.Command("import", params=[click.Option(["--map", "column_map"])])
    >>> as_flags("`column_map=question=COLUMN` or `other`", command)
    '--map question=COLUMN or `other`'
    """
    if command is None:
        current = click.get_current_context(silent=True)
        command = current.command if current is not None else None
    if command is None:
        return text
    flags: dict[str, str] = {}
    for option in command.params:
        if isinstance(option, click.Option) and option.name:
            long = max(option.opts, key=len)  # `--items` for ("-i", "--items")
            flags[long.lstrip("-").replace("-", "_")] = long  # `items`, `text_field`
            flags[option.name] = long  # `items_path`

    def flag(match: re.Match[str]) -> str:
        name, value = match.group(1), match.group(2)
        if name not in flags:
            return match.group(0)
        return flags[name] if value is None else f"{flags[name]} {value}"

    return _PARAMETER.sub(flag, text)


def _subcommand(group: click.Group, ctx: click.Context) -> click.Command | None:
    """The command `group` ran (whose options the user gave), when it ran one."""
    name = ctx.invoked_subcommand
    return group.get_command(ctx, name) if name else None


def _error(ctx: click.Context, exc: BenchKitError, command: click.Command | None) -> None:
    """The one-line error; with --debug, first the traceback with every chained cause."""
    if debug_enabled(ctx):
        click.echo("".join(traceback.format_exception(exc)).rstrip(), err=True)
    click.echo(as_flags(f"error: {exc}", command), err=True)


class BenchKitGroup(click.Group):
    """A click group whose commands turn BenchKitError into a one-line message + exit code
    (the traceback and its causes too with `--debug`)."""

    def invoke(self, ctx: click.Context) -> Any:
        from bench_kit.params import on_defaults

        on_defaults(info)
        try:
            return super().invoke(ctx)
        except ValidationFailed as exc:
            command = _subcommand(self, ctx) or self
            for line in exc.lines():
                click.echo(as_flags(line, command), err=True)
            _error(ctx, exc, command)
            sys.exit(exc.exit_code)
        except BenchKitError as exc:
            _error(ctx, exc, _subcommand(self, ctx) or self)
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
    """A progress/log line on stderr (stdout stays clean for data); parameters a library
    line names are shown as the running command's options (`as_flags`)."""
    click.echo(as_flags(message), err=True)
