#!/usr/bin/env python3
"""Checks that include/nax's headers include only their own layer and the layers below it.

The layers are the rows of the table in docs/ARCHITECTURE.md, bottom up (a row's first cell
is a folder such as `core/` or `backend/host/`). Every `#include "..."` of a header under
include/nax/ is resolved to the folder it names; an include of a higher layer, or of an
umbrella header (include/nax/*.hpp, which only users include), is reported with both files.

  tools/check_layers.py            check; exit status 1 and one line per violation
  tools/check_layers.py --graph    also print the folder graph the includes draw, bottom up
                                   (what the table must agree with)
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
INCLUDE = os.path.join(ROOT, "include")
NAX = os.path.join(INCLUDE, "nax")
TABLE = os.path.join(ROOT, "docs", "ARCHITECTURE.md")
UMBRELLA = "(umbrella)"


def layers_from_table():
    """The folders of ARCHITECTURE.md's layer table, in table order (bottom up)."""
    folders = []
    for line in open(TABLE, encoding="utf-8"):
        m = re.match(r"\|\s*`([a-z_/]+)/`\s*\|", line)
        if m:
            folders.append(m.group(1))
    if not folders:
        sys.exit(f"check_layers: no layer table (rows like '| `core/` | ... |') in {TABLE}")
    return folders


def folder_of(path):
    rel = os.path.relpath(path, NAX)
    folder = os.path.dirname(rel)
    return folder if folder else UMBRELLA


def includes(header):
    """The nax headers that `header` includes with quotes, as absolute paths."""
    for number, line in enumerate(open(header, encoding="utf-8"), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if not m:
            continue
        name = m.group(1)
        # "nax/..." is found through the include directory, anything else next to the header.
        base = INCLUDE if name.startswith("nax/") else os.path.dirname(header)
        target = os.path.normpath(os.path.join(base, name))
        if target.startswith(NAX + os.sep):
            yield number, target


def main():
    layers = layers_from_table()
    rank = {folder: i for i, folder in enumerate(layers)}
    graph = {}
    problems = []
    for directory, _, files in os.walk(NAX):
        for file in sorted(files):
            if not file.endswith(".hpp"):
                continue
            header = os.path.join(directory, file)
            source = folder_of(header)
            if source != UMBRELLA and source not in rank:
                problems.append(f"{os.path.relpath(header, ROOT)}: folder {source}/ is not a row of the layer "
                                f"table in docs/ARCHITECTURE.md")
                continue
            for number, target in includes(header):
                into = folder_of(target)
                if into == source:
                    continue
                graph.setdefault(source, set()).add(into)
                where = f"{os.path.relpath(header, ROOT)}:{number}"
                what = os.path.relpath(target, NAX)
                if source == UMBRELLA:
                    continue  # umbrella headers gather every layer
                if into == UMBRELLA:
                    problems.append(f"{where}: includes the umbrella header {what}; include the headers it needs")
                elif into not in rank:
                    problems.append(f"{where}: includes {what}, whose folder {into}/ is not in the layer table")
                elif rank[into] > rank[source]:
                    problems.append(f"{where}: {source}/ includes {what}, but {into}/ is above {source}/ in the "
                                    f"layer table")
    if "--graph" in sys.argv:
        for folder in layers:
            below = sorted(graph.get(folder, ()), key=lambda f: rank.get(f, len(layers)))
            print(f"{folder + '/':16} includes {', '.join(f + '/' for f in below) or 'nothing else'}")
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_layers: {len(problems)} include(s) against the layers of docs/ARCHITECTURE.md")
        return 1
    print(f"check_layers: every header includes only its layer and those below it ({len(layers)} layers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
