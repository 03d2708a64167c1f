"""The report's plots: matplotlib (Agg, imported lazily) rendered to byte-stable SVG.

Each function takes plain view data and returns a `data:image/svg+xml;base64,…` URI, so
the HTML stays one self-contained file and plot text can never become markup. SVG ids
are salted with a constant and the date is left out, so equal inputs give equal bytes. Text
is drawn as paths, with the bundled CJK font as fallback, so every script renders.
"""

from __future__ import annotations

import base64
import functools
import io
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType


MODE_COLOURS = {"image": "#0969da", "no_image": "#cf222e", "blank_image": "#9a6700"}
PALETTE = ["#0969da", "#cf222e", "#1a7f37", "#9a6700", "#8250df", "#bf3989", "#1b7c83",
           "#57606a"]


@functools.lru_cache(maxsize=1)
def _cjk_family() -> str:
    """Register the bundled CJK font with matplotlib once; its family name."""
    from matplotlib import font_manager

    from bench_kit.authoring.fonts import cjk_font_path

    font_manager.fontManager.addfont(cjk_font_path())
    return font_manager.FontProperties(fname=cjk_font_path()).get_name()


@contextmanager
def _figure(width: float, height: float) -> Iterator:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    # Text as paths: the plots are <img> data URIs and cannot use the page's fonts, so
    # Chinese labels fall back, glyph by glyph, to the bundled CJK font drawn as outlines.
    style: dict[RcKeyType, Any] = {"svg.hashsalt": "bench-kit", "svg.fonttype": "path", "font.size": 9,
             "font.family": ["DejaVu Sans", _cjk_family()],
             "axes.spines.top": False, "axes.spines.right": False}
    with matplotlib.rc_context(style):
        fig = plt.figure(figsize=(width, height))
        try:
            yield fig
        finally:
            plt.close(fig)


def _to_uri(fig) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def heatmap(rows: list[str], cols: list[str], values: list[list[float | None]],
            title: str) -> str:
    """Accuracy heatmap, rows (capabilities) × columns (models), cells labelled in %."""
    import numpy as np

    data = np.array([[np.nan if v is None else v for v in row] for row in values], dtype=float)
    with _figure(1.6 + 1.1 * len(cols), 0.9 + 0.38 * len(rows)) as fig:
        ax = fig.add_subplot()
        image = ax.imshow(np.ma.masked_invalid(data), cmap="RdYlGn", vmin=0, vmax=1,
                          aspect="auto")
        ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right")
        ax.set_yticks(range(len(rows)), rows)
        for (r, c), v in np.ndenumerate(data):
            ax.text(c, r, "n/a" if np.isnan(v) else f"{100 * v:.0f}", ha="center",
                    va="center", fontsize=8)
        ax.set_title(title)
        fig.colorbar(image, ax=ax, fraction=0.04, label="accuracy")
        return _to_uri(fig)


def lines(x_labels: list[str], series: dict[str, list[float | None]], title: str,
          ylabel: str = "accuracy") -> str:
    """One line per series over categorical x (e.g. authored difficulty levels)."""
    with _figure(5.0, 3.0) as fig:
        ax = fig.add_subplot()
        for k, (name, ys) in enumerate(series.items()):
            points = [(i, y) for i, y in enumerate(ys) if y is not None]
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                    color=PALETTE[k % len(PALETTE)], label=name)
        ax.set_xticks(range(len(x_labels)), x_labels)
        ax.set_ylim(-0.02, 1.02)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend(fontsize=8, frameon=False)
        return _to_uri(fig)


def vision_dots(capabilities: list[str], panels: dict[str, dict[str, list[float | None]]],
                title: str) -> str:
    """Per model a panel: accuracy per capability in each mode (image / no_image / blank)."""
    with _figure(1.8 + 2.4 * len(panels), 0.9 + 0.32 * len(capabilities)) as fig:
        axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
        for ax, (model, by_mode) in zip(axes, panels.items()):
            for k, (mode, values) in enumerate(by_mode.items()):
                # dodge the modes vertically so equal accuracies stay visible
                shift = 0.22 * (k - (len(by_mode) - 1) / 2)
                points = [(v, i + shift) for i, v in enumerate(values) if v is not None]
                ax.scatter([p[0] for p in points], [p[1] for p in points], s=18,
                           color=MODE_COLOURS.get(mode, "#57606a"), label=mode)
            ax.set_xlim(-0.05, 1.05)
            ax.set_title(model)
            ax.grid(axis="y", color="#eaeef2")
        axes[0].set_yticks(range(len(capabilities)), capabilities)
        axes[0].invert_yaxis()
        axes[-1].legend(fontsize=8, frameon=False, loc="lower right")
        fig.suptitle(title)
        return _to_uri(fig)


def cost_accuracy(points: list[dict], title: str) -> str:
    """Scatter of cost per 1,000 calls (x) against accuracy (y), each point labelled."""
    with _figure(5.0, 3.2) as fig:
        ax = fig.add_subplot()
        for k, point in enumerate(points):
            ax.scatter([point["cost"]], [point["accuracy"]], color=PALETTE[k % len(PALETTE)])
            ax.annotate(point["label"], (point["cost"], point["accuracy"]), fontsize=8,
                        xytext=(4, 4), textcoords="offset points")
        ax.set_xlabel("cost per 1,000 calls (USD)")
        ax.set_ylabel("accuracy")
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(title)
        return _to_uri(fig)
