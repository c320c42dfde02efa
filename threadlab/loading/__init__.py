"""Loading at scale: files → Frames, fast (no pydantic object per action), parallel (a process
pool), lenient, cached (LZ4 Feather), and out to a Dask cluster. ``threadlab.load`` is the door."""

from threadlab.formats.walk import expand_sources
from threadlab.frames.storage import read_parquet
from threadlab.loading.api import load

__all__ = ["expand_sources", "load", "read_parquet"]
