"""``python -m fastbits._bench``: the same as ``python -m fastbits bench``."""

import sys

from fastbits._bench import main

sys.exit(main())
