"""Rendering the report: `report.md` and one self-contained `report.html`.

The HTML environment autoescapes everything, so a question or a model response is always
text, never markup; the Markdown environment escapes every interpolated value for tables.
Output depends only on the inputs (no clock), so DVC sees no change when nothing changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from bench_kit.io import write_json, write_text
from bench_kit.items import default_root
from bench_kit.report.fonts import font_face_css
from bench_kit.report.inputs import ReportSettings, load_inputs
from bench_kit.report.view import build_view
from bench_kit.types import MODES

# Leaderboard fields kept in the summary (metrics file and --format json).
SUMMARY_KEYS = ("accuracy", "ci_low", "ci_high", "macro", "macro_low", "macro_high", "n",
                "hits", "parse_failed", "errors", "truncated", "cost", "cost_per_1k", "calls")
PAIR_KEYS = ("n", "accuracy_a", "accuracy_b", "difference", "diff_low", "diff_high", "only_a",
             "only_b", "test", "p_value", "p_holm", "significant", "mdd")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|])")


@dataclass(frozen=True)
class ReportFiles:
    """Where the report went and what it covers."""

    html: Path
    markdown: Path
    models: list[str]
    modes: list[str]
    summary: dict


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


def mdd(value: float | None) -> str:
    """A minimum detectable difference: 0.052 -> `±5.2 pts`; None -> `n/a`."""
    return "n/a" if value is None else f"±{100 * value:.1f} pts"


def pval(value: float | None) -> str:
    """A p-value with two significant digits (`0.0031`, `1.2e-08`)."""
    return "n/a" if value is None else f"{value:.2g}"


def md_escape(value: object) -> str:
    """Any value as one line of Markdown text: specials backslash-escaped, HTML neutralised."""
    text = "" if value is None else str(value)
    text = " ".join(text.split())
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def _environment(*, html: bool):
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("bench_kit.report", "templates"),
        autoescape=html,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=None if html else md_escape,
    )
    env.filters.update(pct=pct, pts=pts, ci=ci, money=money, mdd=mdd, pval=pval)
    return env


def render(view: dict) -> tuple[str, str]:
    """(html, markdown) for a view built by `report_view.build_view`."""
    template = _environment(html=True).get_template("report.html.j2")
    # the page embeds the bundled CJK font cut down to the characters it shows
    font_css = font_face_css(template.render(**view, font_css=""))
    html = template.render(**view, font_css=font_css)
    markdown = _environment(html=False).get_template("report.md.j2").render(**view)
    return html, markdown


def write_report(items_path: str | Path, scores_dir: str | Path, metrics_dir: str | Path,
                 out_dir: str | Path, *, results_dir: str | Path | None = None,
                 audit_dir: str | Path | None = None, root: str | Path | None = None,
                 model_audit_dir: str | Path | None = None,
                 settings: ReportSettings | None = None,
                 plots_dir: str | Path | None = None) -> ReportFiles:
    """Read the scores, metrics, responses and audit; write report.html, report.md and
    summary.json (the report's numbers, a DVC metrics file) to `out_dir`.

    Args:
        items_path: the items (split) file the models were scored on.
        scores_dir: `scores/<bench>`, one `<model>/<mode>.jsonl` folder per model.
        metrics_dir: `metrics/<bench>`, one `<model>.json` per model (defines the models).
        out_dir: where `report.html` and `report.md` go.
        results_dir: `results/<bench>` for raw responses (optional).
        audit_dir: `audits/<bench>` with findings.jsonl (+ summary.json) (optional).
        model_audit_dir: `audits/<bench>/results` from `bench-kit audit results`
            (model_summary.json, item_stats.jsonl, model_findings.jsonl) (optional).
        root: benchmark root for image thumbnails (default: derived from `items_path`).
        settings: the `report:` section of params.yaml.
        plots_dir: where to write the `dvc plots` data (see `plot_files`), if anywhere.
    """
    settings = settings or ReportSettings()
    inputs = load_inputs(items_path, scores_dir, metrics_dir, results_dir=results_dir,
                         audit_dir=audit_dir, model_audit_dir=model_audit_dir)
    view = build_view(inputs, settings, root if root is not None else default_root(items_path))
    html, markdown = render(view)
    out = Path(out_dir)
    write_text(out / "report.html", html)
    write_text(out / "report.md", markdown)
    numbers = summary(view)
    write_json(out / "summary.json", numbers)
    if plots_dir is not None:
        for name, rows in plot_files(view).items():
            write_json(Path(plots_dir) / name, rows)
    modes = sorted({row["mode"] for row in view["leaderboard"]}, key=MODES.index)
    return ReportFiles(html=out / "report.html", markdown=out / "report.md",
                       models=[run.model for run in inputs.runs], modes=modes,
                       summary=numbers)


def summary(view: dict) -> dict:
    """The report's numbers, keyed (not listed) so `dvc metrics diff` reads every leaf:
    `models.<model>.<mode>.*`, `pairwise.<mode>.<A> vs <B>.*`, `power.<mode>.*`. Also what
    `bench-kit report --format json` prints."""
    models: dict = {}
    for row in view["leaderboard"]:
        models.setdefault(row["model"], {})[row["mode"]] = {
            key: row.get(key) for key in SUMMARY_KEYS}
    pairwise: dict = {}
    for row in view["pairwise"]:
        pairwise.setdefault(row["mode"], {})[f"{row['model_a']} vs {row['model_b']}"] = {
            key: row[key] for key in PAIR_KEYS}
    return {"bench": view["bench"], "items": view["n_items"], "items_sha": view["items_sha"],
            "models": models, "pairwise": pairwise,
            "power": {row["mode"]: {k: v for k, v in row.items() if k != "mode"}
                      for row in view["power"]}}


def plot_files(view: dict) -> dict[str, list[dict]]:
    """Rows for `dvc plots`: accuracy per model and capability, one file per mode, and the
    vision gain (image − no_image) per model and capability. `label` is the bar's name."""
    files: dict[str, list[dict]] = {}
    for mode in MODES:
        files[f"accuracy_{mode}.json"] = [
            {"label": f"{run['model']} / {row['capability']}", "model": run["model"],
             "capability": row["capability"], "accuracy": cell["accuracy"]}
            for run in view["models"] if mode in run["modes"]
            for row in run["capabilities"]
            for cell in [row["cells"][run["cell_index"][mode]]]
            if cell and cell["accuracy"] is not None]
    gains = view["vision_gain"]
    files["vision_gain.json"] = [
        {"label": f"{model} / {row['capability']}", "model": model,
         "capability": row["capability"], "gain": gain}
        for row in gains["by_capability"]
        for model, gain in zip(gains["models"], row["gains"]) if gain is not None]
    return files
