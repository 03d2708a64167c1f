"""Chat records as question/answer rows.

Two shapes: LLaVA `conversations` (`[{from: human, value}, {from: gpt, value}, …]`) and
the `messages` of Hugging Face chat datasets (`[{role: user, content}, {role: assistant,
content}, …]`, as TRL and LLaMA-Factory write them; turns are read in `chatturns`). The
question is the first user turn's text with its images (placed in `chatimages`); the gold
is the source's own gold column when the row has one, else the reply. Nothing the source
holds is overwritten or dropped: the chat's extras (system text, later turns, the reply
when it is not the gold) go under names no source column has.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from bench_kit.errors import param
from bench_kit.exchange.cells import RowError, blank, maybe_json, without_bytes
from bench_kit.exchange.chatimages import (
    PlacedImages,
    described,
    image_columns,
    place_images,
)
from bench_kit.exchange.chatturns import (
    IMAGE_MARK,
    REPLY_ROLES,
    SYSTEM_ROLES,
    USER_ROLES,
    Turn,
    placeholders,
    question_text,
    read_turn,
)
from bench_kit.exchange.rows import (
    COLUMN_ALIASES,
    BadRow,
    ImportOptions,
    source_of,
    with_source,
)
from bench_kit.exchange.trlpairs import TRL_PAIR, holds_images, prompt_completion

CHAT_COLUMNS = ("conversations", "messages")
_SHAPE = {"conversations": "{from, value} turns", "messages": "{role, content} turns"}


def chat_column(row: dict[str, Any]) -> str | None:
    """The row's chat column with a value (`conversations` first), or None."""
    return next((c for c in CHAT_COLUMNS if not blank(row.get(c))), None)


def question_column(row: dict[str, Any], column_map: dict[str, str]) -> str | None:
    """The source column that gives this row its question (`--map question=…`, else a known
    name with a value): such a row keeps it and its chat only answers."""
    return column_map.get("question") or next(
        (a for a in COLUMN_ALIASES["question"] if not blank(row.get(a))), None)


# columns that give a row its own gold: the chat's reply then stays metadata
GOLD_COLUMNS = (*COLUMN_ALIASES["answer"], *COLUMN_ALIASES["answers"])


def gold_column(row: dict[str, Any], column_map: dict[str, str]) -> str | None:
    """The source column that holds this row's gold (`--map answer=…`/`answers=…`, else a
    known name with a value, else one there but blank: a row problem, as an empty answer
    is), or None when the row has none: the chat's reply is then the gold."""
    mapped = column_map.get("answers") or column_map.get("answer")
    present = [c for c in GOLD_COLUMNS if c in row]
    return mapped or next((c for c in present if not blank(row[c])),
                          present[0] if present else None)


def free_name(row: dict[str, Any], name: str, column: str) -> str:
    """`name`, or `<column>_<name>` when the source already has a column `name`: what the
    chat reader writes never overwrites a source column."""
    candidate, k = name, 1
    while candidate in row:
        candidate = f"{column}_{name}" if k == 1 else f"{column}_{name}_{k}"
        k += 1
    return candidate


@dataclass
class ChatTally:
    """What the chat reader did over a file, said in its decision lines."""

    read: Counter = field(default_factory=Counter)        # chat column -> records read
    rejected: Counter = field(default_factory=Counter)    # chat column -> records rejected
    gold_from: Counter = field(default_factory=Counter)   # source gold column -> rows
    renamed: dict[str, str] = field(default_factory=dict)  # chat key -> name used instead
    replies: Counter = field(default_factory=Counter)     # (chat, question column) -> rows
    rendered: Counter = field(default_factory=Counter)    # (chat, question column) -> rows
    chat_question: str | None = None                      # `--map question=<chat column>`
    unreadable: int = 0                                   # later turns that could not be read
    placed: int = 0              # rows whose images were placed on the chat's placeholders
    unplaced: int = 0            # rows with images but no placeholder in the chat
    later_images: int = 0        # images of later turns, not attached
    unused_images: int = 0       # rows whose metadata chat (another question) has images

    def put(self, row: dict[str, Any], name: str, value: Any, column: str) -> None:
        """Write the chat's `name` into `row` under a name no source column has."""
        key = free_name(row, name, column)
        if key != name:
            self.renamed[name] = key
        row[key] = value


