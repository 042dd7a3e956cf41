"""The README and the documentation site: it builds strictly and offline, its env pages
match the environments, every reading is linked from the rules, and every code block runs.

Code blocks: a ``python`` block always runs; an ``sh`` block runs (from the repository root,
``.venv/bin`` first on the PATH) unless the line before it is ``<!-- skip: reason -->``; a
``console`` block is shown, not run, but each ``commoncause`` command in it (and in the
skipped blocks) must parse with the CLI's own parser.
"""

from __future__ import annotations

import importlib
import math
import os
import re
import shlex
import subprocess
import sys
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "hooks"))
import specs  # noqa: E402  (the mkdocs hook that renders the env pages)

MKDOCS = ROOT / ".venv" / "bin" / "mkdocs"
FENCE = re.compile(r"^```(\S*)\s*$")
SKIP = re.compile(r"^<!-- skip: (.+) -->$")
RUN_LANGS = {"python", "sh"}
SHOWN_LANGS = {"console", "text", "json", "yaml"}


def markdown_files() -> list[Path]:
    pages = [p for p in DOCS.rglob("*.md") if "hooks" not in p.parts]
    return [ROOT / "README.md", *sorted(pages)]


def code_blocks(path: Path) -> list[tuple[int, str, str, str | None]]:
    """(line, language, code, skip reason) of every fenced block of a Markdown file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, m[1]
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        before = lines[start - 1].strip() if start else ""
        skip = SKIP.match(before)
        blocks.append((start + 1, lang, "\n".join(lines[start + 1 : end]), skip and skip[1]))
        i = end + 1
    return blocks


def all_blocks():
    for path in markdown_files():
        for line, lang, code, skip in code_blocks(path):
            yield pytest.param(path, line, lang, code, skip, id=f"{path.relative_to(ROOT)}:{line}")


RUNNABLE = [p for p in all_blocks() if p.values[2] in RUN_LANGS and not p.values[4]]
SHOWN = [p for p in all_blocks() if p not in RUNNABLE]


@pytest.mark.parametrize("path, line, lang, code, skip", list(all_blocks()))
def test_every_block_is_marked(path, line, lang, code, skip):
    """A block says what it is: run (python, sh) or shown (console, text, json, yaml); a
    python block is never skipped."""
    assert lang in RUN_LANGS | SHOWN_LANGS, f"block language {lang!r}: use sh or console"
    assert not (lang == "python" and skip), "a python block always runs"


@pytest.mark.parametrize("path, line, lang, code, skip", RUNNABLE)
def test_block_runs(path, line, lang, code, skip, tmp_path):
    if not (ROOT / ".venv" / "bin" / "commoncause").exists():
        pytest.skip("needs the project's .venv (make install)")
    env = {**os.environ, "PATH": f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}",
           "TMPDIR": str(tmp_path), "MPLBACKEND": "Agg"}  # fmt: skip
    if lang == "python":
        cmd = [str(ROOT / ".venv" / "bin" / "python"), "-c", code]
    else:
        cmd = ["bash", "-e", "-o", "pipefail", "-c", code]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{path.name}:{line} failed:\n{done.stdout}\n{done.stderr}"
    assert done.stdout.strip(), "a block shows something"


def commoncause_commands(code: str) -> list[list[str]]:
    """The argument lists of the ``commoncause`` commands in a shown block."""
    text = code.replace("\\\n", " ")
    commands = []
    for raw in text.splitlines():
        line = raw.strip().removeprefix("$ ")
        m = re.match(r"(?:\S*/)?commoncause\s+(.*)", line)
        if not m or line.startswith("#"):
            continue
        args = re.sub(r"\s+#.*$", "", m[1])
        args = re.sub(r"\[[^\]]*\]", "", args)  # [--total-steps N]: optional placeholders
        args = args.split("|")[0]  # a pipe into tail
        commands.append(shlex.split(args))
    return commands


SHOWN_COMMANDS = [
    pytest.param(args, id=f"{p.values[0].name}:{p.values[1]}:{args[0]}")
    for p in SHOWN
    for args in commoncause_commands(p.values[3])
]


@pytest.mark.parametrize("args", SHOWN_COMMANDS)
def test_shown_command_parses(args, monkeypatch, capsys):
    """A command that is shown, not run, still names a real subcommand and real flags."""
    cli = importlib.import_module("commoncause.cli")
    monkeypatch.setattr(sys, "argv", ["commoncause", *args])  # game options follow --game
    try:
        cli.build_parser().parse_args(args)
    except SystemExit:
        pytest.fail(f"commoncause {' '.join(args)}: {capsys.readouterr().err.strip()}")


def test_shown_commands_are_found():
    """The parse check above sees the shown commands (the extractor is not blind)."""
    subcommands = {args[0] for args in (p.values[0] for p in SHOWN_COMMANDS)}
    assert {"train", "eval", "play", "analyze", "serve", "calibrate", "replay"} <= subcommands


def test_readme_is_a_front_door():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    first = code_blocks(ROOT / "README.md")[0]
    assert first[2] == "make train\nmake test"
    python = [b for b in code_blocks(ROOT / "README.md") if b[1] == "python"]
    assert {re.search(r"envs\.(\w+) import env", b[2])[1] for b in python} == set(specs.GAMES)
    for game in specs.GAMES:
        assert f"docs/games/{game}.md" in text and f"docs/results/{game}.md" in text


@pytest.mark.parametrize("game", specs.GAMES)
def test_action_ranges_match_the_env(game):
    """The spec's named id ranges cover the env's action space exactly, in order."""
    env = importlib.import_module(f"envs.{game}.{game}").raw_env()
    n = env.action_space(env.possible_agents[0]).n
    ranges = specs.action_ranges(game)
    assert ranges[0][0] == 0 and ranges[-1][1] == n - 1
    for (_, last, _), (first, _, _) in zip(ranges, ranges[1:], strict=False):
        assert first == last + 1
    spec = specs.sections(specs.docstring(game))
    assert f"Discrete({n})" in spec["Actions"]
    obs = env.observation_space(env.possible_agents[0])["observation"].shape[0]
    assert f"Box(0, 1, ({obs},), float32)" in spec["Observations"]
    assert f"Box(0, 1, ({n},), int8)" in spec["Observations"]


@pytest.mark.parametrize("game", specs.GAMES)
def test_observation_table_matches_the_observer(game):
    """The observer's field table names its FIELDS, in order, with their sizes."""
    observer = importlib.import_module(f"envs.{game}.observer")
    rows = specs.observation_fields(game)
    sizes = [math.prod(int(k) for k in size.split(" x ")) for _, size, _ in rows]  # "12 x 47"
    assert [(name, size) for (name, _, _), size in zip(rows, sizes, strict=True)] == list(
        observer.FIELDS
    )
    assert len(specs.constant(game, "observer", "SCALARS")) == dict(observer.FIELDS)["scalars"]


