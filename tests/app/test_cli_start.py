"""The command line builds only the named command's arguments: a command does not import
what only another one needs (the web server, the trainer), and every command still lists
and parses as before."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from commoncause.cli import SUBCOMMANDS, build_parser, main

HEAVY = ("fastapi", "commoncause.web.app", "commoncause.play", "commoncause.train.trainer")


def imported_after_parsing(argv: list[str]) -> set[str]:
    """The modules of ``HEAVY`` that building the parser for ``argv`` imports, in a fresh
    interpreter."""
    code = (
        "import sys; from commoncause.cli import build_parser; "
        f"build_parser({argv!r}); print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_eval_imports_neither_the_web_server_nor_the_trainer():
    assert imported_after_parsing(["eval", "--games", "2"]) == set()


def test_serve_still_builds_its_own_arguments():
    """The check above can fail: the command named gets its arguments (and their imports)."""
    assert "commoncause.web.app" in imported_after_parsing(["serve", "--port", "8001"])


def test_every_command_is_listed(capsys):
    assert main(["--help"]) == 0
    listed = re.findall(r"^    (\w+)(?= |$)", capsys.readouterr().out, re.M)
    assert listed == list(SUBCOMMANDS)


@pytest.mark.parametrize(
    ("argv", "attribute"),
    [
        (["eval", "--team", "baseline,random", "--games", "3"], "team"),
        (["train", "--config", "configs/smoke.yaml"], "config"),
        (["serve", "--port", "8123"], "port"),
    ],
)
def test_the_named_command_parses_its_options(argv, attribute):
    assert getattr(build_parser(argv).parse_args(argv), attribute) is not None
