#!/usr/bin/env python3
"""Runs the ```console blocks of README.md and compares their output with what the README shows.

A console block is a sequence of commands (lines starting with "$ ", continued by a trailing backslash or a
here-document up to its delimiter) each followed by the output it prints (stdout and stderr together). All
commands run in order in one bash, in the current folder, so later steps see what earlier ones wrote.
A command's exit status must be 0 unless its line ends with a comment ending "exit N" ("# exit 1").

What the README shows may elide: a line that is only "…" stands for any number of lines, and "…" inside a
line for any text. Only what is truly variable is normalised, in both texts: ISO timestamps.

Usage: readme_tour.py README.md            check; prints each difference, exit 1 on any
       readme_tour.py README.md --update   rewrite the outputs that no longer match with what the commands
                                           print (those that match keep their elisions); scripts/update-examples
                                           runs it over README.md and docs/*.md as the tests do
"""
import os
import re
import subprocess
import sys

TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")


def parse(text):
    """[(block start index in lines, [(command lines, output lines, expected status)])]."""
    lines = text.split("\n")
    blocks, i = [], 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        start, i = i, i + 1
        steps = []
        while i < len(lines) and lines[i].strip() != "```":
            if not lines[i].startswith("$ "):
                raise SystemExit(f"README.md:{i + 1}: output before the first command of a console block")
            command = [lines[i][2:]]
            heredoc = re.search(r"<<-?\s*'?(\w+)'?", command[0])
            while command[-1].endswith("\\") and i + 1 < len(lines):
                i += 1
                command.append(lines[i])
            if heredoc:
                while i + 1 < len(lines) and lines[i + 1] != heredoc.group(1):
                    i += 1
                    command.append(lines[i])
                i += 1
                command.append(lines[i])
            i += 1
            output = []
            while i < len(lines) and not lines[i].startswith("$ ") and lines[i].strip() != "```":
                output.append(lines[i])
                i += 1
            m = re.search(r"#.*\bexit (\d+)\s*$", command[-1]) or re.search(r"#.*\bexit (\d+)\s*$", command[0])
            steps.append((command, output, int(m.group(1)) if m else 0))
        blocks.append((start, steps))
        i += 1
    return blocks


def run_all(blocks):
    """Runs every command in one bash; returns [(output lines, status)] in order."""
    script = ["set +e"]
    n = 0
    for _, steps in blocks:
        for command, _, _ in steps:
            script.append("{\n" + "\n".join(command) + f"\n}} > .tour/out.{n} 2>&1 < /dev/null; echo $? > .tour/rc.{n}")
            n += 1
    os.makedirs(".tour", exist_ok=True)
    subprocess.run(["bash", "-c", "\n".join(script)], check=False)
    results = []
    for k in range(n):
        with open(f".tour/out.{k}", encoding="utf-8", errors="replace") as f:
            out = f.read()
        with open(f".tour/rc.{k}") as f:
            rc = int(f.read().strip() or "-1")
        results.append((out[:-1].split("\n") if out else [], rc))
    return results


def line_matches(want, got):
    want, got = TIMESTAMP.sub("TIMESTAMP", want), TIMESTAMP.sub("TIMESTAMP", got)
    if "…" not in want:
        return want == got
    pattern = ".*".join(re.escape(part) for part in want.split("…"))
    return re.fullmatch(pattern, got) is not None


def lines_match(want, got):
    """True when `got` matches `want`, a line "…" standing for any number of lines."""
    memo = {}

    def match(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(want):
            r = j == len(got)
        elif want[i] == "…":
            r = any(match(i + 1, k) for k in range(j, len(got) + 1))
        else:
            r = j < len(got) and line_matches(want[i], got[j]) and match(i + 1, j + 1)
        memo[(i, j)] = r
        return r

    return match(0, 0)


def main():
    path = sys.argv[1]
    update = "--update" in sys.argv[2:]
    text = open(path, encoding="utf-8").read()
    blocks = parse(text)
    results = run_all(blocks)
    failures, k = 0, 0
    for _, steps in blocks:
        for command, output, status in steps:
            got, rc = results[k]
            k += 1
            shown = " / ".join(command)[:160]
            if rc != status:
                failures += 1
                print(f"FAIL: `{shown}` exited {rc}, the README says {status}\n  output: " + "\n  ".join(got))
            elif not update and not lines_match(output, got):
                failures += 1
                print(f"FAIL: `{shown}` printed:\n  " + "\n  ".join(got) + "\nthe README shows:\n  " + "\n  ".join(output))
    if update:
        lines, out, k = text.split("\n"), [], 0
        i = 0
        for start, steps in blocks:
            out.extend(lines[i:start + 1])
            for command, output, _ in steps:
                out.append("$ " + command[0])
                out.extend(command[1:])
                # What still matches keeps its elisions; the rest is shown as printed.
                out.extend(output if lines_match(output, results[k][0]) else results[k][0])
                k += 1
            i = start + 1
            while lines[i].strip() != "```":
                i += 1
        out.extend(lines[i:])
        open(path, "w", encoding="utf-8").write("\n".join(out))
    print(f"{k} command(s) of {len(blocks)} console block(s): {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