@dataclass
class Chat:
    """A chat record read: the system text, the first user turn and its reply, the turns
    after it as written, and why any of those later turns could not be read."""

    system: str | None
    question: Turn
    reply: str
    later: list[Any]
    unreadable: list[str]
    later_images: list[Any]  # per placeholder after the question: its image, or None


def _numbered(turn: Any, column: str, number: int) -> Turn:
    try:
        return read_turn(turn, column)
    except ValueError as exc:
        raise ValueError(f"turn {number}: {exc}") from None


def read_chat(turns: Any, column: str) -> Chat:
    """The chat record `turns` (a list, or JSON text of one as a CSV cell holds it) read up
    to the first reply; ValueError naming the turn that is wrong. A later turn that cannot
    be read does not fail the record: its reason goes to `Chat.unreadable`."""
    if isinstance(turns, str) and turns.strip()[:1] == "[":
        try:
            turns = maybe_json(turns, column)
        except RowError as exc:
            raise ValueError(f"holds text that {exc.reason}") from None
    if not isinstance(turns, list) or len(turns) < 2:
        raise ValueError(f"expected a list of {_SHAPE[column]}, a question and its answer")
    read: list[Turn] = []
    for number, turn in enumerate(turns, start=1):
        read.append(_numbered(turn, column, number))
        if read[-1].role not in SYSTEM_ROLES:
            break
    start = len(read) - 1
    if read[start].role in SYSTEM_ROLES or read[start].role not in USER_ROLES:
        raise ValueError(f"turn {start + 1} is from '{read[start].role}': the first turn "
                         "must be from the user (human) and the second its reply (gpt, "
                         "assistant, model)")
    if start + 1 >= len(turns):
        raise ValueError(f"turn {start + 1} is the last: the first turn must be from the user "
                         f"(human) and the second its reply ({', '.join(REPLY_ROLES)})")
    reply = _numbered(turns[start + 1], column, start + 2)
    if reply.role not in REPLY_ROLES:
        raise ValueError(f"turn {start + 2} is from '{reply.role}': the first turn must be "
                         f"from the user (human) and the second its reply "
                         f"({', '.join(REPLY_ROLES)})")
    marked = next((k for k, t in enumerate(read[:start], start=1) if t.images), None)
    if marked:
        raise ValueError(f"turn {marked}: a system turn holds an image placeholder")
    unreadable, later_images = [], list(reply.images)
    for number, turn in enumerate(turns[start + 2:], start=start + 3):
        try:
            later_images.extend(read_turn(turn, column).images)
        except ValueError as exc:
            unreadable.append(f"turn {number}: {exc}")
            later_images.extend(placeholders(turn, column))
    return Chat("\n".join(t.plain() for t in read[:start]) if start else None,
                read[start], reply.plain(), turns[start + 2:], unreadable, later_images)


def _put_images(row: dict[str, Any], placed: PlacedImages, column: str,
                column_map: dict[str, str], tally: ChatTally) -> None:
    """The question's images into the row's (first) image column, those of later turns
    into `later_turn_images`, without their bytes."""
    for name in placed.columns:
        del row[name]
    if placed.question:
        name = placed.columns[0] if placed.columns else column_map.get("image", "image")
        row[name] = placed.question if placed.as_list else placed.question[0]
    tally.placed += 1
    if placed.later:
        tally.put(row, "later_turn_images", [described(i) for i in placed.later], column)
        tally.later_images += len(placed.later)


