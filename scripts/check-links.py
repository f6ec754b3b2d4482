#!/usr/bin/env python3
"""Checks the relative links of our Markdown: README.md, docs/*.md and docker/README.md.

Each inline link or image, `[text](target)` or `![alt](target)`, outside fenced code blocks and code spans,
whose target has no scheme (http:, mailto:, ...) must name a file or folder that exists, relative to the
file the link is in; a `#anchor` (alone, or after a Markdown file) must be the anchor GitHub makes for one of
that file's headings. Reference-style links are not read (we write none). Exit status 0 when every link
resolves, 1 otherwise, with one line per broken link.
"""

import os
import re
import sys
import unicodedata
from urllib.parse import unquote

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FENCE = re.compile(r"^ {0,3}(?:[-*+]\s+|\d+[.)]\s+)?\s*(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
LINK = re.compile(r"(?<!\\)!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^()\s<>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.IGNORECASE)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def markdown_files():
    """The files checked, as paths relative to the repository."""
    names = ["README.md", "docker/README.md"]
    names += sorted(os.path.join("docs", n) for n in os.listdir(os.path.join(ROOT, "docs")) if n.endswith(".md"))
    return names


def prose_lines(text):
    """The file's lines with fenced code blocks blanked out (line numbers stay)."""
    lines = text.split("\n")
    fence = None
    for i, line in enumerate(lines):
        match = FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
                lines[i] = ""
        else:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                    and line.strip().strip(fence[0]) == "":
                fence = None
            lines[i] = ""
    return lines


def slug(heading):
    """GitHub's anchor for a heading's text: its rendered text in lower case, every character that is not a
    letter, mark, digit, connector punctuation, space or hyphen removed, spaces made hyphens."""
    text = CODE_SPAN.sub(lambda m: m.group(2).strip(), heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link shows its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML tags show nothing
    text = re.sub(r"(\*{1,3}|_{1,3})(\S.*?\S|\S)\1", r"\2", text)  # emphasis markers
    kept = []
    for ch in text.lower():
        category = unicodedata.category(ch)
        if ch in " -" or category[0] in "LMN" or category == "Pc":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


def anchors(path, cache={}):
    """Every anchor a Markdown file has: its headings' (duplicates numbered -1, -2, ... as GitHub does) and
    explicit HTML anchors."""
    if path not in cache:
        with open(path, encoding="utf-8") as f:
            lines = prose_lines(f.read())
        found, seen = set(), {}
        for line in lines:
            match = HEADING.match(line)
            if match:
                base = slug(match.group(2))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
            found.update(HTML_ANCHOR.findall(line))
        cache[path] = found
    return cache[path]


def links(path):
    """(line number, target) of each inline link in a Markdown file's prose."""
    with open(path, encoding="utf-8") as f:
        lines = prose_lines(f.read())
    text = "\n".join(lines)
    # Code spans hold no links; keep their length and line breaks so positions still map to lines.
    text = CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", "x", m.group(0)), text)
    for match in LINK.finditer(text):
        yield text.count("\n", 0, match.start()) + 1, match.group(2)


def problem(source, target):
    """What is wrong with one link of `source` (a path relative to the repository), or None."""
    if not target:
        return "empty link target"
    if SCHEME.match(target) or target.startswith("//"):
        return None  # not ours to check
    file_part, _, anchor = target.partition("#")
    file_part = unquote(file_part)
    if file_part:
        resolved = os.path.normpath(os.path.join(ROOT, os.path.dirname(source), file_part))
        if not resolved.startswith(ROOT + os.sep) and resolved != ROOT:
            return "points outside the repository"
        if not os.path.exists(resolved):
            return "no such file"
    else:
        resolved = os.path.join(ROOT, source)
    if anchor:
        if not resolved.endswith(".md") or not os.path.isfile(resolved):
            return "an anchor into a file that is not Markdown"
        if unquote(anchor) not in anchors(resolved):
            return f"no heading with anchor #{anchor} in {os.path.relpath(resolved, ROOT)}"
    return None


def main():
    broken, count = [], 0
    files = markdown_files()
    for source in files:
        for line, target in links(os.path.join(ROOT, source)):
            count += 1
            reason = problem(source, target)
            if reason:
                broken.append(f"{source}:{line}: ({target}): {reason}")
    for entry in broken:
        print(entry)
    if broken:
        print(f"check-links: {len(broken)} of {count} links in {len(files)} files are broken")
        return 1
    print(f"check-links: all {count} links in {len(files)} files resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main())
