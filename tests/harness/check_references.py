"""Every file a comment, document or script of the repository names exists in it.

usage: check_references.py [REPO_ROOT]

Scans every tracked text file (git ls-files) except test data, case files and
CHANGELOG.md (history names files as they were) for
  - Markdown file names (`README.md`, `docs/glossary.md`, `[x](../schema/BUNDLE.md)`),
  - repository paths: a top-level folder of the repository followed by a path
    (`src/io/page.h`, `tests/data/seeds/`, `schema/*.sql`), and source paths
    relative to src/ (`io/page.h`, `store/archive.cc`),
  - any path into the sibling folder of shared notes beside the checkout,
    which a clone does not have,
and prints one line FILE:LINE: NAME for every one that names nothing in the
repository; exit 1 if there is any, else 0.

A name resolves when it exists relative to the repository root, to the naming
file's folder, or (a bare `NAME.md`) as any tracked file of that name; a glob
resolves when it matches at least one file. Left alone: paths under build/
(and the generated/ folder inside it), placeholders (`docs/COMMAND.md`,
`schema/NNN_*.sql`, `<id>`, `$VAR`, `...`) and names the scaffold or a test
creates (listed in MADE_BY_THE_CODE below).
"""
import fnmatch
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))

# Files the code writes, documents show as examples or tests create, each named
# in a comment or document before it exists.
MADE_BY_THE_CODE = {
    "src/mechanisms/adam-bias-correction.cc",  # CONTRIBUTING.md's example of scripts/new-mechanism
    "src/mechanisms/tiny-example.cc",  # tests/e2e/new_mechanism_scaffold.sh scaffolds it
    "cases/FA-1.json",  # examples of a `where` prefix in doc comments
    "cases/x.json",
}
# Names in folders other work owns at the moment; each is a reference to fix
# there, not a rule. This list only shrinks.
NOT_YET_FIXED = set()
SKIP_PREFIXES = ("tests/data/", "cases/FA-", "CHANGELOG.md", "LICENSE", ".gitignore",
                 # the checkers and their tests, which name faults on purpose
                 "tests/harness/check_references.py", "tests/e2e/repo_references.sh",
                 "tests/e2e/layering.sh")
TOP = None  # filled in main(): the top-level folders of the repository
SRC_DIRS = None  # filled in main(): the folders of src/

PLACEHOLDER = re.compile(r"(?<![A-Za-z])(?:COMMAND|NAME|ID|MECH|TARGET|OUT|DIR|FILE|PATH|FOLDER|NNN|NNNNN)(?![a-z])|<|>|\$|\.\.\.|…|\{|\}|XXXXXX")


def tracked():
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], check=True, capture_output=True).stdout
    return [p for p in out.decode().split("\0") if p]


def ignored(rel):
    """True for a name git ignores (what the build and the benches write)."""
    return subprocess.run(["git", "-C", ROOT, "check-ignore", "-q", "--no-index", rel],
                          stderr=subprocess.DEVNULL).returncode == 0


def exists(rel, base_dir, basenames):
    # A stem that names files by their prefix: `schema/006` (schema/006_*.sql),
    # `src/io/bundle` (bundle.h and bundle.cc).
    stem = os.path.normpath(rel.rstrip("/"))
    if not any(ch in stem for ch in "*?[.") and any(t.startswith(stem + c) for t in ALL for c in "_."):
        return True
    rel = rel.rstrip("/")
    if not rel:
        return True
    cands = [os.path.normpath(rel), os.path.normpath(os.path.join(base_dir, rel))]
    for c in cands:
        if c.startswith(".."):
            continue
        if any(ch in c for ch in "*?["):
            if any(fnmatch.fnmatch(t, c) for t in ALL) or any(fnmatch.fnmatch(d, c) for d in DIRS):
                return True
        elif os.path.exists(os.path.join(ROOT, c)):
            return True
    if "/" not in rel and rel.endswith(".md") and rel in basenames:
        return True
    return any(ignored(c) for c in cands if not c.startswith(("..", "/")))


def main():
    global ALL, DIRS
    ALL = tracked()
    DIRS = sorted({os.path.dirname(p) for p in ALL})
    tops = sorted({p.split("/")[0] for p in ALL if "/" in p} - {"build"})
    srcdirs = sorted({p.split("/")[1] for p in ALL if p.startswith("src/") and p.count("/") >= 2})
    basenames = {os.path.basename(p) for p in ALL}
    md = re.compile(r"(?<![\w./$}-])((?:\.\./|\./)*[\w./*-]*\.md)\b")
    path = re.compile(r"(?<![\w./$-])((?:\.\./)*(?:%s)/[\w./*-]*)" % "|".join(re.escape(t) for t in tops))
    srcpath = re.compile(r"(?<![\w./$-])((?:%s)/[\w*-]+\.(?:h|cc|py|sql))\b" % "|".join(map(re.escape, srcdirs)))
    shared = re.compile(r"\.\./shared\S*")
    bad = []
    for f in ALL:
        if f.startswith(SKIP_PREFIXES) or not os.path.isfile(os.path.join(ROOT, f)):
            continue
        try:
            text = open(os.path.join(ROOT, f), encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        base = os.path.dirname(f)
        for n, line in enumerate(text.split("\n"), 1):
            found = []
            for m in shared.finditer(line):
                found.append(("shared", m.group(0).rstrip(".,;:)`'\"")))
            for m in md.finditer(line):
                found.append(("md", m.group(1)))
            for m in path.finditer(line):
                found.append(("path", m.group(1).rstrip(".,;:")))
            for m in srcpath.finditer(line):
                found.append(("src", m.group(1)))
            for kind, name in found:
                if (f, name) in NOT_YET_FIXED or name in MADE_BY_THE_CODE:
                    continue
                if kind == "shared":
                    bad.append(f"{f}:{n}: {name} (outside the repository)")
                    continue
                if kind == "md" and "/" not in name and not re.fullmatch(r"[A-Z][A-Z_]*\.md", name):
                    continue  # a bare lower-case name is a variable's (`cmd.md`), not a file's
                if kind == "path" and name.count("/") == 1 and not name.endswith("/") and "." not in name.split("/")[1]:
                    continue  # `cases/s` is a unit, `schema/006` is checked as a stem below
                if name.startswith("/"):
                    continue  # the tail of "$root"/docs/*.md: a variable's folder
                if PLACEHOLDER.search(name) or name.startswith(("build/", "build-")) or "/generated/" in name:
                    continue
                if kind == "src":
                    ok = exists("src/" + name, base, basenames) or exists(name, base, basenames)
                else:
                    ok = exists(name, base, basenames)
                if not ok:
                    bad.append(f"{f}:{n}: {name}")
    for b in sorted(set(bad)):
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
