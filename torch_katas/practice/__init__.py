"""Practice modes built from the catalogue of mistakes."""
