"""Exceptions raised by the library; the CLI maps them to one-line messages and exit codes."""

from __future__ import annotations


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

    def __init__(self, problems: list, path: str | None = None) -> None:
        self.problems = problems
        super().__init__(f"{path or 'input'}: {len(problems)} problem(s) found")


class UnknownNameError(UsageError):
    """A registry lookup failed."""


class ModelCallError(BenchKitError):
    """A model request failed after all retries (transport error, 5xx, bad payload)."""


class BudgetExceeded(BenchKitError):
    """The run's cost or request budget ran out; completed calls are kept."""


class BenchKitWarning(FutureWarning):
    """A notice a user can act on (e.g. a moved params key); the CLI prints it as one line."""
