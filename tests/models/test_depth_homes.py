"""`models.depth` re-exports the names that moved to `depth_types` and `depth_tables` unchanged."""

from __future__ import annotations

import pytest

from expressivity.models import depth, depth_tables, depth_types

MOVED = [
    (depth_types, "SEEDS"),
    (depth_types, "SUMMARY_LAYERS"),
    (depth_types, "DepthCertificate"),
    (depth_types, "DepthProof"),
    (depth_types, "MinimalDepth"),
    (depth_tables, "depth_dict"),
    (depth_tables, "depth_table"),
    (depth_tables, "seed_certificates"),
]


@pytest.mark.parametrize(("home", "name"), MOVED, ids=[name for _, name in MOVED])
def test_a_moved_name_is_the_same_object_from_its_old_module(home: object, name: str) -> None:
    assert getattr(depth, name) is getattr(home, name)


def test_the_old_module_lists_every_moved_public_name() -> None:
    constants = {"SEEDS", "SUMMARY_LAYERS"}  # importable from `depth`, never in its `__all__`
    assert {name for _, name in MOVED} - constants <= set(depth.__all__)
    assert all(hasattr(depth, name) for name in depth.__all__)
    for module in (depth_types, depth_tables):
        assert set(module.__all__) - constants <= set(depth.__all__), module.__name__