def _with_images(row: dict[str, Any], chat: Chat, column: str, column_map: dict[str, str],
                 tally: ChatTally) -> BadRow | None:
    """The row's images placed on the chat's placeholders (`place_images`), written into
    `row`; a `BadRow` holding the source row when they cannot be."""
    try:
        placed = place_images(row, chat.question.images, chat.later_images, column_map)
    except (ValueError, RowError) as exc:
        return BadRow("image", exc.reason if isinstance(exc, RowError) else str(exc),
                      source_of(row))
    if placed is None:
        tally.unplaced += bool(image_columns(row, column_map))
    else:
        _put_images(row, placed, column, column_map, tally)
    return None


def bare(text: str) -> str:
    """Text with its image placeholders (`<image>` tags, marks) left out and its spaces
    collapsed: a question column and a chat's turn are compared on this."""
    return " ".join(text.replace("<image>", " ").replace(IMAGE_MARK, " ").split())


def conversation_row(row: dict[str, Any], column: str, column_map: dict[str, str],
                     tally: ChatTally) -> dict[str, Any] | BadRow:
    """The chat record in `row[column]` -> question (the first user turn's text, its
    placeholders written by `question_text`) with its images (`place_images`), and gold:
    the source's own gold column when it has one (the reply is then kept as `reply`), else
    the reply. Leading system turns go to `system`, the turns after the reply to `turns`
    (bytes named, not kept), both source metadata under names no source column has. A
    malformed chat or an image count that does not match comes back as a `BadRow` holding
    the whole source row."""
    source = source_of(row)
    row = dict(row)
    try:
        chat = read_chat(row.pop(column), column)
    except ValueError as exc:
        return BadRow(column, str(exc), source)
    if chat.question.images and not bare(chat.question.text):
        return BadRow("question", f"the first user turn holds only "
                                  f"{len(chat.question.images)} image placeholder(s) and no "
                                  "text: an item needs a question", source)
    bad = _with_images(row, chat, column, column_map, tally)
    if bad is not None:
        return bad
    if chat.system is not None:
        tally.put(row, "system", chat.system, column)
    if not blank(row.get("question")):  # a question column the chat is preferred to
        tally.put(row, "original_question", row.pop("question"), column)
    row["question"] = question_text(chat.question.text)
    gold = gold_column(row, column_map)
    if gold is None:
        row["answer"] = chat.reply
    elif gold in row and blank(row[gold]):
        return BadRow(gold, "empty answer: the row's gold column is blank (the chat's reply "
                            "is not taken for its gold)", source_of(row))
    else:
        tally.gold_from[gold] += 1
        tally.put(row, "reply", chat.reply, column)
    if chat.later:
        tally.put(row, "turns", without_bytes(chat.later), column)
    if chat.unreadable:
        tally.put(row, "unreadable_turns", chat.unreadable, column)
        tally.unreadable += len(chat.unreadable)
    return row


def answered_row(row: dict[str, Any], column: str, question: str,
                 column_map: dict[str, str], tally: ChatTally) -> dict[str, Any] | BadRow:
    """A row with a question column and a chat but no gold column (ultrachat_200k's
    `prompt` and `messages`): the gold is the chat's reply to its first user turn, which
    must be that question (image placeholders aside). The chat's images are placed as in
    `conversation_row`, the question then written as there; the chat stays whole as
    source metadata."""
    if question not in row:
        return row  # a --map question=COLUMN the row lacks: map_columns names it
    try:
        chat = read_chat(row[column], column)
    except ValueError as exc:
        return BadRow(column, f"{exc} (its reply would be the gold: the row has no answer "
                              "column)", source_of(row))
    if bare(str(row[question])) != bare(chat.question.text):
        if question != "question" and bare(chat.question.text) in bare(str(row[question])):
            tally.rendered[(column, question)] += 1  # the chat as one text (a template)
            return conversation_row(row, column, column_map, tally)
        return BadRow("answer", f"no answer column, and the first user turn of '{column}' is "
                                f"not the question in '{question}', so its reply does not "
                                f"answer it: give {param('column_map', 'answer=COLUMN')}, or "
                                f"{param('column_map', f'question={column}')} to take the "
                                "question from the chat", source_of(row))
    row = {**row, column: without_bytes(row[column])}  # kept whole, bytes named
    bad = _with_images(row, chat, column, column_map, tally)
    if bad is not None:
        return bad
    if chat.question.images:
        row[question] = question_text(chat.question.text)
    tally.replies[(column, question)] += 1
    return {**row, "answer": chat.reply}


