"""``python -m fastbits._bench``: the same as ``python -m fastbits bench``."""

import sys

from fastbits.__main__ import run

sys.exit(run(["bench", *sys.argv[1:]]))
