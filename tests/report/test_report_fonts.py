"""The bundled CJK font in the report: a deterministic subset in the page, text as paths
(with the CJK font as fallback) in every SVG plot."""

from __future__ import annotations

import base64
import io
import re
import warnings

from bench_kit.report import plots
from bench_kit.report.fonts import cjk_characters, font_face_css, subset_font


def test_subset_holds_exactly_the_characters_used_and_is_byte_stable():
    from fontTools.ttLib import TTFont

    assert cjk_characters("出口 EXIT 出口，红色") == "出口红色，"
    data = subset_font("出口红")
    assert data == subset_font("出口红")  # fixed timestamps: the report stays byte-identical
    font = TTFont(io.BytesIO(data))
    cmap = font.getBestCmap()
    assert {ord(c) for c in "出口红"} <= set(cmap) and ord("色") not in cmap
    assert len(data) < 20_000  # a few glyphs, not the 5 MB collection


def test_font_face_only_when_the_page_has_chinese():
    assert font_face_css("only Latin text") == ""
    css = font_face_css("<td>红色的圆</td>")
    assert css.startswith('@font-face { font-family: "bench-kit CJK"; src: url(data:font/ttf')
    assert "unicode-range: U+3000-303F" in css


def _svg(uri: str) -> str:
    return base64.b64decode(uri.split(",", 1)[1]).decode("utf-8")


def test_plot_text_is_drawn_as_paths_with_the_cjk_fallback():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        uri = plots.heatmap(["感知.颜色", "perception.count"], ["模型甲", "beta"],
                            [[0.5, 0.25], [None, 1.0]], "按能力的准确率")
    missing = [str(w.message) for w in caught if "missing from" in str(w.message)]
    assert missing == []  # every glyph found (in DejaVu or the bundled CJK font)
    svg = _svg(uri)
    assert "<text" not in svg  # text is outlines, not font references
    # the Chinese glyphs are outlines of the bundled font, the Latin ones of DejaVu
    assert 'id="WenQuanYiMicroHei-' in svg and 'id="DejaVuSans-' in svg
    assert len(re.findall(r"<path ", svg)) > 20
    assert uri == plots.heatmap(["感知.颜色", "perception.count"], ["模型甲", "beta"],
                                [[0.5, 0.25], [None, 1.0]], "按能力的准确率")
