"""Exceptions raised by the library; the CLI maps them to one-line messages and exit codes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Problem:
    """One problem in a table: where it is (line, id, field) and why it is wrong.

    `str(problem)` is the one format every table problem is printed in:
    `FILE:LINE: id=ID field=FIELD: reason` (`-` for an unknown id or field; `format` can
    leave an unknown id out, as import rejects print).
    """

    line: int | None
    id: str | None
    field: str | None
    reason: str
    path: str = ""
    # what kind of problem, for code that treats some apart (never printed):
    # "empty_file" (no rows at all), "missing_column" (a column absent from the whole table)
    kind: str = ""

    def __str__(self) -> str:
        return self.format()

    def format(self, unknown_id: str | None = "-") -> str:
        """The problem as one line; an unknown id prints as `unknown_id` (left out if None)."""
        where = ":".join(str(part) for part in (self.path, self.line) if part not in ("", None))
        ident = self.id or unknown_id
        who = f"id={_one_line(ident)} " if ident else ""
        return f"{where}: {who}field={_one_line(self.field or '-')}: {_one_line(self.reason)}"

    def to_dict(self) -> dict[str, Any]:
        """The problem as a JSON-ready dict (the path is the report's, not repeated)."""
        return {"line": self.line, "id": self.id, "field": self.field, "reason": self.reason}


def _one_line(text: str) -> str:
    """Escape control characters so one problem always prints as one line."""
    return text if text.isprintable() else text.encode("unicode_escape").decode("ascii")


def param(name: str, value: object | None = None) -> str:
    """A parameter as a library message names it: `name`, or `name=value`. Where the CLI
    prints the message, the command's option replaces it (`--name`, `--name value`), so
    the library speaks of parameters and the user reads flags.

    >>> param("join_on", "question_id"), param("expand")
    ('`join_on=question_id`', '`expand`')
    """
    return f"`{name}`" if value is None else f"`{name}={value}`"


class BenchKitError(Exception):
    """Base class for every error a user can act on. `exit_code` is used by the CLI."""

    exit_code = 1


class UsageError(BenchKitError):
    """The command was called wrongly (bad option value, unknown name)."""

    exit_code = 2


class ConfigError(BenchKitError):
    """params.yaml (or another config file) is missing a key or has a bad value."""


class InputError(BenchKitError):
    """A data file has a bad row or value. Names the file, line and field when known."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.path, self.line, self.field, self.reason = path, line, field, message
        where = ":".join(str(p) for p in (path, line) if p is not None)
        prefix = f"{where}: " if where else ""
        field_part = f"field '{field}': " if field else ""
        super().__init__(f"{prefix}{field_part}{message}")


class ValidationFailed(BenchKitError):
    """A table failed validation; `problems` holds every problem found (not just the first)."""

    def __init__(self, problems: list[Problem], path: str | None = None, *,
                 unknown_id: str | None = "-") -> None:
        self.problems = problems
        self.unknown_id = unknown_id
        super().__init__(f"{path or 'input'}: {len(problems)} problem(s) found")

    def lines(self) -> list[str]:
        """Every problem as the one line the CLI prints (see `Problem.format`)."""
        return [problem.format(self.unknown_id) for problem in self.problems]


class UnknownNameError(UsageError):
    """A registry lookup failed."""


class StorageError(BenchKitError):
    """The machine failed a file the command needs (disk full, a damaged cache file): the
    message names the file and the fix; work already committed is kept."""

    exit_code = 5


class BusyError(BenchKitError):
    """Another run is writing the same output file (one writer per output)."""


class ModelCallError(BenchKitError):
    """A model request failed after all retries (transport error, 5xx, bad payload)."""


class BudgetExceeded(BenchKitError):
    """The run's cost or request budget ran out; completed calls are kept."""


class BenchKitWarning(FutureWarning):
    """A notice a user can act on (e.g. a moved params key); the CLI prints it as one line."""
