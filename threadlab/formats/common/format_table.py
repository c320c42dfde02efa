"""The format table: every wire format threadlab reads or writes, declared once, in one table.

Each entry says what a caller may know about a format without importing it (its name and
aliases, the file suffixes a folder walk picks up for it, its place in detection order, the
options its writer takes, the public functions ``threadlab`` re-exports from it). The module
named by the entry holds the code, with the surface of ``registry.FormatModule``. A new format
is one folder under ``threadlab/formats/`` with that surface, one entry here, and its fixtures
under ``tests/fixtures/<name>/``: the reader, the loader, the CLI and the conformance suite find
it from this table, through ``registry.py``. (The layout follows fsspec's ``registry.py``: one
table, imported lazily.)"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class FormatSpec:
    """One format as the registry declares it.

    ``suffixes``: files of this format a folder walk picks up (the first is the suffix its
    writer's files get). ``plans_folders``: the module has ``plan_folder(folder, entries) ->
    FolderPlan | None``, asked about each walked folder holding a file of its suffixes or a
    subfolder (Claude Code keeps a session's subagent transcripts beside it). ``priority``:
    detection order, lowest first (detectors should not overlap; the conformance suite checks
    that each fixture is claimed by its own format only, so order is a tie-break and a cost
    choice: cheap, specific sniffers first). ``write_options``: keyword options ``from_thread``
    accepts, with their help (the CLI offers each as ``--<option>``). ``exports``: public functions re-exported by
    ``threadlab``. ``fast_path``: files the loader may read without the converter
    (ThreadProtocol only). ``path_hint``: a regular expression on a file's path (as POSIX)
    where the format's files usually live (a Claude Code session under
    ``projects/<project>/<uuid>.jsonl``): detection asks this format first there, and the
    rest in order when it does not claim the file, so the content still decides (detectors
    do not overlap) and a folder of sessions is not sniffed by every detector."""

    name: str
    module: str
    reads: str
    aliases: tuple[str, ...] = ()
    suffixes: tuple[str, ...] = (".json",)
    priority: int = 50
    plans_folders: bool = False
    writes: bool = True  # False: ``from_thread`` refuses with a ValueError saying why (a store of many files or tables)
    write_options: Mapping[str, str] = field(default_factory=dict)
    exports: tuple[str, ...] = ()
    fast_path: bool = False
    path_hint: str = ""

    @property
    def suffix(self) -> str:
        return self.suffixes[0]

    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


FORMATS: tuple[FormatSpec, ...] = tuple(
    sorted(
        (
            FormatSpec(
                name="threadprotocol",
                module="threadlab.formats.threadprotocol",
                reads="ThreadProtocol JSON: one thread, an array, or JSON Lines",
                aliases=("thread", "json", "threadprotocol-json"),
                suffixes=(".json", ".jsonl", ".ndjson"),
                priority=10,
                fast_path=True,
            ),
            FormatSpec(
                name="inspect-ai",
                module="threadlab.formats.inspect_ai",
                reads="Inspect AI eval logs (.eval zips and .json): one thread per sample and epoch",
                aliases=("inspect_ai", "inspect", "inspect-eval", "inspect-log"),
                suffixes=(".json", ".eval"),
                priority=15,
            ),
            FormatSpec(
                name="otel",
                module="threadlab.formats.otel",
                reads="OpenTelemetry spans of LLM agents (OTLP JSON, span JSON Lines): GenAI conventions old and new, OpenInference, Logfire/pydantic-ai",
                aliases=("opentelemetry", "otlp", "otlp-json", "openinference", "genai-spans", "logfire"),
                suffixes=(".json", ".jsonl", ".ndjson"),
                priority=14,
            ),
            FormatSpec(
                name="openai-agents-trace",
                module="threadlab.formats.openai_agents_trace",
                reads="OpenAI Agents SDK tracing spans (agent, generation, function, handoff ...) as a TracingProcessor writes them, JSON Lines",
                aliases=("agents-sdk-trace", "openai-agents-tracing", "agents-trace"),
                suffixes=(".jsonl", ".json"),
                priority=16,
            ),
            FormatSpec(
                name="vercel-ai-messages",
                module="threadlab.formats.vercel_ai_messages",
                reads="Vercel AI SDK persisted UIMessage[] (v5-v7) and v4 Message[]",
                aliases=("vercel_ai_messages", "ui-messages", "uimessages", "vercel-ai-uimessages"),
                priority=20,
            ),
            FormatSpec(
                name="pydantic-ai",
                module="threadlab.formats.pydantic_ai",
                reads="pydantic-ai ModelMessage histories (1.x and 2.x), as JSON or JSON Lines",
                aliases=("pydantic_ai", "pai", "pydantic-ai-json"),
                suffixes=(".json", ".jsonl"),
                priority=30,
                write_options={"agent": "whose history to write from a multi-agent thread (its perspective)"},
                exports=("from_pydantic_ai", "from_pydantic_ai_runs", "to_pydantic_ai", "perspective"),
            ),
            FormatSpec(
                name="vercel-ai-stream",
                module="threadlab.formats.vercel_ai",
                reads="Vercel AI SDK v5/v6/v7 UI message stream (SSE body, or its chunks as JSON)",
                aliases=("vercel-ai", "vercel_ai", "sse", "ai-sdk", "ui-message-stream", "vercel-ai-sse"),
                suffixes=(".sse", ".json", ".jsonl"),
                priority=40,
                exports=("from_ui_stream", "from_ui_messages", "to_ui_messages", "to_ui_stream"),
            ),
            FormatSpec(
                name="codex",
                module="threadlab.formats.codex",
                reads="Codex CLI session rollouts (rollout-*.jsonl, both generations) and the ~/.codex sessions folders",
                aliases=("codex-cli", "codex-rollout", "openai-codex"),
                suffixes=(".jsonl",),
                priority=45,
                plans_folders=True,
                path_hint=r"(^|/)rollout-[^/]*\.jsonl$",  # (a sessions tree is not sniffed by every detector)
            ),
            FormatSpec(
                name="gemini-cli",
                module="threadlab.formats.gemini_cli",
                reads="Gemini CLI sessions (session-*.jsonl with $set updates, and the earlier session-*.json) and the ~/.gemini home",
                aliases=("gemini", "gemini_cli", "gemini-cli-session"),
                suffixes=(".jsonl", ".json"),
                priority=47,
                plans_folders=True,
            ),
            FormatSpec(
                name="opencode",
                module="threadlab.formats.opencode",
                reads="opencode sessions (opencode.db, and the storage/ JSON folders of releases before 1.2) and the ~/.local/share/opencode data folder",
                aliases=("opencode-ai", "opencode-db", "opencode-storage"),
                suffixes=(".db", ".json"),
                priority=49,
                plans_folders=True,
                writes=False,
            ),
            FormatSpec(
                name="cline",
                module="threadlab.formats.cline",
                reads="Cline and Roo Code task folders (tasks/<task id>/api_conversation_history.json with ui_messages.json and task_metadata.json; a ui_messages.json alone), the extensions' storage folders, and the cline CLI's sessions (~/.cline/data/sessions/<id>/<id>.messages.json)",
                aliases=("roo-code", "roo-cline", "claude-dev", "cline-task"),
                suffixes=(".json",),
                priority=44,
                plans_folders=True,
                writes=False,
            ),
            FormatSpec(
                name="goose",
                module="threadlab.formats.goose",
                reads="Goose sessions (sessions.db, SQLite, read-only; the sessions/<id>.jsonl files of earlier releases)",
                aliases=("goose-db", "goose-session", "block-goose"),
                suffixes=(".db", ".jsonl"),
                priority=49,
                plans_folders=True,
                writes=False,
            ),
            FormatSpec(
                name="qwen-code",
                module="threadlab.formats.qwen_code",
                reads="Qwen Code sessions (~/.qwen/projects/<project>/chats/<session id>.jsonl) and the ~/.qwen home",
                aliases=("qwen", "qwen_code", "qwen-code-session"),
                suffixes=(".jsonl",),
                priority=48,
                plans_folders=True,
            ),
            FormatSpec(
                name="copilot-cli",
                module="threadlab.formats.copilot_cli",
                reads="GitHub Copilot CLI sessions (session-state/<id>/events.jsonl, and the earlier history-session-state/*.json) and the ~/.copilot home",
                aliases=("copilot", "copilot_cli", "github-copilot-cli"),
                suffixes=(".jsonl", ".json"),
                priority=49,
                plans_folders=True,
            ),
            FormatSpec(
                name="smolagents",
                module="threadlab.formats.smolagents",
                reads="smolagents memory dumps (get_full_steps() / RunResult / step JSON Lines, write_memory_to_messages()): code actions as python_interpreter calls",
                aliases=("smolagents-memory", "smol"),
                suffixes=(".json", ".jsonl"),
                priority=44,
                writes=False,
            ),
            FormatSpec(
                name="crush",
                module="threadlab.formats.crush",
                reads="Crush sessions (a project's .crush/crush.db, SQLite: sessions, messages and their parts; opened read-only)",
                aliases=("crush-db", "charm-crush"),
                suffixes=(".db",),
                priority=49,
                plans_folders=True,
                writes=False,
            ),
            FormatSpec(
                name="pi",
                module="threadlab.formats.pi",
                reads="Pi coding agent sessions (~/.pi/agent/sessions/--<cwd>--/<timestamp>_<id>.jsonl: the entry tree, every branch) and the ~/.pi/agent folder",
                aliases=("pi-coding-agent", "pi-agent"),
                suffixes=(".jsonl",),
                priority=49,
                plans_folders=True,
                writes=False,
            ),
            FormatSpec(
                name="autogen-agentchat",
                module="threadlab.formats.autogen_agentchat",
                reads="AutoGen AgentChat saved state (agent.save_state(), team.save_state()) and run messages (TaskResult dumps, message lists)",
                aliases=("autogen_agentchat", "autogen", "agentchat"),
                suffixes=(".json",),
                priority=44,
                writes=False,
            ),
            FormatSpec(
                name="crewai",
                module="threadlab.formats.crewai",
                reads="CrewAI's latest_kickoff_task_outputs.db (each task's agent messages, as crewai log-tasks-outputs lists them)",
                aliases=("crewai-task-outputs", "crew"),
                suffixes=(".db",),
                priority=48,
                writes=False,
            ),
            FormatSpec(
                name="google-adk",
                module="threadlab.formats.google_adk",
                reads="Google ADK sessions (Session JSON by field name or alias, /run event arrays, the .adk/session.db SQLite store): agents, transfers, tools",
                aliases=("google_adk", "adk", "adk-session"),
                suffixes=(".json", ".db"),
                priority=44,
                writes=False,
            ),
            FormatSpec(
                name="mini-swe-agent",
                module="threadlab.formats.mini_swe_agent",
                reads="mini-swe-agent trajectories (*.traj.json, Harbor's mini-swe-agent.trajectory.json): text-based commands as derived tool calls",
                aliases=("mini_swe_agent", "mini-swe", "mswea", "mini"),
                suffixes=(".json",),
                priority=43,
                writes=False,
            ),
            FormatSpec(
                name="swe-agent",
                module="threadlab.formats.swe_agent",
                reads="SWE-agent trajectories (<instance>.traj: history, trajectory steps, info): actions as tool calls",
                aliases=("swe_agent", "sweagent", "swe-agent-traj", "traj"),
                suffixes=(".traj", ".json"),
                priority=42,
                writes=False,
            ),
            FormatSpec(
                name="openhands",
                module="threadlab.formats.openhands",
                reads="OpenHands runs: V0 event arrays (--save-trajectory-path), evaluation output.jsonl rows, session events/<n>.json; V1 (openhands-sdk) conversations (base_state.json, events/event-*.json)",
                aliases=("open-hands", "openhands-ai", "openhands-sdk"),
                suffixes=(".json", ".jsonl"),
                priority=41,
                plans_folders=True,
                writes=False,
            ),
            FormatSpec(
                name="codex-exec",
                module="threadlab.formats.codex_exec",
                reads="codex exec --json output (JSON Lines of events: thread events, and the protocol events of mid-2025 releases)",
                aliases=("codex_exec", "codex-exec-json", "codex-json"),
                suffixes=(".jsonl",),
                priority=46,
            ),
            FormatSpec(
                name="claude-code",
                module="threadlab.formats.claude",
                reads="Claude Code session transcripts and project folders, stream-json, Claude Agent SDK messages",
                aliases=("claude", "claude-code-transcript", "claude-agent-sdk", "claude-sdk", "stream-json"),
                suffixes=(".jsonl",),  # (stream-json saved as a .json array is read too: .json is walked for others)
                priority=50,
                plans_folders=True,
                exports=("from_claude",),
                path_hint=r"(^|/)projects/[^/]+/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}\.jsonl$",
            ),
            FormatSpec(
                name="agency-swarm",
                module="threadlab.formats.agency_swarm",
                reads="agency-swarm saved lists: items tagged with agent/callerAgent (JSON array, JSON Lines, FastAPI body)",
                aliases=("agency_swarm", "agencyswarm"),
                suffixes=(".json", ".jsonl"),
                priority=60,
                exports=("from_agency_swarm", "pair_threads", "merge_pair_threads", "ThreadStore", "FileThreadStore"),
            ),
            FormatSpec(
                name="openai-agents-session",
                module="threadlab.formats.openai_agents_session",
                reads="OpenAI Agents SDK sessions and item lists: SQLiteSession databases (every session a thread), session items as JSON Lines or a JSON array (get_items(), to_input_list(); Python and JS SDK)",
                aliases=("openai_agents_session", "agents-session", "agents-sdk-session", "sqlite-session", "openai-agents", "agents-sdk", "agents-sdk-items"),
                suffixes=(".db", ".sqlite", ".jsonl", ".json"),
                priority=65,
                write_options={"container": "sqlite (a SQLiteSession database, the default), jsonl (session items, one a line) or array (a JSON array of items)"},
                exports=("from_agents_session",),
            ),
            FormatSpec(
                name="openai-chat",
                module="threadlab.formats.openai_chat",
                reads="OpenAI Chat Completions messages, requests, responses, pairs and logs of them (JSON, JSON Lines), chat.completion.chunk streams",
                aliases=("openai_chat", "chat-completions", "openai-chat-completions", "chat.completions"),
                suffixes=(".json", ".jsonl", ".sse"),
                priority=66,
                write_options={"agent": "whose view to write from a multi-agent thread (others' turns as user-side text)"},
                exports=("to_openai_chat",),
            ),
            FormatSpec(
                name="openai-responses",
                module="threadlab.formats.openai_responses",
                reads="OpenAI Responses item lists, requests, responses, pairs and logs of them (JSON, JSON Lines), response streams (SSE or saved events)",
                aliases=("openai_responses", "responses", "responses-api", "openai-responses-api"),
                suffixes=(".json", ".jsonl", ".sse"),
                priority=64,
            ),
            FormatSpec(
                name="anthropic-messages",
                module="threadlab.formats.anthropic_messages",
                reads="Anthropic Messages lists, requests, responses, pairs and logs of them (JSON, JSON Lines), message streams (SSE or saved events)",
                aliases=("anthropic_messages", "anthropic", "claude-messages", "anthropic-api"),
                suffixes=(".json", ".jsonl", ".sse"),
                priority=67,
                write_options={"agent": "whose view to write from a multi-agent thread (others' turns as user-side text)"},
                exports=("to_anthropic_messages",),
            ),
            FormatSpec(
                name="langchain",
                module="threadlab.formats.langchain",
                reads="LangChain / LangGraph messages (messages_to_dict, dumpd, model_dump), LangGraph states holding them, JSON Lines of messages",
                aliases=("langgraph", "langchain-messages", "lc-messages"),
                suffixes=(".json", ".jsonl"),
                priority=68,
            ),
            FormatSpec(
                name="aitp",
                module="threadlab.formats.aitp",
                reads="NEAR AI hub exports, OpenAI Assistants message pages and AITP spec-shaped threads",
                aliases=("nearai", "near-ai", "near", "aitp-thread", "openai-threads"),
                priority=70,
                write_options={"shape": "aitp (the spec's thread) or hub (a NEAR AI hub export)"},
                exports=("from_aitp", "to_aitp"),
            ),
            FormatSpec(
                name="atif",
                module="threadlab.formats.atif",
                reads="Harbor's Agent Trajectory Interchange Format (ATIF v1.0-v1.8 trajectory.json), subagent trajectories as delegations",
                aliases=("harbor", "atif-json", "trajectory"),
                priority=25,
                plans_folders=True,
                exports=("to_atif",),
            ),
            FormatSpec(
                name="langfuse",
                module="threadlab.formats.langfuse",
                reads="Langfuse trace exports: traces with their observations (public API, SDK dumps, UI download), observation pages, JSON Lines, the blob-storage export's Parquet",
                aliases=("langfuse-trace", "langfuse-observations", "langfuse-export"),
                suffixes=(".json", ".jsonl", ".parquet"),
                priority=12,
                writes=False,
            ),
            FormatSpec(
                name="phoenix",
                module="threadlab.formats.phoenix",
                reads="Arize Phoenix span dataframes (get_spans_dataframe, TraceDataset.save) saved as Parquet or JSON: OpenInference spans, read as otel reads them",
                aliases=("arize-phoenix", "phoenix-spans", "spans-dataframe"),
                suffixes=(".parquet", ".json", ".jsonl"),
                priority=13,
                plans_folders=True,
                writes=False,
            ),
            FormatSpec(
                name="hf-session-trace",
                module="threadlab.formats.sts",
                reads="Hugging Face session traces (the Hub's Session Trace Simple Format: a session header line, then message lines)",
                aliases=("sts", "hf_session_trace", "hf-sts", "session-trace", "huggingface-session-trace"),
                suffixes=(".jsonl",),
                priority=26,
            ),
        ),
        key=lambda spec: spec.priority,
    )
)

__all__ = ["FORMATS", "FormatSpec"]
