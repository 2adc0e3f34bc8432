"""threadpoolctl sees fastbits' thread team: a controller registered with its registry.

threadpoolctl lists the native thread pools loaded in the process and can limit them
(``threadpool_info()``, ``threadpool_limits(1)``).  fastbits' team lives in the shared library
of :mod:`fastbits._runtime`, which exports ``fastbits_get_num_threads`` and
``fastbits_set_num_threads`` for it.  :func:`register` is called when the compiled kernels are
imported; without threadpoolctl (or with one older than its controller API) it does nothing.
"""

from __future__ import annotations

__all__ = ["register"]

_registered = False


def register() -> bool:
    """Register fastbits' controller with threadpoolctl if it is installed; True if it is."""
    global _registered
    if _registered:
        return True
    try:
        import threadpoolctl
    except ImportError:
        return False
    if not hasattr(threadpoolctl, "register") or not hasattr(threadpoolctl, "LibController"):
        return False

    from ._version import __version__

    class FastbitsController(threadpoolctl.LibController):
        """fastbits' thread team: the threads one large call may use."""

        user_api = "fastbits"
        internal_api = "fastbits"
        filename_prefixes = ("_runtime.",)
        check_symbols = ("fastbits_get_num_threads", "fastbits_set_num_threads")

        def get_num_threads(self) -> int:
            return int(self.dynlib.fastbits_get_num_threads())

        def set_num_threads(self, num_threads: int) -> None:
            self.dynlib.fastbits_set_num_threads(int(num_threads))

        def get_version(self) -> str:
            return __version__

    threadpoolctl.register(FastbitsController)
    _registered = True
    return True
