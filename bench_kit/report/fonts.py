"""The bundled CJK font in the report: an `@font-face` of the characters the page uses.

A machine without a system CJK font draws Chinese text as empty boxes; the kit ships
WenQuanYi Micro Hei (bench_kit.authoring.fonts), so the page embeds the subset of it that
its own text needs. The subset keeps the font's own timestamps (no `recalcTimestamp`), so the
same text gives the same bytes and the report stays byte-identical.
"""

from __future__ import annotations

import base64
import io

from bench_kit.authoring.fonts import cjk_font_path
from bench_kit.text.cjk import CJK

FAMILY = "bench-kit CJK"
UNICODE_RANGE = "U+3000-303F, U+3400-4DBF, U+4E00-9FFF, U+F900-FAFF, U+FF00-FFEF"
# CJK punctuation and full-width forms drawn with the ideographs.
_PUNCTUATION = set("，。、；：？！「」『』（）《》〈〉【】・～")


def cjk_characters(text: str) -> str:
    """The distinct CJK ideographs and CJK punctuation of `text`, sorted."""
    found = set(CJK.findall(text)) | (set(text) & _PUNCTUATION)
    return "".join(sorted(found))


def subset_font(characters: str) -> bytes:
    """The bundled CJK font cut down to `characters` (TrueType bytes, deterministic)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(cjk_font_path(), fontNumber=0, recalcTimestamp=False)
    options = subset.Options()
    options.notdef_outline = True
    options.drop_tables += ["FFTM"]  # FontForge's timestamps: not needed to draw
    subsetter = subset.Subsetter(options=options)
    subsetter.populate(text=characters)
    subsetter.subset(font)
    out = io.BytesIO()
    font.save(out, reorderTables=True)
    return out.getvalue()


def font_face_css(text: str) -> str:
    """An `@font-face` rule embedding the CJK characters of `text` ("" when there are none)."""
    characters = cjk_characters(text)
    if not characters:
        return ""
    data = base64.b64encode(subset_font(characters)).decode("ascii")
    # first in the page's font stack but limited to CJK code points, so Latin text keeps
    # the system font and the browser waits for this font before drawing Chinese
    return (f'@font-face {{ font-family: "{FAMILY}"; '
            f'src: url(data:font/ttf;base64,{data}) format("truetype"); '
            f'unicode-range: {UNICODE_RANGE}; }}')
