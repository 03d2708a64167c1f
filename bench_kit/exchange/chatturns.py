"""One turn of a chat record: who speaks, and its text with each image placeholder marked.

A turn is LLaVA's `{from, value}` or Hugging Face's `{role, content}`, where `content` is
text or a list of parts: `{type: text, text}`, and `{type: image}` placeholders, which
may carry their image (`image`, `url` or `path`: a file path, or a `{bytes, path}` struct
as a parquet holds it) or stand for the row's next image. An `<image>` tag in the text
(LLaVA, LLaMA-Factory) is a placeholder too. `read_turn` marks every placeholder with
`IMAGE_MARK`; `question_text` writes them in the kit's multi-image convention.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

SYSTEM_ROLES = ("system", "developer")  # OpenAI names its system prompt `developer`
USER_ROLES = ("human", "user")
# Gemini answers as `model`; ShareGPT dumps name the reply `chatgpt` or `bard`
REPLY_ROLES = ("gpt", "assistant", "model", "chatgpt", "bard")
IMAGE_MARK = "\x00"
_IMAGE_TAG = re.compile(r"<image>")
_IMAGE_KEYS = ("image", "url", "path", "image_url", "source")
_LEADING = re.compile(r"^[\s:;,]+")


@dataclass
class Turn:
    """A turn read: its speaker (lower case), its text with `IMAGE_MARK` at each image
    placeholder, and per mark the image its part carries (None: the row's next image)."""

    role: str
    text: str
    images: list[Any] = field(default_factory=list)

    def plain(self) -> str:
        """The text with each placeholder written back as `<image>`."""
        return self.text.replace(IMAGE_MARK, "<image>").strip()


def _marked(text: str) -> tuple[str, list[Any]]:
    marked = _IMAGE_TAG.sub(IMAGE_MARK, text.replace(IMAGE_MARK, ""))
    return marked, [None] * marked.count(IMAGE_MARK)


def _carried(value: Any) -> Any:
    """The image a part names (a path, a data URL, an `{url}` or `{bytes, path}` object),
    or None when it only holds the place of one."""
    if isinstance(value, dict):
        if value.get("type") == "base64" and isinstance(value.get("data"), str):
            # Anthropic's `source`: {type: base64, media_type, data}
            return f"data:{value.get('media_type') or 'image/png'};base64,{value['data']}"
        if "url" in value and not {"bytes", "path"} & set(value):
            value = value["url"]
        elif not any(v not in (None, "", b"") for v in value.values()):
            return None
    return None if value in (None, "") else value


def _part(part: Any, number: int) -> tuple[str, Any]:
    """(text or IMAGE_MARK, the image it carries) of content part `number`."""
    if isinstance(part, str):
        raise ValueError(f"part {number} of the content is a plain string, not a "
                         "{type: text, text} part")
    if not isinstance(part, dict):
        raise ValueError(f"part {number} of the content is a {type(part).__name__}, not a "
                         "{type, …} object")
    kind = part.get("type")
    if kind == "text":
        text = part.get("text")
        if not isinstance(text, str):
            what = "null" if text is None else f"a {type(text).__name__}"
            raise ValueError(f"part {number} is a text part whose text is {what}, not a string")
        return text, None
    if kind in ("image", "image_url"):
        return IMAGE_MARK, next((_carried(part[k]) for k in _IMAGE_KEYS
                                 if _carried(part.get(k)) is not None), None)
    if kind is None:
        raise ValueError(f"part {number} of the content has no type")
    raise ValueError(f"content part of type {kind!r} is neither text nor an image placeholder")


def _content(content: Any) -> tuple[str, list[Any]]:
    if isinstance(content, str):
        return _marked(content)
    if not isinstance(content, list):
        what = "null" if content is None else type(content).__name__
        raise ValueError(f"a turn's content must be text or a list of parts, got {what}")
    pieces, images = [], []
    for number, part in enumerate(content, start=1):
        text, image = _part(part, number)
        if text == IMAGE_MARK:
            images.append(image)
            pieces.append(text)
        else:
            marked, tags = _marked(text)
            pieces.append(marked)
            images.extend(tags)
    return "\n".join(pieces), images


def read_turn(turn: Any, column: str) -> Turn:
    """One turn of the chat in `column`; ValueError saying what is wrong with it."""
    if not isinstance(turn, dict):
        raise ValueError(f"a turn must be an object, got {type(turn).__name__}")
    names = ("from", "value") if column == "conversations" else ("role", "content")
    speaker, content = turn.get(names[0]), turn.get(names[1])
    if speaker is None:
        other = "{role, content}" if column == "conversations" else "{from, value}"
        hint = f" (its keys are those of {other} turns)" if set(turn) >= {"role", "content"} \
            or set(turn) >= {"from", "value"} else ""
        raise ValueError(f"a turn without {names[0]}{hint}")
    if not isinstance(speaker, str):
        raise ValueError(f"a turn's {names[0]} must be text, got {type(speaker).__name__}")
    if names[1] not in turn:
        raise ValueError(f"a turn without {names[1]}")
    text, images = _content(content)
    return Turn(speaker.strip().lower(), text, images)


def placeholders(turn: Any, column: str) -> list[Any]:
    """The image placeholders of a turn `read_turn` cannot read (a video part, a null text
    beside them), per placeholder the image its part carries or None: its images are still
    the row's, so they are counted. Parts that are not read are left out."""
    content = turn.get("value" if column == "conversations" else "content") \
        if isinstance(turn, dict) else None
    images: list[Any] = []
    for part in content if isinstance(content, list) else [content]:
        if isinstance(part, str):
            images.extend(_marked(part)[1])
        elif isinstance(part, dict) and part.get("type") in ("image", "image_url"):
            images.append(_part(part, 0)[1])
        elif isinstance(part, dict) and part.get("type") == "text" and \
                isinstance(part.get("text"), str):
            images.extend(_marked(part["text"])[1])
    return images


def question_text(text: str) -> str:
    """The first user turn's text as the item's question. Several images: each placeholder
    becomes `<image 1>`, `<image 2>`, … in order (MMMU's convention, which the kit keeps);
    one image: a placeholder at the start or end is dropped (LLaVA's `<image>\\n` prefix),
    one inside a sentence is written `<image 1>` so the sentence still reads."""
    count = text.count(IMAGE_MARK)
    stripped = text.strip()
    if count == 1 and stripped.startswith(IMAGE_MARK):
        return _LEADING.sub("", stripped[1:]).strip()
    if count == 1 and stripped.endswith(IMAGE_MARK):
        return stripped[:-1].strip()
    pieces = text.split(IMAGE_MARK)
    return (pieces[0] + "".join(f"<image {k}>{piece}" for k, piece in
                                enumerate(pieces[1:], start=1))).strip()
