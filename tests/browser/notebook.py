"""The notebook the browser tests run: each widget on the bundled data, plus the XSS thread.

``CELLS`` is (name, source); tests find a cell's output by its name's index."""

from __future__ import annotations

NOTEBOOK = "widgets_demo.ipynb"

SETUP = """\
import glob
import threadlab as tl
threads = {t.title: t for p in sorted(glob.glob("data/*.json")) if "xss" not in p
           for t in tl.read_all(p, "threadprotocol", strict=False)}
frames = tl.frames_from_threads(threads.values())
team = next(t for t in threads.values() if t.title.startswith("Market brief: heat"))
branch = next(t for t in threads.values() if "(branch)" in t.title)
pending = next(t for t in threads.values() if t.title.startswith("Rotate"))
xss = tl.read("data/xss.thread.json", "threadprotocol")
print(len(threads), "threads")"""

BIG = """\
b = tl.ThreadBuilder("big", title="3,000 actions")
worker = b.agent("Worker")
for i in range(750):
    b.add("user_message", content=f"task {i}")
    b.add("assistant_message", agent_id=worker, content=f"on it {i}")
    b.add("tool_call", agent_id=worker, tool_name="work", tool_call_id=f"c{i}", args={"i": i})
    b.add("tool_return", tool_call_id=f"c{i}", tool_name="work", content="done")
tl.timeline(b.build())"""

CELLS: list[tuple[str, str]] = [
    ("setup", SETUP),
    ("timeline", "tl.timeline(team)"),
    ("timeline_pending", "tl.timeline(pending, x='sequence')"),
    ("tool_calls", "tl.tool_call_view(frames)"),
    ("token_usage", "tl.token_usage(frames, by='agent', runs=True)"),
    ("transcript", "tl.transcript(team)"),
    ("perspectives", "tl.compare_perspectives(team, 'Researcher', 'Planner')"),
    ("compare_threads", "tl.compare_threads(team, branch)"),
    ("explorer", "tl.explorer(frames)"),
    ("compare_runs", "tl.compare_runs(frames, [team.thread_id, branch.thread_id])"),
    ("delegation", "tl.delegation_graph(frames)"),
    ("timeline_webgl", BIG),
    ("xss_repr", "xss"),
    ("xss_widgets", "from IPython.display import display\ndisplay(tl.transcript(xss), tl.timeline(xss), tl.tool_call_view(xss))"),
    ("xss_explorer", "tl.explorer(xss)"),
]


def index(name: str) -> int:
    return [n for n, _ in CELLS].index(name)
