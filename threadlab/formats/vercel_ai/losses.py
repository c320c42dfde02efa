"""The AI SDK's two shapes by name, and the reasons each gives for what a thread loses written
as it (``common/losses.py`` finds the losses by reading the written bytes back)."""

from __future__ import annotations

STREAM_FORMAT = "vercel-ai-stream"
MESSAGES_FORMAT = "vercel-ai-messages"
_COMMON_REASONS = {
    "the timestamp": "the AI SDK has no time per part; a message's createdAt is kept in its metadata",
    "{n} agents' agent id": "agents are named in message metadata or data-agent parts, not registered",
    "{n} agents' agent identifier": "agents are named in message metadata or data-agent parts, not registered",
    "{n} agents' created at": "agents are named in message metadata or data-agent parts, not registered",
    "{n} agents' metadata": "agents are named in message metadata or data-agent parts, not registered",
    "the usage": "the AI SDK keeps one usage total per message",
    "metadata 'vercel_ai'": "what one AI SDK shape records has no place in the other (stream part ids and chunk flags, a UIMessage's tool state)",
    "metadata '": "the AI SDK has no place for another format's metadata",
    "{n} assistant_message actions it had to add": "text and files are separate parts in the AI SDK: a message of both comes back as one of each",
    "the thread's title": "the AI SDK keeps no chat title",
    "thread metadata": "the AI SDK keeps no chat metadata",
}
STREAM_REASONS = {
    **_COMMON_REASONS,
    "{n} user_message": "a UI message stream carries the assistant's responses; user messages belong to the requests",
    "the thread's thread id": "a UI message stream has no chat id",
}
MESSAGES_REASONS = {
    **_COMMON_REASONS,
    "the order of": "a UIMessage holds a tool's outcome in its call's part, at the end of the call's step",
    "{n} tool_call actions it had to add": "a tool return whose call is not in the thread is written with a stand-in call",
    "the finish reason": "a UIMessage keeps no finish reason",
    "{n} system.": "stream events (errors, aborts, transient data parts, unknown chunks) are not part of the message the AI SDK stores",
}
