"""The `bench-kit` command line. Click lives only in this package.

Each command parses its options, calls one library function and renders the result;
library errors (BenchKitError) become one-line messages with exit code 1 (2 for usage).
"""

from __future__ import annotations

import click

from bench_kit import __version__
from bench_kit.cli._common import BenchKitGroup
from bench_kit.cli.audit import audit
from bench_kit.cli.author import author
from bench_kit.cli.evaluate import eval_group
from bench_kit.cli.report import report
from bench_kit.cli.split import split
from bench_kit.cli.validate import validate


@click.group(cls=BenchKitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bench-kit")
def cli() -> None:
    """Author, validate, audit, version and evaluate VLM benchmarks.

    \b
    Example (the demo pipeline, stage by stage):
      bench-kit author scenes && bench-kit author generate
      bench-kit validate datasets/demo/items.jsonl
      bench-kit eval run --model text-only --mode no_image
    """


for command in (author, validate, audit, split, eval_group, report):
    cli.add_command(command)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="bench-kit")
