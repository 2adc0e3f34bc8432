"""Calls the configuration API's types refuse (never executed)."""

from __future__ import annotations

import fastbits

fastbits.set_num_threads("two")  # E: Argument 1 to "__call__" of "SetNumThreads" has incompatible type "str"
fastbits.set_num_threads()  # E: Too few arguments for "__call__" of "SetNumThreads"
fastbits.get_num_threads(1)  # E: Too many arguments for "__call__" of "GetNumThreads"
fastbits.config_context(bogus=2)  # E: Unexpected keyword argument "bogus" for "config_context"
fastbits.set_config(bogus=2)  # E: Unexpected keyword argument "bogus" for "set_config"
fastbits.set_config(num_threads="4")  # E: Argument "num_threads" to "set_config" has incompatible type "str"
fastbits.set_config(output_pool=1)  # E: Argument "output_pool" to "set_config" has incompatible type "int"
fastbits.get_config()["bogus"]  # E: TypedDict "Config" has no key "bogus"
n: str = fastbits.release_memory()  # E: Incompatible types in assignment (expression has type "int"
