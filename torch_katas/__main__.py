import sys

from torch_katas.cli import main

sys.exit(main())
