"""Run the whole benchmark suite from a checkout: ``python benchmarks/suite.py [options]``.

The same as ``python -m fastbits bench --full [options]`` (``fastbits._bench``):
fastbits compiled and pure, numpy, onnxruntime (one thread and its default) and
the onnx reference evaluator, timed interleaved on every case after checking
that their results equal numpy's. Takes a few minutes; for example::

    python benchmarks/suite.py --json docs/bench.json --plot docs/bench.png

Any option of ``python -m fastbits bench --help`` (``--threads N``,
``--filter SUBSTRING``, ``--json PATH``, ``--plot PATH``) is passed on.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from fastbits import _bench  # noqa: E402

if __name__ == "__main__":
    sys.exit(_bench.main(["--full", *sys.argv[1:]]))
