"""Practice modes built from the catalogue of curated mistakes: find the bug (bughunt.py).
Knows the catalogue, the mistakes and the learner's store; runs no tests itself."""

__all__: list[str] = []
