"""The configuration API's types (never executed)."""

from __future__ import annotations

from typing import Literal

import numpy as np
from typing_extensions import assert_type

import fastbits
from fastbits._signatures import Config, RuntimeInfo

assert_type(fastbits.get_num_threads(), int)
assert_type(fastbits.set_num_threads(2), None)
assert_type(fastbits.set_num_threads(np.int64(2)), None)
assert_type(fastbits.BACKEND, Literal["cython", "python"])

config = fastbits.get_config()
assert_type(config, Config)
assert_type(config["num_threads"], int)
assert_type(config["output_pool"], bool)
assert_type(config["spin_time"], float)

fastbits.set_config(num_threads=2, grain_cached=1 << 18, output_pool=False, spin_time=0)
fastbits.set_config(stream_threshold=None, task_threads=np.int32(1), spin_time=np.float64(0.001))
with fastbits.config_context(num_threads=1, pool_threshold=1 << 25) as settings:
    assert_type(settings, Config)

info = fastbits.runtime_info()
assert_type(info, RuntimeInfo)
assert_type(info["backend"], Literal["cython", "python"])
assert_type(info["cpus"], int)
assert_type(fastbits.release_memory(), int)
