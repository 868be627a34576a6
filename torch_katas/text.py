"""Text that fits a terminal's width: one place for the CLI and the plugin's summary."""

from __future__ import annotations

__all__ = [
    "fit",
    "names_that_fit",
    "notes_that_fit",
    "plural",
]


def fit(text: str, width: int) -> str:
    """`text`, cut to `width` characters with an ellipsis where it is longer."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def names_that_fit(names: list[str], width: int) -> str:
    """`a, b, c`, or as many as fit then `+N more`."""
    for shown in range(len(names), 0, -1):
        rest = len(names) - shown
        text = ", ".join(names[:shown]) + (f", +{rest} more" if rest else "")
        if len(text) <= width or shown == 1:
            return fit(text, width)
    return ""


def notes_that_fit(head: str, notes: list[str], width: int) -> str:
    """`head: note; note`, with as many whole notes (in order) as fit in `width`."""
    text = head
    for place, note in enumerate(notes):
        joined = f"{text}{': ' if place == 0 else '; '}{note}"
        if len(joined) > width:
            return text if place else fit(joined, width)
        text = joined
    return text


def plural(count: int, word: str, words: str | None = None) -> str:
    """`1 sample`, `2 samples` (`words`: the plural where it is not `word` + s)."""
    return f"{count} {word if count == 1 else words or word + 's'}"
