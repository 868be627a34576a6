"""Reference answers, one module per kata, named as its stub."""
