"""A sample member's JSON → the sample as the converter reads it, decoding only what it reads.

Most of a sample's bytes are what no thread holds: each model event repeats the whole
conversation as its ``input`` and the provider's raw request and response as its ``call``;
``state``, ``store`` and ``sample_init`` events copy the task's state. Parsing them into Python
objects, and walking them for ``attachment://`` references, was most of the time a large
``.eval`` took to load. So a sample is decoded by msgspec into Structs whose fields are the
sample's and events' fields the converter reads (``convert.py``, ``messages.py``; every other field is skipped
while parsing, never built), each event given back as a dict of those fields (absent ones
None, as ``dict.get`` gives them) and the sample as a dict of the fields it has.

References are then resolved in what was decoded; that is exact only when every reference in
the member resolves (a missing one is a problem that counts the references of the whole
sample), which a scan of the raw bytes checks first. A member that does not decode so (not an
object, an ``events`` that is not a list of objects, a reference the table lacks, bytes that
are not JSON) is None: the caller parses it whole with orjson and resolves it all, as before."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec

from threadlab.formats.inspect_ai.attachments import PREFIX, resolve_in

_UNSET: Any = msgspec.UNSET


class SampleEvent(msgspec.Struct):
    """An event's fields the converter reads (None where absent), read as a mapping is
    (``get``, ``[]``: what ``convert.py`` and ``events.py`` use)."""

    event: Any = None
    timestamp: Any = None
    model: Any = None
    output: Any = None
    error: Any = None
    id: Any = None
    function: Any = None
    result: Any = None
    agent: Any = None
    type: Any = None
    name: Any = None
    parent_id: Any = None
    action: Any = None
    events: Any = None  # older logs nest a subtask's events in its event

    # ``event.get(key)`` for the keys above (a field absent from the JSON is None, as a null one
    # is), at C speed: it runs a few hundred times per sample. Another key raises, and the
    # frames route then gives the log to the careful way.
    get = object.__getattribute__
    __getitem__ = object.__getattribute__


Mapping.register(SampleEvent)
MAPS = (dict, SampleEvent, Mapping)  # what the converter takes as an object: the common two first (an ABC check is slow)


class _Sample(msgspec.Struct):
    id: Any = _UNSET
    epoch: Any = _UNSET
    input: Any = _UNSET
    target: Any = _UNSET
    messages: Any = _UNSET
    scores: Any = _UNSET
    metadata: Any = _UNSET
    model_usage: Any = _UNSET
    role_usage: Any = _UNSET
    error: Any = _UNSET
    limit: Any = _UNSET
    total_time: Any = _UNSET
    working_time: Any = _UNSET
    uuid: Any = _UNSET
    attachments: Any = _UNSET
    events: list[SampleEvent] | None = _UNSET


_FIELD_ORDER = SampleEvent.__struct_fields__
_SAMPLE_FIELDS = _Sample.__struct_fields__
_DECODER = msgspec.json.Decoder(_Sample)
_ENCODER = msgspec.json.Encoder()
_QUOTED_PREFIX = b'"' + PREFIX.encode()
_REFERENCE = re.compile(PREFIX.encode() + rb'([^"\\]*)')


def decode_sample(data: bytes | bytearray) -> dict[str, Any] | None:
    """The sample (its read fields, references resolved), or None (see the module doc)."""
    try:
        struct = _DECODER.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    table = struct.attachments if isinstance(struct.attachments, dict) else {}
    refs = set(_REFERENCE.findall(data))
    for ref in refs:
        if not isinstance(table.get(ref.decode("utf-8", "replace")), str):
            return None
    sample = {k: v for k, v in zip(_SAMPLE_FIELDS, msgspec.structs.astuple(struct), strict=True) if k != "events" and v is not _UNSET}
    events = struct.events
    if (refs or b"attachment:" in data) and _holds_reference(sample, events) and not _resolved(sample, events if isinstance(events, list) else [], table):
        return None  # (a reference the scan did not see, written with escapes)
    if events is not _UNSET:
        sample["events"] = events
    return sample


def _holds_reference(sample: dict[str, Any], events: Any) -> bool:
    """Whether a string of what was decoded may be a reference: its JSON, written again (at C
    speed), holds one only where a string starts with it. Most references of a recent log are
    in what is skipped (the model calls' inputs, ``events_data``, state changes), and walking
    the decoded sample for none was a fifth of a sample's time."""
    try:
        return _QUOTED_PREFIX in _ENCODER.encode((sample, events))
    except (TypeError, ValueError, OverflowError):  # (what msgspec cannot write again: walk it)
        return True


def _resolved(sample: dict[str, Any], events: list[SampleEvent], table: dict[str, Any]) -> bool:
    """References resolved in the sample's fields and its events' (False: one is missing)."""
    roots: list[Any] = [sample]
    for event in events:
        for field, value in zip(_FIELD_ORDER, msgspec.structs.astuple(event), strict=True):
            if type(value) is str:
                if value.startswith(PREFIX):
                    text = table.get(value[len(PREFIX):])
                    if not isinstance(text, str):
                        return False
                    setattr(event, field, text)
            elif type(value) in (dict, list):
                roots.append(value)
    return not resolve_in(roots, table)
