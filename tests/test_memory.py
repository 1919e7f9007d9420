"""The allocator setting for long runs (companion/service/memory.py): glibc's sliding mmap
threshold is what made the soak run's memory climb; fixed, a frame-sized block freed is given back."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's allocator only")

PROBE = """
import ctypes
from companion.service.memory import tune_allocator

print(tune_allocator())
libc = ctypes.CDLL("libc.so.6")
names = "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in names]

libc.mallinfo2.restype = MallInfo2
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = (ctypes.c_size_t,)
libc.free.argtypes = (ctypes.c_void_p,)
# a 4 MB frame freed: glibc's own rule raises its threshold to 4 MB, so the next 1 MB block
# comes from the heap; with the threshold held, it is mapped apart and given back when freed
libc.free(libc.malloc(4 << 20))
before = libc.mallinfo2().hblks
block = libc.malloc(1 << 20)
print(libc.mallinfo2().hblks - before)
libc.free(block)
"""


def probe(**environment: str) -> list[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("MALLOC_")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env={**env, **environment}, capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()


def test_a_frame_sized_block_stays_mapped_after_a_bigger_one_was_freed() -> None:
    said, mapped = probe()
    assert said.startswith("allocator: blocks from 128 KiB mapped apart, 2 arenas")
    assert mapped == "1"


def test_glibc_left_to_itself_moves_the_threshold_and_the_environment_is_respected() -> None:
    said, mapped = probe(MALLOC_ARENA_MAX="8")
    assert said == "the allocator is set by the environment (MALLOC_*)"
    assert mapped == "0"  # the failure mode this module exists for


HOLES = """
import ctypes
from companion.service.memory import give_back_free_memory

libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = (ctypes.c_size_t,)
libc.free.argtypes = (ctypes.c_void_p,)
libc.memset.argtypes = (ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t)


def resident_mib():
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


# 80 MB of small blocks from the heap; every 64th one (and the last) kept, as a game's leftovers
# would be: the heap's top cannot shrink, and the pages between are free but resident
blocks = [libc.malloc(4000) for _ in range(20000)]
for block in blocks:
    libc.memset(block, 1, 4000)
for index, block in enumerate(blocks[:-1]):
    if index % 64:
        libc.free(block)
held = resident_mib()
print(give_back_free_memory())
print(held - resident_mib())
"""


def test_between_games_the_heaps_free_pages_are_given_back() -> None:
    done = subprocess.run([sys.executable, "-c", HOLES], capture_output=True, text=True, check=True)
    trimmed, given_back = done.stdout.split()
    assert trimmed == "True"
    assert float(given_back) > 40  # of the ~78 MB freed between the blocks kept
