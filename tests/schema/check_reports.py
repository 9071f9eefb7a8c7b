#!/usr/bin/env python3
"""The JSON contract, checked: culprit's JSON against schema/culprit-report.schema.json, plus
what a JSON Schema cannot say — keys in the schema's order, the budget's sum, one value of a
finding's `echo` — and the field tables of docs/json.md (the README's "JSON output", moved
there) against the schema.

  check_reports.py SCHEMA fixtures CULPRIT FIXTURES_DIR   every fixtures/incidents/*/ (as tests/golden runs them)
  check_reports.py SCHEMA real-cases CULPRIT CASES_DIR    every real case (exit 77 when CASES_DIR is absent)
  check_reports.py SCHEMA jsonl FILE                      each line of `culprit scan --jsonl` output
  check_reports.py SCHEMA scan CULPRIT SOURCE_DIR WORK    `culprit scan --jsonl` over tests/scan/make_batch.sh's batch
  check_reports.py SCHEMA readme docs/json.md            its "JSON output" tables list the schema's keys
  check_reports.py SCHEMA negative CULPRIT FIXTURE_DIR    broken copies of one report must fail every check they break

Exit 0 when all hold, 1 with one line per problem, 77 (skipped) without python3-jsonschema.
"""
import concurrent.futures
import copy
import json
import os
import re
import subprocess
import sys

SKIP = 77

try:
    import jsonschema
except ImportError:
    print("skipped: python3-jsonschema is not installed (scripts/setup-debian.sh installs it)")
    sys.exit(SKIP)

# The budget's terms: total = the sum of these, a null term counting 0 (README "budget object").
BUDGET_TERMS = ["free", "job", "foreign", "unattributed", "host_processes", "kernel", "unexplained"]


class Contract:
    """The schema, a validator for a report and one for a scan line."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            self.schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(self.schema)
        self.report = jsonschema.Draft202012Validator(self.schema)
        line = dict(self.schema)
        line["$ref"] = "#/$defs/scan_line"
        line.pop("unevaluatedProperties", None)
        self.scan_line = jsonschema.Draft202012Validator(line)

    def deref(self, node):
        ref = node["$ref"]
        assert ref.startswith("#/$defs/"), ref
        return self.schema["$defs"][ref[len("#/$defs/"):]]

    def object_keys(self, node):
        """The keys an object of `node` has, in order (its own properties, then its $ref's)."""
        keys, subs = [], {}
        while node is not None:
            for k, v in node.get("properties", {}).items():
                keys.append(k)
                subs[k] = v
            node = self.deref(node) if "$ref" in node else None
        return keys, subs

    def branch(self, node, value):
        """`node` with $ref / oneOf resolved for `value`; None when it says nothing of its shape."""
        while True:
            if "oneOf" in node:
                if value is None:
                    return None
                node = next(b for b in node["oneOf"] if b.get("type") != "null")
            elif "$ref" in node and "properties" not in node and "items" not in node:
                node = self.deref(node)
            else:
                return node

    def order_problems(self, value, node, path):
        node = self.branch(node, value)
        if node is None:
            return []
        problems = []
        if isinstance(value, dict):
            keys, subs = self.object_keys(node)
            if keys and list(value) != [k for k in keys if k in value]:
                problems.append(f"{path}: keys {list(value)} not in the schema's order {keys}")
            for k, v in value.items():
                if k in subs:
                    problems += self.order_problems(v, subs[k], f"{path}.{k}")
        elif isinstance(value, list) and "items" in node:
            for i, v in enumerate(value):
                problems += self.order_problems(v, node["items"], f"{path}[{i}]")
        return problems

    def problems(self, doc, scan_line=False):
        validator = self.scan_line if scan_line else self.report
        out = []
        for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(p) for p in e.absolute_path) or "(root)"
            out.append(f"schema: {where}: {e.message[:300]}")
        if out or not isinstance(doc, dict):
            return out
        root = {"$ref": "#/$defs/scan_line"} if scan_line else self.schema
        out += self.order_problems(doc, root, "$")
        out += budget_problems(doc.get("budget"))
        out += echo_problems(doc)
        out += source_problems(doc.get("sources", []))
        return out


