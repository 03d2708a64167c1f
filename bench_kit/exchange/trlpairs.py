"""TRL's conversational prompt-completion rows as one chat record.

`prompt` and `completion` are both lists of `{role, content}` turns. The prompt's last
user turn is the question and the completion its reply, as TRL trains on them; the
prompt's turns before that question (other than leading system turns) are context, kept
as source metadata.
"""

from __future__ import annotations

import re
from typing import Any

from bench_kit.exchange.chatturns import SYSTEM_ROLES, USER_ROLES

TRL_PAIR = "prompt/completion"
_IMAGE_PART = re.compile(r"<image>|['\"]type['\"]\s*:\s*['\"]image")


def _turns(value: Any) -> list[Any] | None:
    ok = isinstance(value, list) and value and \
        all(isinstance(t, dict) and "role" in t for t in value)
    return value if ok else None


def _role(turn: dict[str, Any]) -> str:
    return str(turn.get("role", "")).strip().lower()


def prompt_completion(row: dict[str, Any]) -> tuple[dict[str, Any], list[Any]] | None:
    """A TRL prompt-completion row as (a row whose `messages` are the leading system turns,
    the prompt's last user turn and the completion; the prompt's turns before that user
    turn), or None when the row is not one."""
    prompt, completion = _turns(row.get("prompt")), _turns(row.get("completion"))
    if prompt is None or completion is None:
        return None
    system = 0
    while system < len(prompt) and _role(prompt[system]) in SYSTEM_ROLES:
        system += 1
    last = max((k for k, t in enumerate(prompt) if _role(t) in USER_ROLES), default=system)
    last = max(last, system)
    rest = {k: v for k, v in row.items() if k not in ("prompt", "completion", "messages")}
    return ({**rest, "messages": [*prompt[:system], *prompt[last:], *completion]},
            prompt[system:last])


def holds_images(turns: list[Any]) -> bool:
    """Whether any of `turns` holds an image placeholder (an `<image>` tag, an image part)."""
    return bool(_IMAGE_PART.search(repr(turns)))
