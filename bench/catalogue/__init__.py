"""The clause catalogue: every numbered rule of the regulations the bench certifies against.

One YAML file per regulation text lives in ``bench/catalogue/data/``; the
files are validated by :mod:`bench.catalogue.model` when loaded by
:func:`load_catalogue`.
"""

from bench.catalogue.loader import CatalogueError, load_catalogue
from bench.catalogue.model import Catalogue, Clause, EquipmentKind, Regulation, Testability

__all__ = [
    "Catalogue",
    "CatalogueError",
    "Clause",
    "EquipmentKind",
    "Regulation",
    "Testability",
    "load_catalogue",
]
