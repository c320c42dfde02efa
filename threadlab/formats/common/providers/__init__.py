"""The machinery the three provider formats (OpenAI Chat Completions, OpenAI Responses,
Anthropic Messages) share: their containers (``wire``), which of them a file belongs to
(``kinds``), the reading and writing loops (``reading``, ``writing``), request histories
(``history``), media parts (``parts``), SSE bodies (``sse``), a replay's perspective
(``replay``) and the official SDKs' types as a check (``sdk_types``)."""
