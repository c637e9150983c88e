#!/usr/bin/env python3
"""The shape the code keeps (issue 16), checked on every ./scripts/test run:

1. no file in crates/server/src is longer than 600 lines;
2. no SQL outside the `store` crate's source: no sqlx query calls and no SQL statements in the
   production code of any other crate (tests and benchmark programs may query to check);
3. no import circles between the modules of a crate: for each module, its child modules may use
   one another only one way round (a child using its parent's items, or a parent its child's,
   is not a circle);
4. mail is queued only through `crates/server/src/outbox/post.rs` (`post_letter` and its
   kin), which takes letters composed in `letters`: no other production code of the server
   calls the store's `outbox::enqueue*` or stores a shared body itself;
5. routes only route (issue 26): the production code under `crates/server/src/routes` begins
   no transaction (`.begin(`), takes no database connection (`.acquire(`), writes no audit
   entry (`audit::append(`) and calls no `store` function, whether by its path
   (`store::zines::list(`, `store::ping(`) or through a name imported from `store` (a module,
   `{self}`, a function, or any of them renamed with `as`). It reads views through
   `crate::views` and acts through the services; the store's types, their constructors and
   methods (`ZineSlug::parse(`) are allowed. Comments and `#[cfg(test)]` modules are not
   checked.
6. no function in the production code of `crates/server/src` is longer than 80 lines (issue
   26): a longer one is split into named steps.

Prints each breach and exits 1 if there is any.
"""

import re
import sys
from pathlib import Path

ROOT = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
MAX_SERVER_LINES = 600

SQL_CALL = re.compile(r"\bsqlx::(query|query_as|query_scalar|query_with|raw_sql)\b|\bquery(_as|_scalar)?!\s*\(")
SQL_TEXT = re.compile(
    r'"\s*(SELECT\s+[\w*(]|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|WITH\s+\w+\s+AS\s*\(|'
    r"CREATE\s+(TABLE|INDEX)\s|ALTER\s+TABLE\s|SET\s+LOCAL\s)",
    re.IGNORECASE,
)


def production_text(path: Path) -> str:
    """The file's text up to its first `#[cfg(test)]` (test modules come last by convention)."""
    text = path.read_text(encoding="utf-8")
    cut = text.find("#[cfg(test)]")
    return text if cut < 0 else text[:cut]


def strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*", "", text)


def check_lengths(problems: list) -> None:
    for path in sorted((ROOT / "crates/server/src").rglob("*.rs")):
        lines = path.read_text(encoding="utf-8").count("\n")
        if lines > MAX_SERVER_LINES:
            problems.append(
                f"{path.relative_to(ROOT)}: {lines} lines (at most {MAX_SERVER_LINES} in server/src)"
            )


def check_sql(problems: list) -> None:
    for crate in sorted((ROOT / "crates").iterdir()):
        if crate.name == "store" or not (crate / "src").is_dir():
            continue
        for path in sorted((crate / "src").rglob("*.rs")):
            text = strip_comments(production_text(path))
            for number, line in enumerate(text.splitlines(), start=1):
                if SQL_CALL.search(line) or SQL_TEXT.search(line):
                    problems.append(
                        f"{path.relative_to(ROOT)}:{number}: SQL outside store: {line.strip()}"
                    )


MAIL_POST = Path("crates/server/src/outbox/post.rs")
ENQUEUE = re.compile(r"\boutbox::(enqueue\w*|insert_shared_body)\s*\(")


def check_mail(problems: list) -> None:
    for path in sorted((ROOT / "crates/server/src").rglob("*.rs")):
        if path.relative_to(ROOT) == MAIL_POST:
            continue
        text = strip_comments(production_text(path))
        for number, line in enumerate(text.splitlines(), start=1):
            if ENQUEUE.search(line):
                problems.append(
                    f"{path.relative_to(ROOT)}:{number}: mail queued outside {MAIL_POST} "
                    f"(compose it in letters, queue it with outbox::post): {line.strip()}"
                )


