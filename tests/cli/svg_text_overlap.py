#!/usr/bin/env python3
"""Issue 37, finding 27: no two labels of a report's SVG charts overlap.

usage: svg_text_overlap.py REPORT.html...

Each <text> of each <svg> gets a box from its x, y, anchor and an estimate of its width (the
report's sans-serif at the class's font size, 0.6 em a character: wider than most glyphs, so a
pass means the labels are apart in a browser too). Boxes that overlap by more than a pixel each
way are printed; the exit status is 1 when any do.
"""
import html
import re
import sys

# Font sizes (px) by class, as html_renderer.cpp's style gives them; others 12 px.
SIZES = {"tick": 11, "axis-label": 11, "seg-label": 11, "total-label": 11, "request-label": 11,
         "shortfall-label": 11, "callout": 12}
EM = 0.6

TEXT = re.compile(r'<text x="([-0-9.]+)" y="([-0-9.]+)" class="([^"]*)" text-anchor="(\w+)">(.*?)</text>', re.S)


def boxes(svg):
    out = []
    for m in TEXT.finditer(svg):
        x, y, cls, anchor, content = float(m[1]), float(m[2]), m[3], m[4], html.unescape(m[5])
        size = next((SIZES[c] for c in cls.split() if c in SIZES), 12)
        w = EM * size * len(content)
        left = x if anchor == "start" else x - w / 2 if anchor == "middle" else x - w
        out.append((left, y - 0.8 * size, left + w, y + 0.2 * size, content, cls))
    return out


def overlaps(svg):
    found = []
    b = boxes(svg)
    for i in range(len(b)):
        for j in range(i + 1, len(b)):
            a, c = b[i], b[j]
            dx = min(a[2], c[2]) - max(a[0], c[0])
            dy = min(a[3], c[3]) - max(a[1], c[1])
            if dx > 1 and dy > 1:
                found.append((a[4], a[5], c[4], c[5]))
    return found


def main():
    bad = 0
    for path in sys.argv[1:]:
        doc = open(path, encoding="utf-8").read()
        for k, svg in enumerate(re.findall(r"<svg.*?</svg>", doc, re.S)):
            for a, ca, c, cc in overlaps(svg):
                print(f"{path}: chart {k + 1}: '{a}' ({ca}) overlaps '{c}' ({cc})")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
