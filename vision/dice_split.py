"""Group the pips of a body holding several dice into die faces: each group one canonical face.

Touching dice (or a die and a glare halo on the table beside it) merge into one light body, and
the body's shape alone does not say where one die ends. The pips do: every face of 2 to 6 holds
two opposite corner pips (a diagonal of the 3 x 3 pip grid), so each pair of pips whose distance
is a die's diagonal spread proposes a face: centre at the pair's midpoint, axes at 45 degrees to
the pair, grid spacing a third of the distance divided by the square root of 2. The proposal holds
every pip within ``member`` grid spacings of the centre (along the proposed axes) and must leave
clear a band beyond it (up to ``clear`` spacings): a die's own pips sit at most one spacing off
its centre, and a touching die's pips start about 2.3 spacings away, so a pip in the band makes
the proposal ambiguous and it is dropped. The members must sit on a canonical layout
(:func:`vision.dice_pips.fit_face`). A pip with no other pip within ``clear`` spacings may be a
face of 1.

The faces are then chosen so that every pip belongs to exactly one face and no two faces are
closer than a die's edge (their squares would overlap): an exact cover, enumerated in full (the
search is small: one or two proposals per die). Every cover is returned; the caller checks each
against the body (the faces' squares must cover it) and reads a body only when exactly one
cover passes, so an ambiguous grouping is declined, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.dice_pips import FaceFit, fit_face
from vision.dice_types import mid

_DIAGONAL = 2.0 * np.sqrt(2.0)
"""Distance between opposite corner pips, in grid spacings."""


@dataclass(frozen=True)
class FaceGroup:
    """Pips grouped into one die face: their indices, the fitted face, and the grid spacing (px)."""

    members: tuple[int, ...]
    fit: FaceFit

    @property
    def face(self) -> int:
        """The face value (number of pips)."""
        return self.fit.face


def _proposals(centres: np.ndarray, spacing: tuple[float, float], tolerance: float, member: float,
               clear: float, blockers: np.ndarray) -> list[FaceGroup]:
    """Faces of 2 to 6 proposed by pairs of pips a die's diagonal apart (see the module docstring)."""
    n = len(centres)
    i, j = np.triu_indices(n, 1)
    d = centres[j] - centres[i]
    dist = np.hypot(d[:, 0], d[:, 1])
    ok = (dist >= _DIAGONAL * spacing[0]) & (dist <= _DIAGONAL * spacing[1])
    i, j, d, dist = i[ok], j[ok], d[ok], dist[ok]
    if len(i) == 0:
        return []
    mid = 0.5 * (centres[i] + centres[j])
    angle = np.arctan2(d[:, 1], d[:, 0]) - np.pi / 4
    step = dist / _DIAGONAL
    # every pip in every proposal's grid frame: (pairs, pips, 2)
    rel = centres[None, :, :] - mid[:, None, :]
    c, s = np.cos(angle)[:, None], np.sin(angle)[:, None]
    u = (c * rel[..., 0] + s * rel[..., 1]) / step[:, None]
    v = (-s * rel[..., 0] + c * rel[..., 1]) / step[:, None]
    cheb = np.maximum(np.abs(u), np.abs(v))
    inside = cheb <= member
    band = (cheb > member) & (cheb <= clear)
    usable = ~band.any(axis=1)
    if len(blockers):  # a pip-like spot that is no candidate (cut off the body, fainter) must not lie on the face
        rel = blockers[None, :, :] - mid[:, None, :]
        bu = (c * rel[..., 0] + s * rel[..., 1]) / step[:, None]
        bv = (-s * rel[..., 0] + c * rel[..., 1]) / step[:, None]
        usable &= ~(np.maximum(np.abs(bu), np.abs(bv)) <= clear).any(axis=1)
    seen: dict[tuple[int, ...], FaceGroup | None] = {}
    for k in np.flatnonzero(usable):
        members = tuple(int(m) for m in np.flatnonzero(inside[k]))
        if members in seen or len(members) > 6:
            continue
        fit = fit_face(centres[list(members)], float(np.degrees(angle[k])) % 90.0, tolerance)
        good = fit is not None and fit.face >= 2 and spacing[0] <= fit.spacing <= spacing[1] * 1.05
        seen[members] = FaceGroup(members, fit) if good else None
    return [g for g in seen.values() if g is not None]


def group_faces(centres: np.ndarray, spacing: tuple[float, float], *, blockers: np.ndarray | None = None,
                tolerance: float = 0.3, member: float = 1.45, clear: float = 2.1, agree: float = 0.2,
                limit: int = 8) -> list[list[FaceGroup]]:
    """Every way (up to ``limit``) to group the pips at ``centres`` (N, 2) into canonical die faces.

    ``spacing`` is the range (px) of the pip grid's spacing (centre to corner pip along an axis).
    ``blockers`` (M, 2) are pip-like spots that are not candidates (cut off the body, or fainter):
    none may lie within ``clear`` spacings of a proposed face's centre. The faces of 2 to 6 of one
    cover must agree on their spacing within ``agree`` (dice of a group are of one size and at about
    the same distance from the camera).
    A face of 1 carries the pip's own centre and angle 0 (its axes are not known from the pips).
    Returns a list of covers; each cover is a list of :class:`FaceGroup`. ``[]`` when there is none.
    """
    centres = np.asarray(centres, float).reshape(-1, 2)
    n = len(centres)
    if n == 0:
        return []
    if not 0 < spacing[0] <= spacing[1]:
        raise ValueError(f"spacing must be (low, high) with 0 < low <= high, got {spacing}")
    blockers = np.zeros((0, 2)) if blockers is None else np.asarray(blockers, float).reshape(-1, 2)
    groups = _proposals(centres, spacing, tolerance, member, clear, blockers)
    reference = mid([g.fit.spacing for g in groups]) if groups else 0.5 * (spacing[0] + spacing[1])
    dist = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(dist, np.inf)
    for p in np.flatnonzero(dist.min(axis=1) > clear * reference):  # a lone pip: a face of 1
        x, y = centres[p]
        groups.append(FaceGroup((int(p),), FaceFit(1, (float(x), float(y)), 0.0, 0.0, 0.0, 1.0)))
    by_pip: list[list[int]] = [[] for _ in range(n)]
    for g, group in enumerate(groups):
        for m in group.members:
            by_pip[m].append(g)
    apart = 3.0 * reference  # two dice's centres are at least an edge (about 3.4 spacings) apart
    covers: list[list[FaceGroup]] = []

    def search(covered: frozenset[int], chosen: list[int]) -> None:
        if len(covers) >= limit:
            return
        free = next((p for p in range(n) if p not in covered), None)
        if free is None:
            steps = [groups[g].fit.spacing for g in chosen if groups[g].face >= 2]
            if not steps or max(steps) <= (1.0 + agree) * min(steps):
                covers.append([groups[g] for g in chosen])
            return
        for g in by_pip[free]:
            group = groups[g]
            if covered.intersection(group.members):
                continue
            centre = np.asarray(group.fit.centre)
            if any(np.hypot(*(centre - np.asarray(groups[o].fit.centre))) < apart for o in chosen):
                continue
            search(covered.union(group.members), chosen + [g])

    search(frozenset(), [])
    return covers