ROUTES = Path("crates/server/src/routes")
CHAR_LITERAL = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]{1,6}\}|.)|[^\\'\n])'")


def blank_comments_and_strings(text: str) -> str:
    """`text` with its comments and the insides of its string and character literals made
    spaces, its lines kept where they were (so that a match's line number is its line)."""
    out, index, length = [], 0, len(text)

    def blank(part: str) -> str:
        return re.sub(r"[^\n]", " ", part)

    while index < length:
        char = text[index]
        if text.startswith("//", index):
            end = text.find("\n", index)
            end = length if end < 0 else end
            out.append(blank(text[index:end]))
            index = end
        elif text.startswith("/*", index):
            depth, end = 1, index + 2
            while end < length and depth:
                if text.startswith("/*", end):
                    depth, end = depth + 1, end + 2
                elif text.startswith("*/", end):
                    depth, end = depth - 1, end + 2
                else:
                    end += 1
            out.append(blank(text[index:end]))
            index = end
        elif re.match(r'b?r#*"', text[index:index + 260]) and (
            index == 0 or not (text[index - 1].isalnum() or text[index - 1] == "_")
        ):
            opening = re.match(r'b?r(#*)"', text[index:]) or re.match(r'b?(#*)"', text[index:])
            hashes = opening.group(1)
            start = index + opening.end()
            end = text.find('"' + hashes, start)
            end = length if end < 0 else end + 1 + len(hashes)
            out.append(text[index:start] + blank(text[start:end]))
            index = end
        elif char == '"':
            end = index + 1
            while end < length and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append('"' + blank(text[index + 1 : end]) + '"')
            index = end + 1
        elif char == "'" and CHAR_LITERAL.match(text, index):
            end = CHAR_LITERAL.match(text, index).end()
            out.append("'" + blank(text[index + 1 : end - 1]) + "'")
            index = end
        else:
            out.append(char)
            index += 1
    return "".join(out)


def blank_test_modules(text: str) -> str:
    """`text` (comments and strings already blank) with each `#[cfg(test)]` module made spaces."""
    for found in list(re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", text)):
        depth, end = 1, found.end()
        while end < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            end += 1
        text = text[: found.start()] + re.sub(r"[^\n]", " ", text[found.start() : end]) + text[end:]
    return text


def store_imports(code: str) -> tuple:
    """What a file's `use store::...` statements bring in: the module names (a module of
    `store` itself, `{self}`, renamed or not) and the function names (lower-case items that
    are not modules we know of are taken for functions), each with its path in `store`."""
    modules, functions = {}, {}
    for statement in re.findall(r"\buse\s+(?:::)?(store\b[^;]*);", code):
        for path in expand_use(statement):
            path, _, alias = path.partition(" as ")
            parts = [p for p in path.split("::") if p]
            if parts and parts[-1] == "self":
                parts.pop()
            name = alias or parts[-1]
            if len(parts) < 2 or not parts[-1][:1].islower() or name == "_":
                continue  # `store` itself, a type, a constant or a trait
            if len(parts) == 2:
                modules[name] = "::".join(parts)
            else:
                # `store::m::x`: a submodule or a function; both are breaches when called.
                functions[name] = "::".join(parts)
                modules[name] = "::".join(parts)
    return modules, functions


def called_path(segments: list) -> bool:
    """Whether `a::b::c(` calls a function of a module (every segment lower-case), rather than
    an associated function or a variant of a type (`ZineSlug::parse(`, `Status::Open(`)."""
    return all(s[:1].islower() or s[:1] == "_" for s in segments)


def route_breaches(text: str) -> list:
    """(line number, reason) for each breach of "routes only route" in a route file's text."""
    code = blank_test_modules(blank_comments_and_strings(text))
    modules, functions = store_imports(code)
    found = []
    lines = code.splitlines()
    turbofish = r"(?:::<[^;{}]*?>)?"
    for number, line in enumerate(lines, start=1):
        if re.match(r"\s*(pub(\([^)]*\))?\s+)?use\s", line):
            continue
        reasons = []
        if re.search(r"\.\s*begin\s*\(", line):
            reasons.append("a route begins a transaction")
        if re.search(r"\.\s*acquire\s*\(", line):
            reasons.append("a route takes a database connection")
        called = []
        for match in re.finditer(r"(?<![\w:])store((?:::\w+)+)" + turbofish + r"\s*\(", line):
            segments = [s for s in match.group(1).split("::") if s]
            if called_path(segments):
                called.append("::".join(segments))
        for match in re.finditer(r"(?<![\w:.])(\w+)((?:::\w+)+)" + turbofish + r"\s*\(", line):
            if match.group(1) in modules:
                segments = [s for s in match.group(2).split("::") if s]
                if called_path(segments):
                    called.append(modules[match.group(1)].removeprefix("store::") + "::" + "::".join(segments))
        for match in re.finditer(r"(?<![\w:.])(\w+)" + turbofish + r"\s*\(", line):
            if match.group(1) in functions:
                called.append(functions[match.group(1)].removeprefix("store::"))
        if re.search(r"(?<![\w.])(?:\w+::)*audit::append\s*\(", line) or "audit::append" in called:
            reasons.append("a route writes the audit log")
        for path in called:
            if path != "audit::append":
                reasons.append(f"a route calls the store (store::{path})")
        found.extend((number, reason) for reason in dict.fromkeys(reasons))
    return found


def check_routes(problems: list) -> None:
    for path in sorted((ROOT / ROUTES).rglob("*.rs")):
        text = path.read_text(encoding="utf-8")
        original = text.splitlines()
        for number, reason in route_breaches(text):
            problems.append(
                f"{path.relative_to(ROOT)}:{number}: {reason}: {original[number - 1].strip()}"
            )


def module_of(src: Path, path: Path) -> tuple:
    """`src/a/b.rs` and `src/a/b/mod.rs` are ('a', 'b'); lib.rs and main.rs are ()."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts and parts[-1] == "mod":
        parts.pop()
    if parts in (["lib"], ["main"]):
        return ()
    return tuple(parts)


def expand_use(tree: str) -> list:
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e']; a renamed item keeps its new name
    after a space: `a::{b as c}` -> ['a::b as c']."""
    tree = re.sub(r"\s+as\s+", "\0", tree)
    tree = re.sub(r"\s+", "", tree).replace("\0", " as ")
    brace = tree.find("{")
    if brace < 0:
        return [tree]
    prefix, inner = tree[:brace], tree[brace + 1 : tree.rfind("}")]
    items, depth, start = [], 0, 0
    for index, char in enumerate(inner):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(inner[start:index])
            start = index + 1
    items.append(inner[start:])
    out = []
    for item in items:
        if item:
            out.extend(prefix + path for path in expand_use(item))
    return out


def references(text: str, here: tuple) -> set:
    """Absolute module paths this module's code names (crate::, super::, self:: paths)."""
    text = strip_comments(text)
    paths = []
    for statement in re.findall(r"\buse\s+([^;]+);", text):
        paths.extend(expand_use(statement))
    paths.extend(re.findall(r"\b(?:crate|super|self)(?:::\w+)+", text))
    found = set()
    for path in paths:
        parts = [p for p in re.split(r"::", path.split(" as ")[0]) if p]
        if not parts:
            continue
        if parts[0] == "crate":
            absolute = parts[1:]
        elif parts[0] in ("super", "self"):
            base = list(here)
            while parts and parts[0] in ("super", "self"):
                if parts.pop(0) == "super" and base:
                    base.pop()
            absolute = base + parts
        else:
            continue
        found.add(tuple(absolute))
    return found


def strongly_connected(graph: dict) -> list:
    """Tarjan's algorithm: the components with more than one node."""
    index, low, stack, on_stack, result = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                result.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return result


def check_circles(problems: list) -> None:
    for crate in sorted((ROOT / "crates").iterdir()):
        src = crate / "src"
        if not src.is_dir():
            continue
        modules = {}
        for path in src.rglob("*.rs"):
            modules[module_of(src, path)] = path
        known = set(modules)
        # Edges between siblings: module -> the modules of its parent it uses.
        siblings = {}
        for module, path in modules.items():
            for target in references(production_text(path), module):
                while target and target not in known:
                    target = target[:-1]
                if not target or target == module:
                    continue
                common = 0
                while (
                    common < min(len(module), len(target))
                    and module[common] == target[common]
                ):
                    common += 1
                if common == len(module) or common == len(target):
                    continue  # a parent and its descendant
                parent = module[:common]
                edge_from, edge_to = module[: common + 1], target[: common + 1]
                siblings.setdefault(parent, {}).setdefault(edge_from, set()).add(edge_to)
        for parent, graph in sorted(siblings.items()):
            for component in strongly_connected(graph):
                names = ", ".join("::".join(m) for m in component)
                where = "::".join(parent) or "the crate root"
                problems.append(f"crates/{crate.name}: modules of {where} import one another in a circle: {names}")


MAX_FUNCTION_LINES = 80
FN_START = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?fn\s+(\w+)")


def function_lengths(text: str):
    """(name, first line, lines) of each function in `text`, counted by its braces."""
    lines = text.split("\n")
    for start, line in enumerate(lines):
        found = FN_START.match(line)
        if not found:
            continue
        depth, opened = 0, False
        for end in range(start, len(lines)):
            code = re.sub(r'"(\\.|[^"\\])*"', '""', lines[end])
            code = re.sub(r"'(\\.|[^'\\])'", "''", code).split("//")[0]
            if not opened and depth == 0 and code.rstrip().endswith(";"):
                break  # a declaration without a body
            depth += code.count("{") - code.count("}")
            opened = opened or "{" in code
            if opened and depth <= 0:
                yield found.group(5), start + 1, end - start + 1
                break


def check_functions(problems: list) -> None:
    for path in sorted((ROOT / "crates/server/src").rglob("*.rs")):
        for name, line, length in function_lengths(production_text(path)):
            if length > MAX_FUNCTION_LINES:
                problems.append(
                    f"{path.relative_to(ROOT)}:{line}: fn {name} is {length} lines (at most "
                    f"{MAX_FUNCTION_LINES} in server/src: split it into named steps)"
                )


def main() -> int:
    problems = []
    check_lengths(problems)
    check_sql(problems)
    check_circles(problems)
    check_mail(problems)
    check_routes(problems)
    check_functions(problems)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"structure: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(
        "structure: server files within 600 lines, no SQL outside store, no import circles, "
        "mail queued only through outbox::post, routes only route, server functions within 80 lines"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
