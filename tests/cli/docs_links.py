#!/usr/bin/env python3
"""Issue 37: the README stays short and its documentation stays whole.

  docs_links.py SOURCE_DIR

- README.md is under 400 lines (a user wants what it does, install, quick start, examples and
  the options; the rest lives in docs/, linked);
- every relative link in README.md and docs/*.md names a file or folder that exists, and a
  `#fragment` names a heading of that Markdown file (as GitHub makes its anchors), so moving a
  section cannot leave a link behind.

Links inside fenced code blocks and `code spans` are not links and are not read. Before checking
the tree, the checker runs on a small broken tree of its own and must find each fault there:
a checker that passes everything proves nothing. Exit 0 when all hold, 1 with one line per
problem.
"""
import os
import re
import sys
import tempfile

MAX_README_LINES = 399  # "under 400 lines"

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+).+?\1")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")


def prose_lines(text):
    """(line number, line) outside fenced code blocks, with code spans blanked."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            continue
        if fence is None:
            yield number, CODE_SPAN.sub(lambda s: " " * len(s.group(0)), line)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, found = {}, set()
        with open(path, encoding="utf-8") as f:
            text = f.read()
        fence = None
        for line in text.splitlines():
            m = FENCE.match(line)
            if m:
                fence = m.group(1) if fence is None else (None if m.group(1) == fence else fence)
                continue
            h = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line) if fence is None else None
            if h:
                base = slug(h.group(1))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
        found.update(re.findall(r'<a\s+(?:name|id)="([^"]+)"', text))
        cache[path] = found
    return cache[path]


def check(root):
    problems = []
    readme = os.path.join(root, "README.md")
    with open(readme, encoding="utf-8") as f:
        lines = f.read().count("\n")
    if lines > MAX_README_LINES:
        problems.append(f"README.md has {lines} lines; it must stay under {MAX_README_LINES + 1} "
                        "(move detail to docs/ and link it)")
    docs = os.path.join(root, "docs")
    files = [readme] + sorted(os.path.join(docs, n) for n in (os.listdir(docs) if os.path.isdir(docs) else [])
                              if n.endswith(".md"))
    links = 0
    for path in files:
        name = os.path.relpath(path, root)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for number, line in prose_lines(text):
            for m in LINK.finditer(line):
                target = m.group(1)
                if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:
                    continue
                links += 1
                file_part, _, fragment = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                if not os.path.exists(dest):
                    problems.append(f"{name}:{number}: link to {target}: no such file {os.path.relpath(dest, root)}")
                    continue
                if fragment and dest.endswith(".md") and fragment not in anchors(dest):
                    problems.append(f"{name}:{number}: link to {target}: {os.path.relpath(dest, root)} "
                                    f"has no heading with anchor #{fragment}")
    return problems, links, lines


def self_test():
    """The checker on a broken tree: each fault planted must be named."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs"))
        with open(os.path.join(root, "README.md"), "w", encoding="utf-8") as f:
            f.write("# Tool\n\n## Bounds (limits)\n\n[a](docs/gone.md) [b](docs/here.md#nowhere) "
                    "[c](#bounds-limits) `[d](not/a/link.md)`\n```\n[e](inside/a/fence.md)\n```\n")
            f.write("filler\n" * MAX_README_LINES)
        with open(os.path.join(root, "docs", "here.md"), "w", encoding="utf-8") as f:
            f.write("# Here\n\n[back](../README.md#bounds-limits) [up](../README.md#bounds)\n")
        problems, _, _ = check(root)
    want = ["README.md has", "docs/gone.md", "#nowhere", "docs/here.md:3: link to ../README.md#bounds:"]
    missed = [w for w in want if not any(w in p for p in problems)]
    wrong = [p for p in problems if not any(w in p for w in want)]
    return [f"self-test: the checker missed {w!r}" for w in missed] + \
           [f"self-test: the checker flagged a good link: {p}" for p in wrong]


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    problems = self_test()
    found, links, lines = check(sys.argv[1])
    problems += found
    for p in problems:
        print(f"FAIL {p}")
    if problems:
        return 1
    print(f"ok   README.md: {lines} lines; {links} relative links in README.md and docs/*.md resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main())
