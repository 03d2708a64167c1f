"""Text of any length shown in a bounded space: questions, options, golds and responses.

A report lists items whose text comes from users and models (a 1 MB question, a 5 MB
answer); each is shown clipped, and its full text is one click away (an HTML `<details>`)
only when it is under `FULL_TEXT_CHARS`, so the report's size is bounded whatever the input.
"""

from __future__ import annotations

from dataclasses import dataclass

# Question (with options) and gold text shown before the clip, in characters.
QUESTION_CHARS = 400
# Full texts up to this length are embedded behind a <details>; longer ones are not.
FULL_TEXT_CHARS = 4000


def clip(text: str | None, limit: int) -> str | None:
    """`text` cut to `limit` characters with a note of the full length (display only)."""
    if text is None or len(text) <= limit:
        return text
    return f"{text[:limit].rstrip()}… [{len(text)} characters in total]"


@dataclass(frozen=True)
class Clipped:
    """A text clipped for display. `str()` is the clipped text (Markdown); in HTML (Jinja
    autoescape calls `__html__`) the clipped text is escaped and followed by a `<details>`
    with the full text when it was clipped and is at most `FULL_TEXT_CHARS` long."""

    shown: str
    full: str | None = None

    def __str__(self) -> str:
        return self.shown

    def __html__(self) -> str:
        from markupsafe import escape

        if self.full is None:
            return str(escape(self.shown))
        return (f'{escape(self.shown)}<details class="full"><summary>full text '
                f'({len(self.full)} characters)</summary>{escape(self.full)}</details>')


def clipped(text: str | None, limit: int = QUESTION_CHARS,
            cap: int = FULL_TEXT_CHARS) -> Clipped | None:
    """`text` clipped to `limit` characters; the full text kept only when under `cap`."""
    if text is None:
        return None
    shown = clip(text, limit)
    assert shown is not None
    return Clipped(shown, text if shown != text and len(text) <= cap else None)
