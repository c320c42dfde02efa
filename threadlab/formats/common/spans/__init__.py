"""What the span formats share (``otel``, ``openai-agents-trace``): interpreted spans and
normalised messages (``model.py``, ``messages.py``), the assembly of one conversation's spans
into a thread (``assemble.py``, ``grouping.py``), span times (``times.py``), and the writers' self-check (``verify.py``).
Not a format itself: no registry entry."""
