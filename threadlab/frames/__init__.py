"""threadlab.frames: threads → pandas DataFrames (columns declared in ``columns.py``)."""

from threadlab.frames.columns import DTYPES, TABLES, Column
from threadlab.frames.frames import TABLE_NAMES, AmbiguousThreadError, Frames, ThreadKey, frames_from_threads

__all__ = ["DTYPES", "TABLES", "TABLE_NAMES", "AmbiguousThreadError", "Column", "Frames", "ThreadKey", "frames_from_threads"]
