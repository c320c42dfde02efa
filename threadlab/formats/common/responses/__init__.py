"""OpenAI Responses-API input items, the wire family Codex rollouts, Agents SDK sessions and
agency-swarm lists share: each item ↔ actions (``items``) and the Agents SDK's reading of them
(``agents_sdk``)."""
