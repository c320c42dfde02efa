"""``threadlab.load`` and friends (the implementation is in ``threadlab.loading``)."""

from threadlab.loading import DATA_SUFFIXES, expand_sources, load, read_parquet

__all__ = ["DATA_SUFFIXES", "expand_sources", "load", "read_parquet"]
