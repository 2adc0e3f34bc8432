"""Signatures of the compiled module ``fastbits._engine`` (its Python-visible part)."""

from typing import Any

def stream_probe(out: Any, a: Any, b: Any, threads: int) -> None: ...
