"""What would a msgspec typed decode of Claude Code lines buy, and what stands in its way? (issue
#27, item 6; ``docs/DEVELOPING.md``, Claude's sixth round.)

    python benchmarks/claude_typed_probe.py /work/bench/corpus/claude-100mb --repeat 3

Measures, on every non-blank line of every ``.jsonl`` under the folder (GC off, as in the
loader's workers; best of ``--repeat``, CPU seconds):

    parse        orjson dicts (the route today) against msgspec Structs of only the fields the
                 fused loop and the survey read (line, message, block, usage), each with the
                 time to free what it made
    reads        the fields the survey and the fused loop read of each line (about thirty), by
                 ``dict.get`` from the dicts and as attributes from the Structs
    entries      an ``Entry`` a line (what ``wire.read_lines`` makes beside the parse)
    guard        what it costs to decline, per file, every file whose bytes msgspec would take
                 but orjson would not (below): a UTF-8 check, and a search for a number that
                 overflows a double

and prints where the two parsers differ on a line: msgspec does not check what it skips (an
unknown key's value), so a line with bytes that are no UTF-8, or a number beyond a double
(``1e400``, 400 digits), in a field the Structs do not name is read by msgspec and refused by
orjson (the route today keeps such a line as ``system.unparsed_line`` with a ``json`` problem);
and an integer beyond 64 bits in a field read whole (``Any``) is an ``int`` to msgspec, a
``float`` to orjson. A typed route has to decline those lines, not read them otherwise."""

from __future__ import annotations

import argparse
import gc
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import orjson

from threadlab.formats.claude.wire import Entry

U: Any = msgspec.UNSET


def _struct(name: str, fields: str, **typed: Any) -> Any:
    """A Struct of ``fields`` (any JSON value, UNSET when missing) and ``typed`` (the nested ones)."""
    spec = [(field, Any, U) for field in fields.split()] + [(field, kind, U) for field, kind in typed.items()]
    return msgspec.defstruct(name, spec, gc=False)


# what the fused loop and the survey read of a line (``formats/claude/fused.py``, ``survey.py``)
Block = _struct("Block", "type text thinking id name input tool_use_id content is_error")
Usage = _struct("Usage", "input_tokens cache_read_input_tokens cache_creation_input_tokens output_tokens output_tokens_details")
Message = _struct("Message", "id model stop_reason", content=list[Block] | str | msgspec.UnsetType | None, usage=Usage | msgspec.UnsetType | None)
Line = _struct("Line", "type uuid parentUuid timestamp isSidechain agentId", message=Message | msgspec.UnsetType | None)