@pytest.mark.parametrize("game", specs.GAMES)
def test_every_reading_is_linked_from_the_rules(game):
    readings = (ROOT / "envs" / game / "readings.md").read_text(encoding="utf-8")
    numbers = {int(n) for n in re.findall(r"^(\d+)\. ", readings, flags=re.M)}
    rules = (DOCS / "rules" / f"{game}.md").read_text(encoding="utf-8")
    linked = {int(n) for n in re.findall(rf"\({game}_readings\.md#reading-(\d+)\)", rules)}
    assert numbers and numbers == linked


def test_version_has_a_changelog_entry():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d\d-\d\d$", changelog, flags=re.M)
    assert released and released[0] == version


class _Resources(HTMLParser):
    """The URLs an HTML page loads: scripts, stylesheets, fonts, images, frames."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "img", "iframe", "source") and a.get("src"):
            self.urls.append(a["src"])
        if tag == "link" and a.get("href") and set((a.get("rel") or "").split()) & {
            "stylesheet", "preload", "preconnect", "icon", "modulepreload", "prefetch"
        }:  # fmt: skip
            self.urls.append(a["href"])


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    if not MKDOCS.exists():
        pytest.skip("mkdocs is not installed (pip install -e '.[dev]')")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [str(MKDOCS), "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_site_loads_nothing_from_the_network(site):
    pages = list(site.rglob("*.html"))
    assert len(pages) > 20
    for page in pages:
        parser = _Resources()
        parser.feed(page.read_text(encoding="utf-8"))
        remote = [u for u in parser.urls if re.match(r"(https?:)?//", u)]
        assert not remote, f"{page.relative_to(site)} loads {remote}"
    for css in site.rglob("*.css"):
        text = css.read_text(encoding="utf-8")
        remote = re.findall(r"(?:url\(\s*['\"]?|@import\s+['\"])((?:https?:)?//[^'\")\s]+)", text)
        assert not remote, f"{css.relative_to(site)} loads {remote}"


@pytest.mark.parametrize("game", specs.GAMES)
def test_env_page_shows_the_spec(site, game):
    html = (site / "games" / f"{game}.html").read_text(encoding="utf-8")
    for first, last, _ in specs.action_ranges(game):
        cell = str(first) if first == last else f"{first}-{last}"
        assert f"<td>{cell}</td>" in html
    for name, _, _ in specs.observation_fields(game):
        assert f"<td>{name}</td>" in html
    assert "Version history" in html and f"{game}_v0" in html


def test_api_reference_is_rendered(site):
    for module, name in [("envs", "RummyEnv"), ("agents", "PolicyAgent"), ("train", "TrainConfig")]:
        html = (site / "api" / f"{module}.html").read_text(encoding="utf-8")
        assert f'id="{module}.' in html and name in html


def test_make_docs_builds_into_site():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^docs: .*\n\t.*mkdocs build --strict", makefile, flags=re.M)
    assert "site/" in (ROOT / ".gitignore").read_text().split()
