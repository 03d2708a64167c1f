"""The `bench-kit` command line. Click lives only in this package.

Each command parses its options, calls one library function and renders the result;
library errors (BenchKitError) become one-line messages with exit code 1 (2 for usage).
"""

from __future__ import annotations

import warnings

import click

from bench_kit import __version__
from bench_kit.cli._common import DEBUG_ENV, DEBUG_KEY, BenchKitGroup, configure_logging
from bench_kit.cli.audit import audit
from bench_kit.cli.author import author
from bench_kit.cli.compare import compare, history
from bench_kit.cli.evaluate import eval_group
from bench_kit.cli.init import init
from bench_kit.cli.io_cmds import export_cmd, import_cmd
from bench_kit.cli.models import models
from bench_kit.cli.report import report
from bench_kit.cli.split import split
from bench_kit.cli.validate import validate
from bench_kit.errors import BenchKitWarning

_show_warning = warnings.showwarning


def _one_line_notice(message, category, filename, lineno, file=None, line=None) -> None:
    """Library notices (BenchKitWarning) as one `warning: ...` line on stderr."""
    if issubclass(category, BenchKitWarning):
        click.echo(f"warning: {message}", err=True)
    else:
        _show_warning(message, category, filename, lineno, file, line)


warnings.showwarning = _one_line_notice


@click.group(cls=BenchKitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bench-kit")
@click.option("--debug", is_flag=True, envvar=DEBUG_ENV,
              help=f"On an error, print the traceback with every chained cause before the "
                   f"one-line message (also {DEBUG_ENV}=1); with --verbose, debug log lines.")
@click.option("-v", "--verbose", is_flag=True,
              help="Log what the library does (retries, checks run, calls planned) to stderr.")
@click.pass_context
def cli(ctx: click.Context, debug: bool, verbose: bool) -> None:
    """Author, validate, audit, version and evaluate VLM benchmarks.

    \b
    Example (the demo pipeline, stage by stage):
      bench-kit author scenes && bench-kit author generate
      bench-kit author variants --annotations datasets/demo/annotations.jsonl
      bench-kit validate datasets/demo/items.jsonl
      bench-kit eval run --model text-only --mode no_image
      bench-kit --debug --verbose eval run --model gpt --mode image
    """
    ctx.meta[DEBUG_KEY] = debug
    configure_logging(verbose, debug)


for command in (author, validate, audit, split, eval_group, report, models):
    cli.add_command(command)
for command in (import_cmd, export_cmd, init):
    cli.add_command(command)
for command in (compare, history):
    cli.add_command(command)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="bench-kit")
