"""MkDocs hook: the environment pages are built from the env modules' own docstrings.

One source: the spec docstring of ``envs/<game>/<game>.py`` (agents, actions, observations,
rewards, arguments, version history) and the field table of ``envs/<game>/observer.py`` are
rendered into a page wherever it says ``<!-- spec: <game> -->``; each game's
``readings.md`` and the project's ``CHANGELOG.md`` become pages of their own. The docstrings
are read with ``ast`` (nothing is imported), and ``tests/app/test_docs.py`` checks the tables
against the environments themselves.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("common_cause", "dummy_rummy", "open_rummy")
SPEC = re.compile(r"<!-- spec: (\w+) -->")
# "0 draw stock, 1 draw discard, 2-54 discard a card type, ..., 55 / 56 cut in / pass"
ACTION_ITEM = re.compile(r"(\d+)(?:-(\d+)| / (\d+))? (.+)", re.S)


def _module(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def docstring(game: str, module: str | None = None) -> str:
    """The docstring of ``envs/<game>/<module>.py`` (the spec module by default)."""
    return ast.get_docstring(_module(ROOT / "envs" / game / f"{module or game}.py")) or ""


def constant(game: str, module: str, name: str):
    """A literal module-level constant of ``envs/<game>/<module>.py`` (e.g. ``SCALARS``)."""
    for node in _module(ROOT / "envs" / game / f"{module}.py").body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise KeyError(f"{name} not in envs/{game}/{module}.py")


def sections(text: str) -> dict[str, str]:
    """A docstring's RST sections (a title underlined with ``=``) by title; "" is the intro."""
    out: dict[str, list[str]] = {"": []}
    title = ""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and re.fullmatch(r"=+", nxt.strip()) and len(nxt.strip()) == len(
            line.strip()
        ):
            title = line.strip()
            out[title] = []
            i += 2
            continue
        out[title].append(line)
        i += 1
    return {k: "\n".join(v).strip() for k, v in out.items()}


def rst_tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """The RST simple tables in ``text``: (header, rows), continuation lines joined."""
    lines = text.splitlines()
    borders = [i for i, line in enumerate(lines) if re.fullmatch(r"=+( +=+)+", line.strip())]
    tables = []
    for first, second, last in zip(borders[::3], borders[1::3], borders[2::3], strict=False):
        spans = [m.span() for m in re.finditer(r"=+", lines[first])]

        def cells(line: str, spans=spans) -> list[str]:
            cut = [line[a : (b if k < len(spans) - 1 else None)] for k, (a, b) in enumerate(spans)]
            return [c.strip() for c in cut]

        header = cells(lines[first + 1])
        rows: list[list[str]] = []
        for line in lines[second + 1 : last]:
            row = cells(line)
            if row[0] or not rows:
                rows.append(row)
            else:
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], row, strict=True)]
        tables.append((header, rows))
    return tables


def action_ranges(game: str) -> list[tuple[int, int, str]]:
    """The named id ranges of the spec's *Actions* section: (first id, last id, what)."""
    text = " ".join(sections(docstring(game))["Actions"].split())
    listing = text.split("): ", 1)[1]
    listing = re.split(r"\.(?: |$)", listing, maxsplit=1)[0]
    ranges = []
    for item in re.split(r", (?=\d)", listing):
        m = ACTION_ITEM.fullmatch(item.strip())
        if not m:
            raise ValueError(f"unreadable action range {item!r} in envs/{game}/{game}.py")
        first = int(m[1])
        last = int(m[2] or m[3] or m[1])
        ranges.append((first, last, m[4].strip()))
    return ranges


def _md(text: str, game: str = "") -> str:
    """RST inline markup to Markdown: ``code`` to `code`; "reading 9" links to the reading."""
    text = re.sub(r"``(.+?)``", r"`\1`", text, flags=re.S)
    if game:
        text = re.sub(
            r"\breading (\d+)\b", rf"[reading \1](../rules/{game}_readings.md#reading-\1)", text
        )
    return text


def _table(header: list[str], rows: list[list[str]]) -> str:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(_md(c).replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), "|" + "---|" * len(header), *map(line, rows)])


def _prose(text: str, game: str) -> str:
    """A section's text with its RST tables as Markdown tables."""
    lines = text.splitlines()
    borders = [i for i, line in enumerate(lines) if re.fullmatch(r"=+( +=+)+", line.strip())]
    if not borders:
        return _md(text, game)
    tables = iter(rst_tables(text))
    out, i = [], 0
    for first, last in zip(borders[::3], borders[2::3], strict=False):
        out.append(_md("\n".join(lines[i:first]), game))
        out.append("\n" + _table(*next(tables)) + "\n")
        i = last + 1
    out.append(_md("\n".join(lines[i:]), game))
    return "\n".join(out)


def observation_fields(game: str) -> list[tuple[str, str, str]]:
    """The rows (field, size, meaning) of ``envs/<game>/observer.py``'s field table."""
    tables = rst_tables(docstring(game, "observer"))
    return [tuple(row) for row in tables[0][1]]


def spec_markdown(game: str) -> str:
    """The env page's reference part, from the docstrings of the env and its observer."""
    parts = sections(docstring(game))
    actions = "\n".join(
        f"| {a}" + (f"-{b}" if b != a else "") + f" | {_md(what)} |"
        for a, b, what in action_ranges(game)
    )
    scalars = "\n".join(f"{k}. {s}" for k, s in enumerate(constant(game, "observer", "SCALARS")))
    fields = _table(["field", "size", "meaning"], [list(r) for r in observation_fields(game)])
    observer_intro = _md(sections(docstring(game, "observer"))[""].split("\n\n=")[0])
    observer_intro = re.split(r"\n=+ ", observer_intro)[0].strip()
    return "\n\n".join(
        [
            f"*Rendered from the docstrings of `envs/{game}/{game}.py` and "
            f"`envs/{game}/observer.py`.*",
            "## Agents",
            _prose(parts["Agents"], game),
            "## Actions",
            _prose(parts["Actions"], game),
            "| ids | action |\n|---|---|\n" + actions,
            "## Observations",
            _prose(parts["Observations"], game),
            "### Observation fields",
            observer_intro,
            fields,
            "The scalars, in order:\n\n" + scalars,
            "## Rewards",
            _prose(parts["Rewards"], game),
            "## Arguments",
            _prose(parts["Arguments"], game),
            "## Version history",
            _prose(parts["Version history"], game),
        ]
    )


def readings_markdown(game: str) -> str:
    """``envs/<game>/readings.md`` with an anchor per reading (``#reading-<n>``)."""
    text = (ROOT / "envs" / game / "readings.md").read_text(encoding="utf-8")
    text = re.sub(r"\breading (\d+)\b", r"[reading \1](#reading-\1)", text)
    return re.sub(r"^(\d+)\. ", r'\1. <a id="reading-\1"></a>', text, flags=re.M)


def on_files(files, config):
    """Add each game's readings and the changelog as pages built from their sources."""
    from mkdocs.structure.files import File

    for game in GAMES:
        files.append(
            File.generated(config, f"rules/{game}_readings.md", content=readings_markdown(game))
        )
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "changelog.md", content=changelog))
    return files


def on_page_markdown(markdown: str, page, config, files):
    """Expand ``<!-- spec: <game> -->`` into the game's reference tables."""
    return SPEC.sub(lambda m: spec_markdown(m[1]), markdown)
