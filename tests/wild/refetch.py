"""Re-fetch the wild corpus and re-check it: ``python -m tests.wild.refetch [--only SUBSTRING] [--offline]``.

Reads the README tables of ``tests/fixtures/real/<format>/`` (repository, path, commit), fetches
each file's raw bytes at its commit from GitHub, compares them with the committed file (a row
that says the file was trimmed or converted is reported as such, not as a mismatch), and runs
the raw counter (``tests/wild/count.py``) and threadlab on every file, printing where they
disagree. Without a network it says so and exits 0 after the offline checks. Never run by the
test suite (it needs the network)."""

from __future__ import annotations

import argparse
import sys
import urllib.error
import urllib.request

from tests.conformance.fixtures import REAL
from tests.wild.corpus import Row, corpus_rows

RAW = "https://raw.githubusercontent.com/{repository}/{commit}/{path}"


def fetch(row: Row, timeout: float = 20.0) -> bytes:
    url = RAW.format(repository=row.repository, commit=row.commit, path=urllib.request.quote(row.path))
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read()


def online() -> bool:
    try:
        urllib.request.urlopen("https://raw.githubusercontent.com/", timeout=5)
    except urllib.error.HTTPError:
        return True  # the host answered
    except (urllib.error.URLError, OSError):
        return False
    return True


def compare(rows: list[Row]) -> int:
    bad = 0
    for row in rows:
        local = (REAL / row.file).read_bytes()
        try:
            remote = fetch(row)
        except (urllib.error.URLError, OSError) as exc:
            print(f"FETCH-FAILED {row.file}: {exc}")
            bad += 1
            continue
        if remote == local:
            print(f"same         {row.file}")
        elif not row.verbatim:
            print(f"trimmed      {row.file} ({len(remote)} bytes there, {len(local)} here; the README says how)")
        else:
            print(f"DIFFERENT    {row.file} ({len(remote)} bytes there, {len(local)} here)")
            bad += 1
    return bad


def recheck() -> int:
    from tests.conformance.fixtures import fixtures
    from tests.wild.compare import disagreements
    from tests.wild.expected import EXPECTED

    bad = 0
    for f in fixtures(origins=("real",)):
        key = f.path.relative_to(REAL).as_posix()
        found = disagreements(f.path, f.format or "")
        listed = EXPECTED.get(key, ("", "", {}))[2]
        if found != listed:
            bad += 1
            print(f"CHANGED      {key}: counter vs threadlab {found}, listed {listed}")
        elif found:
            print(f"listed       {key}: {EXPECTED[key][0]}: {EXPECTED[key][1]}")
    return bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="only files whose path holds this")
    parser.add_argument("--offline", action="store_true", help="skip the fetch; re-check the committed files")
    args = parser.parse_args(argv)
    rows = [r for r in corpus_rows() if args.only in r.file]
    print(f"{len(rows)} files from {len({r.repository for r in rows})} repositories")
    bad = 0
    if args.offline:
        print("offline: not fetching")
    elif not online():
        print("no network: GitHub cannot be reached from here, so the files are not fetched; the committed files are re-checked")
    else:
        bad += compare(rows)
    bad += recheck()
    print("ok" if not bad else f"{bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["main"]
