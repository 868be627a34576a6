"""torch-katas: PyTorch fundamentals as pytest katas."""

__all__ = [
    "__version__",
    "load_ipython_extension",
]

__version__ = "0.1.0"


def load_ipython_extension(ipython: object) -> None:
    """`%load_ext torch_katas` in IPython or Jupyter: the %kata magics (torch_katas/notebook/)."""
    from torch_katas.notebook import load_ipython_extension as load

    load(ipython)
