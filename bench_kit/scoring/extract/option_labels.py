"""How a prompt labels its options at the start of a line (shared by the extractors): "(A)",
"[A]", "【A】", "A.", "A:", "A)", "A、", the full-width forms GAOKAO-Bench writes ("A．",
"（A）", "A："), and a word before the label ("Option A:", "Choice B.", "选项A：")."""

from __future__ import annotations

# The label alone (no leading space; the letter is the group "letter"): an opening bracket
# and its closing one around the letter, or the letter and a mark after it. One `[ \t]*+`
# between tokens keeps it linear.
OPTION_LABEL = (r"(?:(?i:option|choice)[ \t]*+|选项[ \t]*+)?(?P<open>[(\[【（])?[ \t]*+(?P<letter>[A-J])"
                r"[ \t]*+(?(open)[)\]】）]|[.．:：、)）])")
