import sys

from torch_katas.cli import main

__all__: list[str] = []

sys.exit(main())
