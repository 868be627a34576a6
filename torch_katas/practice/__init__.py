"""Practice modes built from the catalogue of curated mistakes: find the bug (bughunt.py) and
write the tests (testwrite.py, which scores a test module in a process of its own)."""

__all__: list[str] = []
