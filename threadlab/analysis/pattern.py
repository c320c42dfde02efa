"""The sequence-pattern language of ``tl.find``: steps of a thread, in order, with gaps.

A pattern reads left to right as the actions it matches::

    failed(tool=search*) -3-> call(tool=same, args=same)

"a call to a search tool that failed, then, at most 3 actions later, a call of the same tool
with the same arguments". Grammar (spaces anywhere between tokens)::

    pattern := step (arrow step)*
    arrow   := "->"                  the next step comes later in the same thread
             | "-" N "->"            ... at most N actions later ("-1->": the very next action)
    step    := kind [ "(" cond ("," cond)* ")" ]
    cond    := field op value
    op      := "="                   equal (a bare value may hold the wildcards * and ?)
             | "!="                  not equal (an action without the field differs from any value)
             | "~"                   contains, case-insensitive ("~ /regex/" for a regular expression)
    value   := name                  letters, digits and _ . : * ? - (a glob when it holds * or ?)
             | "quoted"              'single' or "double" quotes, backslash escapes; exact, no wildcards
             | /regex/               only after ~ (Python syntax, case-insensitive)
             | same                  only after =: this field's value at the previous step

``kind`` (what action a step is): ``call`` (a tool call), ``failed`` (a tool call whose return
was an ``error`` or ``validation_error``), ``return``, ``error`` (a return with such a status),
``message`` (an assistant message), ``thinking``, ``prompt`` (a user message a person wrote),
``user`` (any user message), ``harness`` (an action the harness wrote), ``interrupt``,
``system`` (any ``system.*``), ``any``. ``field``: ``tool``, ``agent`` (name or id),
``status`` (``failed`` stands for error or validation_error), ``text``, ``args`` (a call's
arguments), ``result`` (a return's content), ``type`` (the action type), ``author``,
``harness`` (what the harness wrote), ``model``. ``same`` compares with the previous step's
action: ``tool``, ``agent``, ``text``, ``args``, ``result``, ``type``, ``author``, ``model``.

A malformed pattern is a ValueError that names the position and shows it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

KINDS = ("call", "failed", "return", "error", "message", "thinking", "prompt", "user", "harness", "interrupt", "system", "any")
FIELDS = ("tool", "agent", "status", "text", "args", "result", "type", "author", "harness", "model")
SAME_FIELDS = ("tool", "agent", "text", "args", "result", "type", "author", "model")
OPS = ("=", "!=", "~")

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<arrow>-(?:\d+-)?>)
  | (?P<op>!=|=|~)
  | (?P<punct>[(),])
  | (?P<quoted>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<regex>/(?:[^/\\]|\\.)*/)
  | (?P<name>[A-Za-z0-9_.:*?]+(?:-(?!\d*->)[A-Za-z0-9_.:*?]+)*)
""", re.VERBOSE)


@dataclass(frozen=True)
class Cond:
    field: str
    op: str  # "=", "!=", "~"
    value: str
    kind: str  # "exact", "glob", "regex", "contains", "same"


@dataclass(frozen=True)
class Step:
    kind: str
    conds: tuple[Cond, ...] = ()
    gap: int | None = None  # at most this many actions after the previous step (None: any); unused on the first step

    @property
    def same(self) -> tuple[str, ...]:
        return tuple(c.field for c in self.conds if c.kind == "same")


@dataclass(frozen=True)
class Pattern:
    text: str
    steps: tuple[Step, ...] = field(default_factory=tuple)


class _Tokens:
    def __init__(self, text: str) -> None:
        self.text = text
        self.items: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None:
                raise self.error(pos, f"unexpected {text[pos]!r}")
            if m.lastgroup != "space":
                kind = "arrow" if m.group("arrow") else m.lastgroup or ""
                self.items.append((kind, m.group(0), pos))
            pos = m.end()
        self.i = 0

    def error(self, pos: int, what: str) -> ValueError:
        return ValueError(f"bad pattern at position {pos}: {what}\n  {self.text}\n  {' ' * pos}^")

    def peek(self) -> tuple[str, str, int]:
        return self.items[self.i] if self.i < len(self.items) else ("end", "", len(self.text))

    def take(self, kind: str, what: str, value: str | None = None) -> tuple[str, str, int]:
        token = self.peek()
        if token[0] != kind or (value is not None and token[1] != value):
            found = "the end of the pattern" if token[0] == "end" else repr(token[1])
            raise self.error(token[2], f"expected {what}, found {found}")
        self.i += 1
        return token


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text[1:-1])


def _cond(tokens: _Tokens, first_step: bool) -> Cond:
    _, name, pos = tokens.take("name", "a field (" + ", ".join(FIELDS) + ")")
    if name not in FIELDS:
        raise tokens.error(pos, f"unknown field {name!r}; fields are {', '.join(FIELDS)}")
    _, op, op_pos = tokens.take("op", "an operator (=, != or ~)")
    kind, value, vpos = tokens.peek()
    if kind not in ("name", "quoted", "regex"):
        raise tokens.error(vpos, "expected a value (a name, a quoted text, /regex/ or same)")
    tokens.i += 1
    if kind == "regex":
        if op != "~":
            raise tokens.error(vpos, "a /regex/ goes with ~ (contains)")
        body = _unquote(value)
        try:
            re.compile(body)
        except re.error as error:
            raise tokens.error(vpos + 1 + (error.pos or 0), f"bad regular expression: {error.msg}") from None
        return Cond(name, op, body, "regex")
    text = _unquote(value) if kind == "quoted" else value
    if kind == "name" and value == "same":
        if op != "=":
            raise tokens.error(op_pos, "same goes with = (equal to the previous step's value)")
        if first_step:
            raise tokens.error(vpos, "same compares with the previous step, and the first step has none")
        if name not in SAME_FIELDS:
            raise tokens.error(pos, f"{name} cannot be compared with same; these can: {', '.join(SAME_FIELDS)}")
        return Cond(name, op, "", "same")
    if op == "~":
        return Cond(name, op, text, "contains")
    return Cond(name, op, text, "glob" if kind == "name" and any(c in text for c in "*?") else "exact")


def _step(tokens: _Tokens, gap: int | None, first: bool) -> Step:
    _, kind, pos = tokens.take("name", "a step (" + ", ".join(KINDS) + ")")
    if kind not in KINDS:
        raise tokens.error(pos, f"unknown step {kind!r}; steps are {', '.join(KINDS)}")
    conds: list[Cond] = []
    if tokens.peek()[:2] == ("punct", "("):
        tokens.i += 1
        while True:
            conds.append(_cond(tokens, first))
            token = tokens.peek()
            if token[:2] == ("punct", ","):
                tokens.i += 1
                continue
            tokens.take("punct", "',' or ')'", ")")
            break
    return Step(kind, tuple(conds), gap)


def parse(text: str) -> Pattern:
    """The pattern ``text`` parsed; a ValueError names the position of a mistake."""
    if not isinstance(text, str):
        raise TypeError(f"a pattern is a str, got {type(text).__name__}")
    tokens = _Tokens(text)
    if tokens.peek()[0] == "end":
        raise tokens.error(0, "the pattern is empty")
    steps = [_step(tokens, None, True)]
    while tokens.peek()[0] != "end":
        _, arrow, pos = tokens.take("arrow", "an arrow (-> or -N->) between steps")
        gap = int(arrow[1:-2]) if len(arrow) > 2 else None
        if gap is not None and gap < 1:
            raise tokens.error(pos, "a gap is at least 1 (-1-> is the very next action)")
        steps.append(_step(tokens, gap, False))
    return Pattern(text, tuple(steps))
