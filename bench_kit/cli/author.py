"""`bench-kit author` commands: demo scenes and template-generated items."""

from __future__ import annotations

import click

from bench_kit.cli._common import BenchKitGroup, info, params_option


@click.group("author", cls=BenchKitGroup)
def author() -> None:
    """Author benchmark items: demo scenes, templates, variants."""


@author.command("scenes")
@params_option
@click.option("--out", "out_dir", default="datasets/demo", show_default=True,
              type=click.Path(file_okay=False),
              help="Benchmark folder: writes images/<scene>.png and annotations.jsonl there.")
def scenes(params_path: str, out_dir: str) -> None:
    """Draw the synthetic demo scenes (shapes, signs, bar charts) with annotations.

    Reads `scenes:` (seed, n_shapes, n_signs, n_charts, width, height) from params.yaml;
    the same params give byte-identical images and annotations.

    \b
    Example:
      bench-kit author scenes --params params.yaml --out datasets/demo
    """
    from bench_kit.authoring.scenes import run_scenes

    summary = run_scenes(params_path, out_dir)
    kinds = ", ".join(f"{n} {kind}" for kind, n in summary.counts.items())
    info(f"wrote {summary.total} scenes ({kinds}; {summary.n_objects} objects, "
         f"{summary.n_texts} texts) to {summary.out_dir}")


@author.command("generate")
@params_option
@click.option("--annotations", default="datasets/demo/annotations.jsonl", show_default=True,
              type=click.Path(dir_okay=False), help="Scene annotations written by `scenes`.")
@click.option("--templates", default=None, type=click.Path(dir_okay=False),
              help="Templates YAML [default: params generate.templates].")
@click.option("--out", "out_path", default="datasets/demo/items.jsonl", show_default=True,
              type=click.Path(dir_okay=False),
              help="Items file to write (keep it next to the annotations: image paths are "
                   "relative to that folder).")
def generate(params_path: str, annotations: str, templates: str | None, out_path: str) -> None:
    """Fill the question templates from the scene annotations and write items.

    Prints a coverage table (capability x difficulty, per template, per task and layer)
    to stderr. A bad template stops with a one-line error naming it; nothing is written.

    \b
    Example:
      bench-kit author generate --templates datasets/demo/templates.yaml \\
          --out datasets/demo/items.jsonl
    """
    from bench_kit.authoring.generate import format_coverage, run_generate

    summary = run_generate(params_path, annotations, templates, out_path)
    info(format_coverage(summary.coverage))
    info(f"wrote {summary.coverage.total} items to {summary.out_path}")
