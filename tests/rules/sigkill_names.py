#!/usr/bin/env python3
"""SIGKILL's names in the signals and in the diagnoses agree.

The shells print SIGKILL's name in the user's locale (rules/signals/launchers.toml, shell_killed:
`^(?P<signal_name>Killed|<word>|…)\\s*$`); the diagnoses that ask whether a `signal_exit` event
was a SIGKILL compare its `signal_name` with a list in each query (`IN ('SIGKILL', 'KILL',
'Killed', 'killed', …)`, or `IN ('Killed', …)`). Every such list must hold every word
shell_killed reads (with its optional tails: `Morto (Killed)`, `Zabit (SIGKILL)`), and
bash_job_control_killed and shell_job_killed must read the same words, so that no locale's notice
is read and then not recognised as a kill.

Usage: sigkill_names.py SOURCE_DIR. Exit 0 ok, 1 a mismatch, 77 skipped (Python without tomllib).
"""
import glob
import os
import re
import sys

try:
    import tomllib
except ImportError:  # Python < 3.11
    print("rules.sigkill_names: skipped: Python 3.11+ (tomllib) is needed")
    sys.exit(77)


def words_of(alternation):
    """The words of an alternation of literals, each `w(?: \\(t\\))?` giving `w` and `w (t)`."""
    out = set()
    for alt in re.split(r"\|(?![^(]*\))", alternation):
        m = re.fullmatch(r"(.*?)\(\?: (\\\(.*\\\))\)\?", alt)
        if m:
            out.add(m.group(1))
            out.add(m.group(1) + " " + m.group(2).replace("\\", ""))
        else:
            out.add(alt.replace("\\", ""))
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    root = sys.argv[1]
    signals = {}
    for path in glob.glob(os.path.join(root, "rules", "signals", "*.toml")):
        with open(path, "rb") as f:
            for s in tomllib.load(f).get("signal", []):
                signals[s["id"]] = s["pattern"]
    errors = []
    m = re.search(r"\(\?P<signal_name>Killed\|(.*)\)\\s\*\$$", signals["shell_killed"])
    if not m:
        print("rules.sigkill_names: shell_killed's pattern no longer has the form this check reads")
        return 1
    local = words_of(m.group(1))
    for sid in ("bash_job_control_killed", "shell_job_killed"):
        if m.group(1) not in signals[sid]:
            errors.append(f"signal `{sid}` does not read shell_killed's words")
    lists = 0
    for path in sorted(glob.glob(os.path.join(root, "rules", "diagnoses", "*.toml"))):
        with open(path, "rb") as f:
            data = tomllib.load(f)
        for d in data.get("diagnosis", []):
            query = d.get("query", "")
            # The list: quoted words, commas, blanks and `--` comments up to its `)`.
            for lst in re.findall(r"signal_name'\) IN \(((?:\s|,|'[^']*'|--[^\n]*\n)+)\)", query):
                have = set(re.findall(r"'([^']*)'", re.sub(r"--[^\n]*", "", lst)))
                if "Killed" not in have:
                    continue  # another signal's list (SIGSEGV's, SIGBUS's names)
                lists += 1
                missing = sorted(local - have)
                if missing:
                    errors.append(f"{os.path.relpath(path, root)}: {d['id']}: a SIGKILL name list lacks {missing}")
    if lists == 0:
        errors.append("no diagnosis compares signal_name with a SIGKILL name list: the check reads nothing")
    for e in errors:
        print(e)
    print(f"rules.sigkill_names: {len(local)} localized names, {lists} lists")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
