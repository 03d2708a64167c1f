"""One registry class for every plug-in: adapters, extractors, metrics and audit checks."""

from __future__ import annotations

import difflib
from typing import Callable, Generic, Iterator, TypeVar

from bench_kit.errors import UnknownNameError

T = TypeVar("T")


class Registry(Generic[T]):
    """Maps names to plug-ins registered with a decorator.

    >>> colours = Registry("colour")
    >>> @colours.register("red")
    ... def red() -> str:
    ...     return "#f00"
    >>> colours.get("red")()
    '#f00'
    >>> colours.get("rde")
    Traceback (most recent call last):
    ...
    bench_kit.errors.UnknownNameError: unknown colour 'rde'; did you mean 'red'? (known: red)
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator registering `obj` under `name`; a duplicate name is an error."""

        def decorator(obj: T) -> T:
            if name in self._items:
                raise ValueError(f"{self.kind} '{name}' is already registered")
            self._items[name] = obj
            return obj

        return decorator

    def get(self, name: str) -> T:
        """Return the plug-in called `name`, or raise with a suggestion and the known names."""
        try:
            return self._items[name]
        except KeyError as exc:
            close = difflib.get_close_matches(name, self._items, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            known = ", ".join(sorted(self._items)) or "none"
            raise UnknownNameError(f"unknown {self.kind} '{name}'{hint} (known: {known})") from exc

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
