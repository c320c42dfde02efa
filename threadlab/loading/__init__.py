"""Loading at scale: files → Frames, fast (no pydantic object per action), parallel (a process
pool), lenient, cached (Arrow IPC files checked by XXH3-128), and out to a Dask cluster. ``threadlab.load`` is the door."""

from typing import TYPE_CHECKING

from threadlab._lazy import lazy_getattr
from threadlab.formats.common.walk import expand_sources
from threadlab.loading.api import load

if TYPE_CHECKING:
    from threadlab.loading.dask_dataset import read_parquet

# pyarrow.parquet (and its filesystems, ssl) only when a folder of Parquet files is read
__getattr__ = lazy_getattr(globals(), {"read_parquet": "threadlab.loading.dask_dataset"})

__all__ = ["expand_sources", "load", "read_parquet"]
