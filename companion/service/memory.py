"""glibc's allocator, set for a service that reads camera frames for days.

A frame is a few MB, and the loop makes and drops several a second on more than one thread.
glibc starts by giving such a block its own mapping (returned to the system when freed), but each
time one is freed it raises its mmap threshold to that size, so from then on frames come from
the heap arenas (up to eight per core, one per busy thread). Those fragment and are seldom given
back: resident memory climbs for hours while Python holds no more (measured in
benchmarks/README.md, "Soak run"). A fixed threshold keeps big blocks in their own mappings, and
two arenas bound the heaps the threads spread over.

The same can be set from outside with ``MALLOC_MMAP_THRESHOLD_`` and ``MALLOC_ARENA_MAX``; when
either is set, that choice is kept and nothing is changed here.

Between games the service also asks glibc to hand back the free pages inside its heaps
(``malloc_trim``): a game's frames, models' buffers and pictures leave holes in the arenas that
the next game does not fill exactly, and a fragmented heap otherwise holds them as resident
memory for as long as the service runs.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import platform

# mallopt parameters, from glibc's malloc.h
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
MMAP_THRESHOLD = 128 * 1024  # glibc's own starting value, held fixed
ARENA_MAX = 2
ENVIRONMENT = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_ARENA_MAX")


def tune_allocator() -> str:
    """Set glibc's allocator for long runs; says what was done, for the log."""
    if platform.libc_ver()[0] != "glibc":
        return "not glibc: the allocator is left as it is"
    if any(name in os.environ for name in ENVIRONMENT):
        return "the allocator is set by the environment (MALLOC_*)"
    mallopt = getattr(_libc(), "mallopt", None)
    if mallopt is None:
        return "glibc's mallopt is not reachable: the allocator is left as it is"
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # mallopt returns 1 on success, 0 on error
    if mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) != 1 or mallopt(M_ARENA_MAX, ARENA_MAX) != 1:
        return "glibc refused the allocator's settings: left as it is"
    return f"allocator: blocks from {MMAP_THRESHOLD // 1024} KiB mapped apart, {ARENA_MAX} arenas"


def _libc() -> ctypes.CDLL | None:
    if platform.libc_ver()[0] != "glibc":
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


def give_back_free_memory() -> bool:
    """Collect Python's cycles, then hand the heaps' free pages back to the system (glibc's
    ``malloc_trim(0)``, which also releases whole free pages in the middle of each arena).
    Called between games: it takes a few milliseconds. False where glibc is not there."""
    gc.collect()
    libc = _libc()
    trim = getattr(libc, "malloc_trim", None)
    if trim is None:
        return False
    trim.argtypes = (ctypes.c_size_t,)
    trim.restype = ctypes.c_int
    trim(0)
    return True
