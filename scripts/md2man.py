#!/usr/bin/env python3
"""Writes the man page failmap(1) from the reference manual's pages (docs/*.md).

The same files are compiled into the binary and printed by `failmap help
COMMAND`, so the man page and the help text cannot drift apart. Only the
Markdown the manual uses is understood: `#`/`##`/`###` headings, paragraphs,
fenced code blocks, `-` lists, pipe tables, `code`, **bold**, *italic* and
[links](target). docs/README.md (the manual's index) becomes DESCRIPTION,
each command's page a section, the other pages (glossary.md) come last.

Usage: md2man.py --version V --out failmap.1 docs/*.md
"""
import argparse
import os
import re
import sys


def escape(text):
    """Roff-escapes plain text (backslashes and hyphens; a leading dot or quote)."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    # The page is ASCII: every other character as a groff escape (man renders it in any locale).
    return "".join(ch if ord(ch) < 128 else "\\[u%04X]" % ord(ch) for ch in text)


def inline(text):
    """Converts inline Markdown to roff font changes."""
    out = []
    pos = 0
    pattern = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\(([^)]+)\)")
    for m in pattern.finditer(text):
        out.append(escape(text[pos:m.start()]))
        if m.group(1) is not None:
            out.append("\\fB" + escape(m.group(1)) + "\\fR")
        elif m.group(2) is not None:
            out.append("\\fB" + escape(m.group(2)) + "\\fR")
        elif m.group(3) is not None:
            out.append("\\fI" + escape(m.group(3)) + "\\fR")
        else:
            label, target = m.group(4), m.group(5)
            out.append(inline(label))
            if target.endswith(".md"):  # another page of this man page
                out.append(" (\\fBfailmap help " + escape(os.path.basename(target)[:-3]) + "\\fR)")
            elif not target.startswith("#"):
                out.append(" (" + escape(target) + ")")
        pos = m.end()
    out.append(escape(text[pos:]))
    return "".join(out)


def line(text):
    """A roff text line: a leading '.' or "'" would be read as a request."""
    return "\\&" + text if text[:1] in (".", "'") else text


def cells(row):
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|"):
        row = row[:-1]
    parts, cur, in_code = [], "", False
    i = 0
    while i < len(row):  # a '|' inside `code` or escaped as \| is text
        ch = row[i]
        if ch == "\\" and i + 1 < len(row) and row[i + 1] == "|":
            cur += "|"
            i += 2
            continue
        if ch == "`":
            in_code = not in_code
        if ch == "|" and not in_code:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
        i += 1
    parts.append(cur.strip())
    return parts


def convert(markdown, top_heading):
    """Roff for one page; its '#' heading becomes `top_heading` (.SH) or is dropped."""
    out = []
    lines = markdown.split("\n")
    i = 0
    paragraph = []

    def flush():
        if paragraph:
            out.append(".PP")
            out.extend(line(inline(p)) for p in paragraph)
            paragraph.clear()

    while i < len(lines):
        text = lines[i]
        stripped = text.strip()
        if stripped.startswith("```"):
            flush()
            i += 1
            out.append(".PP\n.RS 4\n.nf")
            while i < len(lines) and not lines[i].strip().startswith("```"):
                out.append(line(escape(lines[i])))
                i += 1
            out.append(".fi\n.RE")
        elif stripped.startswith("#"):
            flush()
            level = len(stripped) - len(stripped.lstrip("#"))
            title = stripped[level:].strip()
            if level == 1:
                if top_heading:
                    out.append('.SH "' + escape(top_heading) + '"')
            elif level == 2:
                out.append('.SS "' + inline(title) + '"')
            else:
                out.append(".PP\n\\fB" + inline(title) + "\\fR")
        elif stripped.startswith("|") and i + 1 < len(lines) and re.match(r"^\|[\s:|-]+\|$", lines[i + 1].strip()):
            flush()
            header = cells(stripped)
            i += 2
            while i < len(lines) and lines[i].strip().startswith("|"):
                row = cells(lines[i])
                out.append(".TP\n" + line(inline(row[0])))
                rest = []
                for h, c in zip(header[1:], row[1:]):
                    if not c:
                        continue
                    rest.append(inline(c) if len(header) == 2 else inline(h) + ": " + inline(c))
                out.append(line("; ".join(rest)) if rest else "")
                i += 1
            continue
        elif re.match(r"^(\s*)([-*]|\d+\.) ", text):
            flush()
            m = re.match(r"^(\s*)([-*]|\d+\.) (.*)$", text)
            item = [m.group(3)]
            i += 1
            while i < len(lines) and lines[i].startswith("  ") and lines[i].strip() and \
                    not re.match(r"^\s*([-*]|\d+\.) ", lines[i]):
                item.append(lines[i].strip())
                i += 1
            out.append(".IP \\(bu 2\n" + "\n".join(line(inline(t)) for t in item))
            continue
        elif not stripped:
            flush()
        else:
            paragraph.append(stripped)
        i += 1
    flush()
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--version", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("pages", nargs="+")
    args = parser.parse_args()
    pages = {os.path.basename(p)[:-3]: open(p, encoding="utf-8").read() for p in args.pages}
    index = pages.pop("README", "")
    other = [n for n in ("glossary",) if n in pages]
    commands = sorted(n for n in pages if n not in other)
    roff = ['.TH FAILMAP 1 "" "failmap ' + args.version + '" "failmap manual"', ".nh", ".ad l",
            ".SH NAME", "failmap \\- keep a failure\\-map case archive",
            ".SH SYNOPSIS", "\\fBfailmap\\fR [\\fB\\-\\-db\\fR \\fIPATH\\fR] [\\fB\\-q\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR]",
            ".br", "\\fBfailmap help\\fR \\fICOMMAND\\fR", ".SH DESCRIPTION", convert(index, None)]
    for name in commands:
        roff.append(convert(pages[name], "failmap " + name))
    for name in other:
        roff.append(convert(pages[name], name))
    text = "\n".join(r for r in roff if r) + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
