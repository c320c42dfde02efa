"""Empty frames with the declared columns and dtypes (what a load of nothing returns, and the
``meta`` a Dask frame is declared with)."""

from __future__ import annotations

import pandas as pd

from threadlab.frames.arrow import SCHEMAS, table_to_frame


def empty_frame(table: str) -> pd.DataFrame:
    return table_to_frame(table, SCHEMAS[table].empty_table())