def budget_problems(b):
    if not b or b.get("total") is None:
        return []
    out = []
    total = sum(b.get(k) or 0 for k in BUDGET_TERMS)
    if total != b["total"]:
        terms = " + ".join(f"{k} {b.get(k)}" for k in BUDGET_TERMS)
        out.append(f"budget: total {b['total']} != {terms} = {total} (off by {b['total'] - total})")
    if b.get("requested") is not None and b.get("free") is not None and b.get("shortfall") != b["requested"] - b["free"]:
        out.append(f"budget: shortfall {b.get('shortfall')} != requested {b['requested']} - free {b['free']}")
    return out


def without_echo(f):
    g = dict(f)
    g.pop("echo", None)
    return json.dumps(g, sort_keys=True)


def echo_problems(doc):
    """One value of `echo` per finding: echoes[] are exactly the findings[] flagged echo, the root
    is a finding flagged not."""
    out = []
    findings = {}
    for f in doc.get("findings", []):
        findings.setdefault(without_echo(f), []).append(f.get("echo"))
    for i, e in enumerate(doc.get("echoes", [])):
        seen = findings.get(without_echo(e))
        if e.get("echo") is not True:
            out.append(f"echoes[{i}] ({e.get('rule')}): echo is {e.get('echo')}")
        if not seen:
            out.append(f"echoes[{i}] ({e.get('rule')}): not in findings[]")
        elif True not in seen:
            out.append(f"echoes[{i}] ({e.get('rule')}): its entry in findings[] has echo {seen[0]}")
    flagged = sum(1 for f in doc.get("findings", []) if f.get("echo") is True)
    if flagged != len(doc.get("echoes", [])):
        out.append(f"findings[] flags {flagged} echoes, echoes[] lists {len(doc.get('echoes', []))}")
    root = doc.get("root")
    if root is not None:
        if root.get("echo") is not False:
            out.append("root: echo is not false")
        if False not in findings.get(without_echo(root), []):
            out.append("root: not in findings[] as a non-echo")
    return out


def source_problems(sources):
    return [f"sources[{i}]: format {s['format']!r} not in formats {s['formats']}"
            for i, s in enumerate(sources) if s.get("format") not in s.get("formats", [])]