def questioned_row(row: dict[str, Any], column: str, question: str,
                   column_map: dict[str, str], tally: ChatTally) -> dict[str, Any] | BadRow:
    """A row with its own question and gold columns and a chat, kept as metadata (bytes
    named). When the chat's first user turn is that question (placeholders aside) its
    images are placed as in `conversation_row`; otherwise they are not used (counted for
    a decision line): they would belong to another question."""
    if question not in row:
        return row  # a --map question=COLUMN the row lacks: map_columns names it
    kept = {**row, column: without_bytes(row[column])}
    try:
        chat = read_chat(row[column], column)
    except ValueError:
        return kept  # only metadata here: the row's own columns make the item
    if not (chat.question.images or chat.later_images):
        return kept
    if bare(str(row[question])) != bare(chat.question.text):
        tally.unused_images += 1
        return kept
    bad = _with_images(kept, chat, column, column_map, tally)
    if bad is not None:
        return bad
    if chat.question.images:
        kept[question] = question_text(chat.question.text)
    return kept


def _decisions(tally: ChatTally) -> list[str]:
    lines = []
    for column, count in tally.read.items():
        rejected = tally.rejected[column]
        counts = f"{count} chat records ({count - rejected} read, {rejected} rejected)" \
            if rejected else f"{count} chat records"
        if column == TRL_PAIR:
            lines.append(f"prompt/completion: {counts} (TRL): question = the prompt's last "
                         "user turn, answer = the completion, the prompt's earlier turns kept "
                         f"as meta.source.{tally.renamed.get('earlier_turns', 'earlier_turns')}")
        elif column == "conversations":
            lines.append(f"conversations: {counts}, question = first human turn, answer = "
                         "the reply")
        else:
            lines.append(f"messages: {counts}, question = text of the first user turn, "
                         "answer = the assistant's reply, later turns kept as "
                         "meta.source.turns")
    if tally.gold_from:
        used = ", ".join(f"'{c}' ({n} row{'s' if n > 1 else ''})"
                         for c, n in tally.gold_from.items())
        lines.append(f"gold: the source's own answer column {used}, not the chat's reply "
                     f"(kept as meta.source.{tally.renamed.get('reply', 'reply')})")
    if tally.chat_question:
        lines.append(f"question: the first user turn of '{tally.chat_question}' "
                     f"({param('column_map', f'question={tally.chat_question}')})")
    for (column, question), count in tally.rendered.items():
        lines.append(f"question: the first user turn of '{column}', not '{question}' ({count} "
                     f"row{'s' if count > 1 else ''} whose '{question}' holds that turn and "
                     f"more, such as the chat rendered as one text); '{question}' kept as "
                     f"meta.source.{question}")
    for (column, question), count in tally.replies.items():
        lines.append(f"answer: the reply in '{column}' to its first user turn ({count} "
                     f"row{'s' if count > 1 else ''} with a question in '{question}' and no "
                     f"answer column); '{column}' kept whole as meta.source.{column}")
    if tally.placed:
        lines.append(f"images: {tally.placed} chat row{'s' if tally.placed > 1 else ''} with "
                     "image placeholders (<image> tags, image parts): each takes the image its "
                     "part carries, else the row's next image; the first user turn's are the "
                     "item's (several written <image 1>, <image 2>, … in the question)")
    if tally.later_images:
        lines.append(f"{tally.later_images} image{'s' if tally.later_images > 1 else ''} of "
                     "later turns not attached (they belong to later questions): kept as "
                     f"meta.source.{tally.renamed.get('later_turn_images', 'later_turn_images')}"
                     " (bytes as <N bytes, sha256 …>)")
    if tally.unused_images:
        lines.append(f"images: {tally.unused_images} row{'s' if tally.unused_images > 1 else ''}"
                     " with question and gold columns whose chat, kept as metadata, has image "
                     "placeholders but whose first user turn is not that question: the chat's "
                     "images are not attached")
    if tally.unplaced:
        lines.append(f"images: {tally.unplaced} chat row{'s' if tally.unplaced > 1 else ''} "
                     "with images but no image placeholder in the chat: all the row's images "
                     "are the question's")
    if tally.unreadable:
        lines.append(f"warning: {tally.unreadable} later turn{'s' if tally.unreadable > 1 else ''}"
                     " could not be read; kept as written in meta.source."
                     f"{tally.renamed.get('turns', 'turns')}, each reason in meta.source."
                     f"{tally.renamed.get('unreadable_turns', 'unreadable_turns')} (the "
                     "item's question and gold come from the first turns)")
    for name, key in tally.renamed.items():
        if name not in ("reply", "unreadable_turns", "later_turn_images"):
            lines.append(f"the source's own '{name}' column is kept under its name; the chat's "
                         f"{name} is meta.source.{key}")
    return lines


