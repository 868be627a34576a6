"""torch-katas: PyTorch fundamentals as pytest katas."""

__version__ = "0.1.0"
