"""Knuth's estimate of the native search tree: how many nodes a full search visits and how many boards it
finds, from random probes of the same tables (``em_probe`` in ``ckernel.c``), in well under a second.

A probe walks from the root choosing one fitting candidate uniformly at each depth and multiplies the number
of choices along the way; that product is an unbiased estimate of the nodes at each depth, and at the last
depth of the boards (Knuth 1975). The estimate is heavy-tailed: its mean converges slowly and its standard
error understates the spread on trees with rare deep branches, so read it as an order of magnitude.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from edgematch.errors import BackendError
from edgematch.solvers.native import kernels
from edgematch.solvers.native.kernels import TABLE_DTYPES
from edgematch.solvers.native.tables import Tables


@dataclass(frozen=True)
class TreeEstimate:
    """Mean per probe of the tree's size (nodes) and its boards (type-level solutions), with standard errors."""

    probes: int
    nodes: float
    nodes_se: float
    boards: float
    boards_se: float
    depth: float  # mean depth a probe reached (positions placed)
    positions: int

    @property
    def log10_nodes(self) -> float:
        return math.log10(self.nodes) if self.nodes > 0 else float("-inf")


def _mean_se(total: float, squares: float, k: int) -> tuple[float, float]:
    mean = total / k
    var = max(0.0, squares / k - mean * mean)
    return mean, math.sqrt(var / k) if k > 1 else float("inf")


def knuth(tables: Tables, probes: int = 10_000, seed: int = 1) -> TreeEstimate:
    """Estimate the plain search's tree over ``tables`` (their fill order) from ``probes`` random probes."""
    lib = kernels.c_library()
    if lib is None:
        raise BackendError(f"the tree estimate needs the C kernel: {kernels.c_problem()}")
    P = tables.positions
    a = {key: np.ascontiguousarray(getattr(tables, key), dtype) for key, dtype in TABLE_DTYPES.items()}
    type_left = np.array(tables.type_count, np.int32)
    placed = np.array(tables.placed0, np.uint32)
    picks = np.zeros(max(P, 1), np.uint32)
    scratch = np.zeros(max(len(tables.cand_type), 1), np.uint32)
    level = np.zeros(max(P, 1), np.float64)
    stats = np.zeros(5, np.float64)
    if P > 0 and probes > 0:
        lib.em_probe(
            a["order"].ctypes.data, P, a["key_a"].ctypes.data, a["key_b"].ctypes.data, a["base"].ctypes.data,
            a["extra_n"].ctypes.data, a["extra_src"].ctypes.data, a["extra_side"].ctypes.data,
            a["extra_src"].shape[1], a["tab_start"].ctypes.data, a["tab_end"].ctypes.data,
            a["cand_type"].ctypes.data, a["cand_edge"].ctypes.data, tables.free_label + 1,
            type_left.ctypes.data, placed.ctypes.data, picks.ctypes.data, scratch.ctypes.data,
            probes, seed & (2**64 - 1), level.ctypes.data, stats.ctypes.data)
    k = max(probes, 1)
    nodes, nodes_se = _mean_se(stats[0], stats[1], k)
    boards, boards_se = _mean_se(stats[2], stats[3], k)
    return TreeEstimate(probes, nodes, nodes_se, boards, boards_se, stats[4] / k, P)
