"""Practice modes built from the catalogue of mistakes."""

__all__: list[str] = []
