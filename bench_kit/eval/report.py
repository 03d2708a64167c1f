"""Rendering the report: `report.md` and one self-contained `report.html`.

The HTML environment autoescapes everything, so a question or a model response is always
text, never markup; the Markdown environment escapes every interpolated value for tables.
Output depends only on the inputs (no clock), so DVC sees no change when nothing changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from bench_kit.eval.report_data import ReportSettings, load_inputs
from bench_kit.eval.report_view import build_view
from bench_kit.io import write_text
from bench_kit.items import default_root
from bench_kit.types import MODES

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|])")


@dataclass(frozen=True)
class ReportFiles:
    """Where the report went and what it covers."""

    html: Path
    markdown: Path
    models: list[str]
    modes: list[str]


def pct(value: float | None, digits: int = 1) -> str:
    """0.409 -> `40.9%`; None -> `n/a`."""
    return "n/a" if value is None else f"{100 * value:.{digits}f}%"


def pts(value: float | None) -> str:
    """A difference of rates in percentage points: 0.032 -> `+3.2`; None -> `n/a`."""
    return "n/a" if value is None else f"{100 * value:+.1f}"


def ci(block: dict | None) -> str:
    """`35.7–46.4` from an accuracy block's ci_low/ci_high (percent)."""
    if not block or block.get("ci_low") is None:
        return "n/a"
    return f"{100 * block['ci_low']:.1f}–{100 * block['ci_high']:.1f}"


def money(value: float | None) -> str:
    """Cost in USD with enough digits for cheap runs."""
    return "n/a" if value is None else f"${value:.4f}"


def md_escape(value: object) -> str:
    """Any value as one line of Markdown text: specials backslash-escaped, HTML neutralised."""
    text = "" if value is None else str(value)
    text = " ".join(text.split())
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def _environment(*, html: bool):
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("bench_kit.eval", "templates"),
        autoescape=html,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=None if html else md_escape,
    )
    env.filters.update(pct=pct, pts=pts, ci=ci, money=money)
    return env


def render(view: dict) -> tuple[str, str]:
    """(html, markdown) for a view built by `report_view.build_view`."""
    html = _environment(html=True).get_template("report.html.j2").render(**view)
    markdown = _environment(html=False).get_template("report.md.j2").render(**view)
    return html, markdown


def write_report(items_path: str | Path, scores_dir: str | Path, metrics_dir: str | Path,
                 out_dir: str | Path, *, results_dir: str | Path | None = None,
                 audit_dir: str | Path | None = None, root: str | Path | None = None,
                 settings: ReportSettings | None = None) -> ReportFiles:
    """Read the scores, metrics, responses and audit, and write report.html + report.md.

    Args:
        items_path: the items (split) file the models were scored on.
        scores_dir: `scores/<bench>`, one `<model>/<mode>.jsonl` folder per model.
        metrics_dir: `metrics/<bench>`, one `<model>.json` per model (defines the models).
        out_dir: where `report.html` and `report.md` go.
        results_dir: `results/<bench>` for raw responses (optional).
        audit_dir: `audits/<bench>` with findings.jsonl (+ summary.json) (optional).
        root: benchmark root for image thumbnails (default: derived from `items_path`).
        settings: the `report:` section of params.yaml.
    """
    settings = settings or ReportSettings()
    inputs = load_inputs(items_path, scores_dir, metrics_dir, results_dir=results_dir,
                         audit_dir=audit_dir)
    view = build_view(inputs, settings, root if root is not None else default_root(items_path))
    html, markdown = render(view)
    out = Path(out_dir)
    write_text(out / "report.html", html)
    write_text(out / "report.md", markdown)
    modes = sorted({row["mode"] for row in view["leaderboard"]}, key=MODES.index)
    return ReportFiles(html=out / "report.html", markdown=out / "report.md",
                       models=[run.model for run in inputs.runs], modes=modes)

