#!/usr/bin/env python3
"""The code's shape, as docs/ARCHITECTURE.md states it, checked from the files:

- no crate re-exports another workspace crate's items (`pub use other_crate::…`);
- no module imports a module that imports it back, directly or through others (file level,
  per crate; test code left out);
- the bottom layers named in BOTTOM_LAYERS import nothing above them;
- no non-test function over 120 lines, outside the declarative tables named in ALLOWED_LONG;
- no non-test file over 800 lines.

Usage: .ci/shape.py [--report] [--edges]
  exit 1 when a rule is broken; --report prints the count even when none is; --edges lists, for
  each import circle, the edges inside it and a path that makes each one.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_FUNCTION = 120
MAX_FILE = 800
# Bottom layers, per crate: modules that may import only each other (and other crates). The
# ledger's storage stands on these; appending, the registry, rotation, archives, reads and
# verification are above them, and ingest's own types sit beside them.
BOTTOM_LAYERS = {
    "ledger": {
        "error", "ingest::submission", "storage::schema", "storage::models",
        "storage::connection", "storage::columns", "storage::position", "storage::tree",
        "storage::partitions", "storage::checkpoints", "storage::tenures",
        "storage::registry_log", "storage::verify_failure", "storage::tiles",
    },
}
# Declarative tables: a list read as a table, longer than a screen by nature.
ALLOWED_LONG = {
    ("api/src/openapi_constraints.rs", "apply"),
    ("api/src/access.rs", "route_roles"),
}


def workspace_crates():
    """(directory, lib name) of every workspace member."""
    members = re.search(r"members\s*=\s*\[([^\]]*)\]", (ROOT / "Cargo.toml").read_text())
    crates = []
    for member in re.findall(r'"([^"]+)"', members.group(1)):
        manifest = (ROOT / member / "Cargo.toml").read_text()
        lib = re.search(r'\[lib\][^\[]*?name\s*=\s*"([^"]+)"', manifest)
        package = re.search(r'\[package\][^\[]*?name\s*=\s*"([^"]+)"', manifest)
        name = lib.group(1) if lib else package.group(1).replace("-", "_")
        crates.append((member, name))
    return crates


def blank_comments_and_strings(text):
    """The text with comments, strings and char literals blanked (line breaks kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r"r(#*)\"", text[i:]).group(1)
            end = text.find('"' + hashes, i + len(hashes) + 2)
            end = n if end < 0 else end + 1 + len(hashes)
            out.append('"' + re.sub(r"[^\n]", " ", text[i + 1:end - 1]) + '"')
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('"' + re.sub(r"[^\n]", " ", text[i + 1:j]) + '"')
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|\\.|[^\\'])'", text[i:i + 12])
            if m:
                out.append("' '" + " " * (len(m.group(0)) - 3))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching_brace(text, open_at):
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(text) - 1


def blank_test_code(text):
    """Blanks `#[cfg(test)]` items (test modules and test-only functions)."""
    for m in reversed(list(re.finditer(r"#\[cfg\(test\)\]", text))):
        brace = text.find("{", m.end())
        semi = text.find(";", m.end())
        if semi != -1 and (brace == -1 or semi < brace):
            end = semi
        else:
            end = matching_brace(text, brace)
        text = text[:m.start()] + re.sub(r"[^\n]", " ", text[m.start():end + 1]) + text[end + 1:]
    return text


def test_only_children(text):
    return set(re.findall(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", text))


class Crate:
    def __init__(self, directory, name):
        self.directory, self.name = directory, name
        self.modules = {}  # module path tuple -> Path
        self.texts = {}  # module path -> code text (comments, strings and tests blanked)
        src = ROOT / directory / "src"
        roots = [src / "lib.rs", src / "main.rs"]
        for root in roots:
            if root.exists():
                self.walk(root, ())
                break

    def walk(self, path, module):
        raw = path.read_text()
        code = blank_test_code(blank_comments_and_strings(raw))
        self.modules[module] = path
        self.texts[module] = code
        here = path.parent if path.name in ("lib.rs", "main.rs", "mod.rs") else path.with_suffix("")
        skipped = test_only_children(blank_comments_and_strings(raw))
        for child in re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", code, re.M):
            if child in skipped:
                continue
            for candidate in (here / f"{child}.rs", here / child / "mod.rs"):
                if candidate.exists():
                    self.walk(candidate, module + (child,))
                    break

    def resolve(self, current, segments):
        """The module a path names: the longest known module prefix."""
        best = None
        for k in range(len(segments), 0, -1):
            if tuple(segments[:k]) in self.modules:
                best = tuple(segments[:k])
                break
        return best if best is not None else ()


def expand_use_tree(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e']."""
    tree = re.sub(r"\s+as\s+\w+", "", tree)
    tree = re.sub(r"\s+", "", tree)
    brace = tree.find("{")
    if brace < 0:
        return [tree]
    prefix, inner = tree[:brace], tree[brace + 1:tree.rfind("}")]
    parts, depth, start = [], 0, 0
    for j, c in enumerate(inner):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(inner[start:j])
            start = j + 1
    parts.append(inner[start:])
    out = []
    for part in parts:
        if part:
            out.extend(prefix + p for p in expand_use_tree(part))
    return out


def absolute(current, segments, aliases, children):
    """Makes a path absolute within the crate, or None when it names no module of the crate."""
    if not segments:
        return None
    head = segments[0]
    if head == "crate":
        return list(segments[1:])
    if head in ("self", "super"):
        base = list(current)
        rest = list(segments)
        while rest and rest[0] in ("self", "super"):
            if rest.pop(0) == "super":
                base = base[:-1]
        return base + rest
    if head in aliases:
        return list(aliases[head]) + list(segments[1:])
    if head in children:
        return list(current) + list(segments)
    return None


def module_edges(crate, why=None):
    """module -> modules it names; `why`, when given, collects (module, target) -> a path naming it."""
    why = {} if why is None else why
    edges = {m: set() for m in crate.modules}
    for module, code in crate.texts.items():
        children = {c[-1] for c in crate.modules if len(c) == len(module) + 1 and c[:-1] == module}
        aliases = {}
        uses = re.findall(r"\buse\s+([^;]+);", code)
        for use in uses:
            for path in expand_use_tree(use):
                segments = [s for s in path.split("::") if s and s != "*"]
                if segments and segments[-1] == "self":
                    segments = segments[:-1]
                target = absolute(module, segments, aliases, children)
                if target is None:
                    continue
                resolved = crate.resolve(module, target)
                if tuple(target) in crate.modules:
                    aliases[segments[-1]] = tuple(target)
                if resolved != module:
                    edges[module].add(resolved)
                    why.setdefault((module, resolved), "use " + path)
        body = re.sub(r"\buse\s+[^;]+;", "", code)
        for m in re.finditer(r"(?<![\w:])((?:[a-z_][a-z0-9_]*::)+)", body):
            segments = [s for s in m.group(1).split("::") if s]
            target = absolute(module, segments, aliases, children)
            if target is None:
                continue
            resolved = crate.resolve(module, target)
            if resolved != module:
                edges[module].add(resolved)
                why.setdefault((module, resolved), m.group(1))
    return edges


def cycles(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in list(edges):
        if v not in index:
            strong(v)
    return out


def body_start(code, at):
    """Where a function's body opens, or None for a declaration without one (`;` first)."""
    depth = 0
    for j in range(at, len(code)):
        c = code[j]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0 and c == "{":
            return j
        elif depth == 0 and c == ";":
            return None
    return None


def long_functions(path, code):
    out = []
    for m in re.finditer(r"\bfn\s+(\w+)", code):
        brace = body_start(code, m.end())
        if brace is None:
            continue
        end = matching_brace(code, brace)
        lines = code.count("\n", m.start(), end) + 1
        if lines > MAX_FUNCTION:
            out.append((m.group(1), code.count("\n", 0, m.start()) + 1, lines))
    return out


def main():
    report = "--report" in sys.argv
    crates = [Crate(d, n) for d, n in workspace_crates()]
    names = {c.name for c in crates}
    broken = []

    for crate in crates:
        for module, code in crate.texts.items():
            for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", code):
                for path in expand_use_tree(m.group(1)):
                    head = path.split("::")[0].lstrip(":")
                    children = {c[-1] for c in crate.modules if c[:-1] == module and len(c) == len(module) + 1}
                    if head in names and head != crate.name and head not in children:
                        rel = crate.modules[module].relative_to(ROOT)
                        broken.append(f"re-export of another workspace crate: {rel}: pub use {path}")

    explain = "--edges" in sys.argv
    # Each crate's import graph, read once for the circles and the layers: (edges, why).
    graphs = {}
    for crate in crates:
        why = {}
        graphs[crate.name] = (module_edges(crate, why), why)
    for crate in crates:
        edges, why = graphs[crate.name]
        for component in cycles(edges):
            files = ", ".join(str(crate.modules[m].relative_to(ROOT)) for m in component)
            broken.append(f"import circle in {crate.directory} ({len(component)} files): {files}")
            if explain:
                inside = set(component)
                for (a, b), path in sorted(why.items()):
                    if a in inside and b in inside:
                        rel_a = crate.modules[a].relative_to(ROOT)
                        rel_b = crate.modules[b].relative_to(ROOT)
                        broken.append(f"    {rel_a} -> {rel_b}   ({path})")

    for crate in crates:
        bottom = BOTTOM_LAYERS.get(crate.name, set())
        edges, why = graphs[crate.name]
        for name in sorted(bottom):
            module = tuple(name.split("::"))
            if module not in crate.modules:
                broken.append(f"bottom layer of {crate.directory} names no module: {name}")
                continue
            for target in sorted(edges[module]):
                if "::".join(target) not in bottom:
                    rel = crate.modules[module].relative_to(ROOT)
                    broken.append(
                        f"bottom layer imports above it: {rel} -> "
                        f"{crate.modules[target].relative_to(ROOT)} ({why[(module, target)]})"
                    )

    for crate in crates:
        for module, code in crate.texts.items():
            rel = str(crate.modules[module].relative_to(ROOT))
            for name, line, length in long_functions(rel, code):
                if (rel, name) not in ALLOWED_LONG:
                    broken.append(f"function over {MAX_FUNCTION} lines: {rel}:{line} {name} ({length})")
            lines = crate.modules[module].read_text().count("\n")
            if lines > MAX_FILE:
                broken.append(f"file over {MAX_FILE} lines: {rel} ({lines})")

    for line in broken:
        print(line)
    if report or broken:
        total = sum(len(c.modules) for c in crates)
        print(f"{len(broken)} shape rules broken in {total} modules of {len(crates)} crates")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
