"""How a prompt labels its options at the start of a line (shared by the extractors): "(A)",
"[A]", "【A】", "A.", "A:", "A)", "A、", the full-width forms GAOKAO-Bench writes ("A．",
"（A）", "A："), and a word before the label ("Option A:", "Choice B.", "选项A：")."""

from __future__ import annotations

# The label alone (no leading space); one `[ \t]*+` between tokens keeps it linear.
OPTION_LABEL = (r"(?:(?i:option|choice)[ \t]*+|选项[ \t]*+)?"
                r"(?:[(\[【（][ \t]*+[A-J][ \t]*+[)\]】）]|[A-J][ \t]*+[.．:：、)）])")