def _pair_row(row: dict[str, Any], earlier: list[Any], column_map: dict[str, str],
              tally: ChatTally) -> dict[str, Any] | BadRow:
    """A TRL prompt-completion row read (`prompt_completion`): the prompt's earlier turns
    go to `earlier_turns`; placeholders in them would take the row's first images, which
    cannot be told apart from the question's, so such a row is a problem."""
    tally.read[TRL_PAIR] += 1
    if holds_images(earlier):
        tally.rejected[TRL_PAIR] += 1
        return BadRow("prompt", "the prompt's turns before its last user turn (the question) "
                                "hold image placeholders: which of the row's images are the "
                                "question's cannot be told", source_of(row))
    chat = conversation_row(row, "messages", column_map, tally)
    tally.rejected[TRL_PAIR] += isinstance(chat, BadRow)
    if earlier and not isinstance(chat, BadRow):
        tally.put(chat, "earlier_turns", without_bytes(earlier), "messages")
    return chat


def chat_rows(rows: Iterable[tuple[int, Any]], opts: ImportOptions
              ) -> Iterator[tuple[int, Any]]:
    """(line, row) with every chat record made a question/answer row (or a `BadRow`); what
    was read goes to `opts.decisions` once all rows are read."""
    tally = ChatTally()
    if opts.column_map.get("question") in CHAT_COLUMNS:  # the question is the chat's
        tally.chat_question = opts.column_map.pop("question")
    mapped = {column: name for name, column in opts.column_map.items() if column in CHAT_COLUMNS}
    for line, row in rows:
        if not isinstance(row, BadRow):
            row = with_source(row)  # before any conversion: a reject holds the source row
        column = None if isinstance(row, BadRow) else chat_column(row)
        pair = None if column or isinstance(row, BadRow) else prompt_completion(row)
        if pair is not None:
            yield line, _pair_row(*pair, opts.column_map, tally)
            continue
        if column in mapped:
            yield line, BadRow(mapped[column], f"{param('column_map', f'{mapped[column]}={column}')}: '{column}' is "
                                               "read as a chat record (question = its first "
                                               "user turn, gold = the reply when the row has "
                                               "no answer column); map another column",
                               source_of(row))
            continue
        if column is None and tally.chat_question and not isinstance(row, BadRow):
            yield line, BadRow("question", f"{param('column_map', f'question={tally.chat_question}')}"
                                           f": no chat in '{tally.chat_question}'",
                               source_of(row))
            continue
        question = None if column is None or tally.chat_question \
            else question_column(row, opts.column_map)
        if column is not None and question is None:
            row = conversation_row(row, column, opts.column_map, tally)
            tally.read[column] += 1
            tally.rejected[column] += isinstance(row, BadRow)
        elif column is not None and question and gold_column(row, opts.column_map) is None:
            row = answered_row(row, column, question, opts.column_map, tally)
        elif column is not None and question:
            row = questioned_row(row, column, question, opts.column_map, tally)
        yield line, row
    opts.decisions.extend(_decisions(tally))