def run_json(cmd, stdin=None, timeout=300):
    try:
        p = subprocess.run(cmd, stdin=stdin, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timed out"
    if p.returncode not in (0, 1, 2):
        return None, f"exit {p.returncode}: {p.stderr.decode(errors='replace')[-300:]}"
    try:
        return json.loads(p.stdout), None
    except ValueError as e:
        return None, f"not JSON ({e}): {p.stdout[:200]!r}"


def fixture_report(culprit, fixture):
    """The fixture's report as tests/golden/golden_runner.cpp runs it (its args, its stdin)."""
    with open(os.path.join(fixture, "expected.json"), encoding="utf-8") as f:
        expected = json.load(f)
    inputs = os.path.join(fixture, "inputs")
    cmd = [culprit, "diagnose", "--format", "json", "--quiet"] + expected.get("args", [])
    if "stdin" in expected:
        with open(os.path.join(inputs, expected["stdin"]), "rb") as stdin:
            return run_json(cmd + ["-"], stdin=stdin)
    return run_json(cmd + [inputs])


def check_many(contract, jobs):
    """jobs: (name, callable returning (doc, error)); one line per problem."""
    problems, count = [], 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for name, (doc, err) in zip([n for n, _ in jobs], pool.map(lambda j: j[1](), jobs)):
            count += 1
            if err:
                problems.append(f"{name}: {err}")
                continue
            problems += [f"{name}: {p}" for p in contract.problems(doc)]
    return problems, count


def cmd_fixtures(contract, culprit, root):
    dirs = sorted(d for d in (os.path.join(root, n) for n in os.listdir(root))
                  if os.path.isfile(os.path.join(d, "expected.json")))
    return check_many(contract, [(os.path.basename(d), lambda d=d: fixture_report(culprit, d)) for d in dirs])


def cmd_real_cases(contract, culprit, root):
    if not os.path.isdir(root):
        print(f"skipped: no real-case set at {root}")
        sys.exit(SKIP)
    cases = sorted(d for d in (os.path.join(root, n) for n in os.listdir(root))
                   if os.path.isfile(os.path.join(d, "expected.json")))
    cmd = lambda d: [culprit, "diagnose", "--format", "json", "--exclude", "expected.json", d]  # as score.py runs it
    return check_many(contract, [(os.path.basename(d), lambda d=d: run_json(cmd(d))) for d in cases])


def cmd_jsonl(contract, path):
    problems, count = [], 0
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            count += 1
            try:
                doc = json.loads(line)
            except ValueError as e:
                problems.append(f"line {n}: not JSON: {e}")
                continue
            problems += [f"line {n} ({doc.get('incident')}): {p}" for p in contract.problems(doc, scan_line=True)]
    if count == 0:
        problems.append(f"{path}: no lines")
    return problems, count


def cmd_scan(contract, culprit, source, work):
    batch = os.path.join(work, "batch")
    subprocess.run(["sh", os.path.join(source, "tests", "scan", "make_batch.sh"), source, batch], check=True)
    out = os.path.join(work, "scan.jsonl")
    with open(out, "wb") as f:
        subprocess.run([culprit, "scan", "--jsonl", batch], stdout=f, check=False, timeout=600)
    return cmd_jsonl(contract, out)


# docs/json.md "JSON output": each table's heading and the schema object it documents.
README_TABLES = {"Top level": "report_fields", "`culprit` object": "culprit", "`victim` object": "victim",
                 "`budget` object": "budget", "`allocator` object": "allocator", "`oom_parts` object": "oom_parts",
                 "Finding object": "finding", "Evidence object": "evidence", "Source object": "source"}
# Objects the doc describes inline in a row of another table: (table, row key) -> schema object.
README_INLINE = {("`budget` object", "holders"): "holder", ("`budget` object", "entries"): "entry",
                 ("`allocator` object", "sites"): "allocation_site"}


def readme_tables(text):
    """{heading: [(key, row text)]} of the tables one level under the 'JSON output' heading: the
    '## ' sections of docs/json.md's '# JSON output', as they were the '### ' sections of the
    README's '## JSON output'. The section ends at the next heading of its level or above."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if re.match(r"#{1,2} JSON output", line)), None)
    if start is None:
        return {}, ""
    level = len(lines[start]) - len(lines[start].lstrip("#"))
    end = next((i for i in range(start + 1, len(lines))
                if re.match(r"#{1,%d} " % level, lines[i])), len(lines))
    section = "\n".join(lines[start:end])
    sub = "#" * (level + 1) + " "
    tables, heading = {}, None
    for line in lines[start:end]:
        if line.startswith(sub):
            heading = line[len(sub):].strip()
        m = re.match(r"\| `([a-z_]+)` \|", line)
        if heading and m:
            tables.setdefault(heading, []).append((m.group(1), line))
    return tables, section


def cmd_readme(contract, readme):
    with open(readme, encoding="utf-8") as f:
        tables, section = readme_tables(f.read())
    problems = []
    for heading, name in README_TABLES.items():
        keys, _ = contract.object_keys(contract.schema["$defs"][name])
        listed = [k for k, _ in tables.get(heading, [])]
        if listed != keys:
            problems.append(f"{readme} '{heading}' lists {listed}; the schema's {name} has {keys}")
    for (heading, row), name in README_INLINE.items():
        keys, _ = contract.object_keys(contract.schema["$defs"][name])
        text = dict(tables.get(heading, [])).get(row, "")
        cells = re.split(r"(?<!\\)\|", text)  # `\|` is a pipe inside a cell
        listed = re.findall(r'"([a-z_]+)":', cells[3] if len(cells) > 3 else "")
        if listed != keys:
            problems.append(f"{readme} '{heading}' row `{row}` shows {listed}; the schema's {name} has {keys}")
    version = contract.schema["$defs"]["report_fields"]["properties"]["schema_version"]["const"]
    shown = re.findall(r'"schema_version":(\d+)', section)
    if not shown or any(int(v) != version for v in shown):
        problems.append(f"{readme}: the example's schema_version {shown} is not {version}")
    return problems, len(README_TABLES) + len(README_INLINE)


def cmd_negative(contract, culprit, fixture):
    """A checker that passes everything proves nothing: break one good report in the ways the
    contract forbids, one at a time, and require a problem for each."""
    doc, err = fixture_report(culprit, fixture)
    if err:
        return [f"{fixture}: {err}"], 0
    problems = [f"the unbroken report: {p}" for p in contract.problems(doc)]
    if not doc.get("budget") or not doc.get("echoes") or not doc.get("sources"):
        return problems + [f"{fixture}: needs a budget, echoes and sources to break"], 0

    def breaks(what, change, scan_line=False):
        broken = copy.deepcopy(doc)
        change(broken)
        if not contract.problems(broken, scan_line=scan_line):
            problems.append(f"a report with {what} passes")

    def reorder(d):
        items = list(d.items())
        d.clear()
        d.update([items[1], items[0]] + items[2:])

    def flip_echo(d):
        for f in d["findings"]:
            if f["echo"]:
                f["echo"] = False
                return

    breaks("no verdict", lambda d: d.pop("verdict"))
    breaks("an unknown verdict", lambda d: d.update(verdict="cuda-oom"))
    breaks("schema_version 2", lambda d: d.update(schema_version=2))
    breaks("a key the schema does not know", lambda d: d.update(extra=1))
    breaks("its first two keys swapped", reorder)
    breaks("a size as text", lambda d: d["budget"].update(total="119.70 GiB"))
    breaks("a budget that does not add up", lambda d: d["budget"].update(unattributed=(d["budget"]["unattributed"] or 0) + 1))
    breaks("a wrong shortfall", lambda d: d["budget"].update(shortfall=(d["budget"]["shortfall"] or 0) + 1))
    breaks("a clock sentence as the clock", lambda d: d["sources"][-1].update(clock="zoneless stamps read as UTC"))
    breaks("a comma-joined format", lambda d: d["sources"][-1].update(format="ps,app_log"))
    breaks("a format not in its formats", lambda d: d["sources"][-1].update(formats=["free"]) if d["sources"][-1]["format"] != "free" else d["sources"][-1].update(formats=["ps"]))
    breaks("a time without milliseconds", lambda d: d["echoes"][0].update(ts="2026-04-09T00:47:13Z"))
    breaks("a finding whose echo differs in findings[] and echoes[]", flip_echo)
    breaks("an echo missing from echoes[]", lambda d: d["echoes"].pop())
    breaks("an unknown culprit role", lambda d: d["echoes"][0].update(culprit={"host": "", "pid": 1, "name": "x", "role": "stranger", "why": "", "container": ""}))
    breaks("no incident (as a scan line)", lambda d: None, scan_line=True)
    return problems, 16


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    contract = Contract(argv[1])
    mode, args = argv[2], argv[3:]
    if mode == "fixtures":
        problems, n = cmd_fixtures(contract, *args)
    elif mode == "real-cases":
        problems, n = cmd_real_cases(contract, *args)
    elif mode == "jsonl":
        problems, n = cmd_jsonl(contract, *args)
    elif mode == "scan":
        problems, n = cmd_scan(contract, *args)
    elif mode == "readme":
        problems, n = cmd_readme(contract, *args)
    elif mode == "negative":
        problems, n = cmd_negative(contract, *args)
    else:
        print(__doc__)
        return 2
    for p in problems:
        print(p)
    print(f"{mode}: {n} checked, {len(problems)} problem{'s' if len(problems) != 1 else ''}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
