"""What a lint reports on when asked about some files only: the files named (a pre-commit hook's staged files),
or those git sees changed since the last commit.

Every rule still reads the whole vault: whether a page is an orphan, a link broken or an entry missing from
index.md is known from all of it, and the caches are those of a whole run. Only the report is limited, to the
findings on those files. What a change does to another file (a link there to a page the commit deletes, a query
page whose cited page changed) is reported on that file, so it is not among them: a whole lint says it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Collection, Iterable
from dataclasses import replace
from pathlib import Path

from wikic.errors import UsageError
from wikic.lint.run import LintReport


def asked_about(root: Path, files: list[Path], changed: bool) -> tuple[str, ...] | None:
    """The files a lint's report is limited to: those named, and with `changed` those git sees changed since the
    last commit; None when neither was asked for (the whole vault's findings)."""
    if not files and not changed:
        return None
    return (*in_vault(root, files), *(changed_in_git(root) if changed else ()))


def in_vault(root: Path, paths: Iterable[Path]) -> tuple[str, ...]:
    """Each of `paths` (absolute, or relative to the current folder) as a path in the vault at `root`, in the
    order given, each once; a path outside the vault is left out: nothing there is linted."""
    base = Path(root).resolve()
    out: dict[str, None] = {}
    for path in paths:
        full = Path(os.path.abspath(path))  # not resolved: a link inside the vault names the link
        try:
            relative = full.relative_to(base)
        except ValueError:
            try:
                relative = full.resolve().relative_to(base)
            except (ValueError, OSError):
                continue
        if relative.parts and relative.parts[0] != "..":
            out[relative.as_posix()] = None
    return tuple(out)


def changed_in_git(root: Path) -> tuple[str, ...]:
    """The vault's files git sees changed since the last commit: staged, changed in the work tree, new or
    untracked (not ignored); renamed ones by their new name. Paths in the vault."""
    git = shutil.which("git")
    if git is None:
        raise UsageError("--changed asks git which files changed, and git is not installed",
                         hint="install git, or name the files: wikic lint --vault wiki wiki/entities/a.md")
    top = _git(git, root, "rev-parse", "--show-toplevel").strip()
    listed = _git(git, root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".")
    fields = listed.split("\0")
    paths: list[Path] = []
    i = 0
    while i < len(fields):
        entry = fields[i]
        i += 1
        if len(entry) < 4:
            continue
        if entry[0] in "RC":
            i += 1  # the name it had follows: the file is reported by its new one
        paths.append(Path(top) / entry[3:])  # porcelain paths are the repository's, whatever the folder
    return in_vault(root, paths)


def _git(git: str, root: Path, *args: str) -> str:
    try:
        done = subprocess.run([git, "-C", os.fspath(root), *args], capture_output=True, check=False,
                              encoding="utf-8", errors="surrogateescape", timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UsageError(f"--changed could not ask git which files changed: {exc}") from None
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise UsageError(f"--changed asks git which files changed, and git said: {said[0] if said else 'nothing'}",
                         hint=f"is {root} in a git repository? Or name the files: wikic lint --vault DIR FILE...")
    return done.stdout


def limited(report: LintReport, files: Collection[str]) -> LintReport:
    """`report` with only the findings on `files`."""
    wanted = set(files)
    return replace(report, findings=[f for f in report.findings if f.path in wanted],
                   reported_on=len(wanted))
