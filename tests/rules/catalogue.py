#!/usr/bin/env python3
"""The message catalogue (docs/messages.md) and the signals (rules/signals/*.toml) agree.

Every signal id appears in a catalogue row; every row's last cell names either signals (each
must exist and have at least one sample that must match: `culprit rules check` proves that the
samples and the look-alike negatives hold), a C++ parser (`parser \`name\``: the file
src/ingest/formats/<name>.cpp exists), or "not covered". Also the catalogue's size floor (issue
35: 40+ tools, 200+ families).

Usage: catalogue.py SOURCE_DIR. Exit 0 ok, 1 a mismatch, 77 skipped (Python without tomllib).
"""
import os
import re
import sys

try:
    import tomllib
except ImportError:  # Python < 3.11
    print("rules.catalogue: skipped: Python 3.11+ (tomllib) is needed")
    sys.exit(77)

MIN_TOOLS = 40
MIN_FAMILIES = 200


def split_row(line):
    """The cells of a markdown table row; `\\|` is a pipe inside a cell."""
    cells, cur, i = [], "", 0
    body = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body) and body[i + 1] == "|":
            cur += "|"
            i += 2
            continue
        if body[i] == "|":
            cells.append(cur.strip())
            cur = ""
        else:
            cur += body[i]
        i += 1
    cells.append(cur.strip())
    return cells


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    root = sys.argv[1]
    signals = {}
    sig_dir = os.path.join(root, "rules", "signals")
    for name in sorted(os.listdir(sig_dir)):
        if not name.endswith(".toml"):
            continue
        with open(os.path.join(sig_dir, name), "rb") as f:
            data = tomllib.load(f)
        for s in data.get("signal", []):
            signals[s["id"]] = (name, s)

    errors = []
    named = set()
    tools = 0
    families = 0
    path = os.path.join(root, "docs", "messages.md")
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        if line.startswith("## "):
            tools += 1
            continue
        if not line.startswith("|") or line.startswith("|---") or line.startswith("| Family"):
            continue
        cells = split_row(line)
        if len(cells) != 5:
            errors.append(f"{path}:{n}: a row needs 5 cells, has {len(cells)}")
            continue
        families += 1
        last = cells[4]
        if last.startswith("not covered"):
            continue
        m = re.match(r"parser `([a-z0-9_]+)`$", last)
        if m:
            src = os.path.join(root, "src", "ingest", "formats", m.group(1) + ".cpp")
            if not os.path.exists(src):
                errors.append(f"{path}:{n}: parser {m.group(1)} has no {src}")
            continue
        ids = re.findall(r"`([a-z0-9][a-z0-9_.-]*)`", last)
        if not ids:
            errors.append(f"{path}:{n}: the last cell names no signal, parser or 'not covered': {last!r}")
        for sid in ids:
            named.add(sid)
            if sid not in signals:
                errors.append(f"{path}:{n}: no signal `{sid}` in rules/signals")
                continue
            samples = signals[sid][1].get("sample", [])
            if not any(s.get("match", True) for s in samples):
                errors.append(f"{path}:{n}: signal `{sid}` has no sample that must match")

    for sid, (name, _) in sorted(signals.items()):
        if sid not in named:
            errors.append(f"rules/signals/{name}: signal `{sid}` has no row in docs/messages.md")
    if tools < MIN_TOOLS:
        errors.append(f"{path}: {tools} tools (sections), fewer than {MIN_TOOLS}")
    if families < MIN_FAMILIES:
        errors.append(f"{path}: {families} families (rows), fewer than {MIN_FAMILIES}")

    no_negative = sorted(sid for sid, (_, s) in signals.items()
                         if not any(not x.get("match", True) for x in s.get("sample", [])))
    for e in errors:
        print(e)
    print(f"rules.catalogue: {tools} tools, {families} families, {len(signals)} signals; "
          f"{len(no_negative)} signals without a look-alike sample yet")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