def _best(run: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """(seconds to make, seconds to free) of ``run``'s result, each the best of ``repeat``."""
    make = free = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        out = run()
        made = time.process_time()
        del out
        make, free = min(make, made - start), min(free, time.process_time() - made)
    return make, free


def _dict_reads(rows: list[Any]) -> int:
    n = 0
    for raw in rows:
        _ = raw.get("isSidechain"), raw.get("agentId"), raw.get("timestamp"), raw.get("parentUuid")
        message = raw.get("message")
        if type(message) is dict:
            content = message.get("content")
            usage = message.get("usage")
            _ = message.get("id"), message.get("stop_reason"), message.get("model")
            if type(content) is list and len(content) == 1 and type(content[0]) is dict:
                block = content[0]
                _ = block.get("type"), block.get("text"), block.get("id"), block.get("name"), block.get("input"), block.get("tool_use_id")
                if type(usage) is dict:
                    _ = usage.get("input_tokens"), usage.get("cache_read_input_tokens"), usage.get("cache_creation_input_tokens")
                    _ = usage.get("output_tokens"), usage.get("output_tokens_details")
                n += 1
    return n


def _struct_reads(rows: list[Any]) -> int:
    n = 0
    for raw in rows:
        _ = raw.isSidechain, raw.agentId, raw.timestamp, raw.parentUuid
        message = raw.message
        if type(message) is Message:
            content = message.content
            usage = message.usage
            _ = message.id, message.stop_reason, message.model
            if type(content) is list and len(content) == 1:
                block = content[0]
                _ = block.type, block.text, block.id, block.name, block.input, block.tool_use_id
                if type(usage) is Usage:
                    _ = usage.input_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens
                    _ = usage.output_tokens, usage.output_tokens_details
                n += 1
    return n


# bytes → '0' for a digit (or a point), 'e' for an exponent, ':' where a number may start (after
# ':', ',' or '['; whitespace is deleted, so ``": 1e400"`` is found too); the rest 'a'
_TABLE = bytearray(b"a" * 256)
for _c in b"0123456789.":
    _TABLE[_c] = ord("0")
for _c in b"eE":
    _TABLE[_c] = ord("e")
for _c in b":,[":
    _TABLE[_c] = ord(":")
_TABLE[ord("-")], _TABLE[ord("+")] = ord("-"), ord("+")
NUMBER_TABLE = bytes(_TABLE)
# a number of 100 digits or more, or with an exponent of three digits or more: every one that
# overflows a double (and some that do not, and text that looks like one: those only decline)
HUGE = re.compile(rb":-?0(?:0*e\+?000|0{99})")


def guard(data: bytes) -> bool:
    """True when every line of ``data`` that msgspec reads, orjson reads too (as far as the bytes
    msgspec skips go): UTF-8, and no number that overflows a double (nor text that looks like one)."""
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return False
    return HUGE.search(data.translate(NUMBER_TABLE, b" \t\r\n")) is None


EDGES = {
    "bytes that are no UTF-8, skipped": b'{"type":"user","other":"\xff"}',
    "a number beyond a double, skipped": b'{"type":"user","other":1e400}',
    "400 digits, skipped": b'{"type":"user","other":1' + b"0" * 400 + b"}",
    "an int beyond 64 bits, read whole": b'{"type":"user","uuid":"u","message":{"content":[{"type":"tool_use","input":{"n":123456789012345678901234567890}}]}}',
    "a lone surrogate, skipped": b'{"type":"user","other":"\\ud800"}',
    "nesting 1,000 deep, skipped": b'{"type":"user","other":' + b"[" * 1000 + b"]" * 1000 + b"}",
    "a key twice": b'{"type":"user","type":"assistant"}',
}


def _outcome(decode: Callable[[bytes], Any], line: bytes) -> str:
    try:
        value = decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError, orjson.JSONDecodeError, RecursionError):
        return "refused"
    message = value.get("message") if type(value) is dict else value.message
    if message:
        block = message["content"][0] if type(message) is dict else message.content[0]
        found = block["input"]["n"] if type(block) is dict else block.input["n"]
        return f"read ({type(found).__name__})"
    kind = value["type"] if type(value) is dict else value.type
    return f"read (type {kind})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    gc.disable()
    files = sorted(args.folder.rglob("*.jsonl"))
    datas = [path.read_bytes() for path in files]
    lines = [line for data in datas for line in data.splitlines() if line.strip()]
    print(f"{len(files)} files, {sum(map(len, datas)) / 1e6:.0f} MB, {len(lines):,} lines; CPU s, best of {args.repeat}")
    typed = msgspec.json.Decoder(Line).decode
    dicts, structs = list(map(orjson.loads, lines)), list(map(typed, lines))
    rows = [
        ("parse: orjson dicts (make, free)", _best(lambda: list(map(orjson.loads, lines)), args.repeat)),
        ("parse: msgspec Structs (make, free)", _best(lambda: list(map(typed, lines)), args.repeat)),
        ("reads: dict.get", (_best(lambda: _dict_reads(dicts), args.repeat)[0], 0.0)),
        ("reads: attributes", (_best(lambda: _struct_reads(structs), args.repeat)[0], 0.0)),
        ("entries: an Entry a line (make, free)", _best(lambda: [Entry(d, "f", n) for n, d in enumerate(dicts)], args.repeat)),
        ("guard: UTF-8 and huge numbers, per file", (_best(lambda: [guard(d) for d in datas], args.repeat)[0], 0.0)),
    ]
    for name, (make, free) in rows:
        print(f"  {name:42} {make:7.3f} {free:7.3f}  = {make + free:.3f}")
    print("where they differ (orjson / msgspec Structs):")
    for name, line in EDGES.items():
        print(f"  {name:38} {_outcome(orjson.loads, line):16} {_outcome(typed, line)}")


if __name__ == "__main__":
    main()
