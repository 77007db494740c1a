"""The timing every benchmark script shares (imported from the scripts' own folder)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_time(fn: Callable, *args, repeat: int = 2) -> float:
    """The shortest wall-clock time in seconds of ``repeat`` calls ``fn(*args)``: the
    least disturbed by other work on a noisy machine."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best
