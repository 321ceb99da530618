"""Every folder of src/ includes only the folders ARCHITECTURE.md's table allows it.

usage: check_layering.py [REPO_ROOT]
       check_layering.py --table [REPO_ROOT]   prints the table as read: FOLDER: a, b (or "everything")

Reads the table of ARCHITECTURE.md (rows "| `src/FOLDER/` | holds | `a`, `b` |",
the last cell naming the folders FOLDER may include; "everything" allows every
folder), then every #include "X/..." of src/FOLDER/*.h and *.cc. Prints
FILE:LINE: FOLDER includes X (allowed: ...) for each include the table does not
allow, and for a folder of src/ the table does not list; exit 1 if any, else 0.
"""
import os
import re
import sys

ARGS = [a for a in sys.argv[1:] if a != "--table"]
ROOT = os.path.abspath(ARGS[0] if ARGS else os.path.join(os.path.dirname(__file__), "..", ".."))


def allowed_table():
    table = {}
    row = re.compile(r"^\|\s*`src/([\w-]+)/`\s*\|.*\|\s*([^|]+?)\s*\|\s*$")
    for line in open(os.path.join(ROOT, "ARCHITECTURE.md"), encoding="utf-8"):
        m = row.match(line)
        if m:
            cell = m.group(2)
            table[m.group(1)] = None if cell == "everything" else set(re.findall(r"`([\w-]+)`", cell))
    return table


def main():
    table = allowed_table()
    if not table:
        print("ARCHITECTURE.md: no folder table found")
        return 1
    if "--table" in sys.argv:
        for folder, allowed in table.items():
            print(f"{folder}: {'everything' if allowed is None else ', '.join(sorted(allowed))}")
        return 0
    src = os.path.join(ROOT, "src")
    include = re.compile(r'^\s*#\s*include\s+"([\w-]+)/')
    bad = []
    for folder in sorted(os.listdir(src)):
        path = os.path.join(src, folder)
        if not os.path.isdir(path):
            continue
        if folder not in table:
            bad.append(f"src/{folder}/: a folder ARCHITECTURE.md's table does not list")
            continue
        allowed = table[folder]
        for name in sorted(os.listdir(path)):
            if not name.endswith((".h", ".cc")):
                continue
            for n, line in enumerate(open(os.path.join(path, name), encoding="utf-8"), 1):
                m = include.match(line)
                if m and allowed is not None and m.group(1) not in allowed:
                    bad.append(f"src/{folder}/{name}:{n}: {folder} includes {m.group(1)} "
                               f"(allowed: {', '.join(sorted(allowed))})")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
