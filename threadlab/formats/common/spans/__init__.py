"""What the span formats share (``otel``, ``openai-agents-trace``): interpreted spans and
normalised messages (``model.py``, ``messages.py``), the assembly of one conversation's spans
into a thread (``assemble.py`` on ``calls.py``'s call/return bookkeeping and ``tree.py``'s span
tree, ``grouping.py``), span times (``times.py``), and the writers' self-check (``verify.py``).
Not a format itself: no registry entry."""
