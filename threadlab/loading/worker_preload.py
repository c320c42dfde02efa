"""Imported once by the forkserver that starts loader workers, so each forked worker starts
with the chunk reader (imported by the pool module) and genai-prices' price data already
loaded (about a second saved per worker)."""

from threadlab.loading.pool import warm_up

warm_up()
