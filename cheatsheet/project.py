"""The project's settings, read once: where the pages, the snippets, the record and the generated
files are, and how long an example may run. The CLI, the pytest plugin and the site plugin all
read this one object; `[tool.cheatsheet]` in the project's pyproject.toml may change any of it.

    [tool.cheatsheet]
    docs = "docs"                # holds zh/ and en/
    snippets = "snippets"        # files that pages include (--8<--) and examples launch
    record = "verification"      # the verification record (cpu.csv, cuda.csv)
    generated = "generated"      # committed files the tools write (api-docs.csv)
    releases = ["2.14.1", "2.13.0"]  # the torch releases the project claims: each has a full record
    paired = ["torchvision"]     # pinned for the pin's torch only: another release is installed without them
    legs = { "2.15.0" = ["torchvision==0.29.2"] }  # the other releases the record holds, and what goes beside their torch
    timeout = 120                # seconds a Python example may run
    shell-timeout = 600          # seconds a shell example may run
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

# The repository this package is installed from (editable): the CLI's project.
REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Project:
    root: Path
    docs: Path
    snippets: Path
    record: Path
    generated: Path
    timeout: float = 120.0
    shell_timeout: float = 600.0
    releases: tuple[str, ...] = ()
    paired: tuple[str, ...] = ()
    legs: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (release, packages installed beside its torch)

    @property
    def pin(self) -> str:
        """The torch release requirements.txt pins ("" without one)."""
        requirements = self.root / "requirements.txt"
        text = requirements.read_text("utf-8") if requirements.is_file() else ""
        found = re.search(r"^torch==(\S+)", text, re.M)
        return found.group(1) if found else ""

    def lacking(self) -> dict[str, tuple[str, ...]]:
        """Per claimed release, the packages its install leaves out (`paired`, for every release but the
        pin): an example importing one is recorded `needs-package` there, not run."""
        beside = {release: {pin.split("==")[0] for pin in packages} for release, packages in self.legs}
        return {release: tuple(p for p in self.paired if p not in beside.get(release, ()))
                for release in self.releases if release != self.pin}

    @property
    def api_docs(self) -> Path:
        """Each entry's main API and its documentation page: a cache of what the installed torch
        resolves, committed because the site builds without torch."""
        return self.generated / "api-docs.csv"

    @classmethod
    def load(cls, root: Path) -> Project:
        root = Path(root).resolve()
        pyproject = root / "pyproject.toml"
        raw = tomllib.loads(pyproject.read_text("utf-8")) if pyproject.is_file() else {}
        settings = raw.get("tool", {}).get("cheatsheet", {})
        unknown = set(settings) - {"docs", "snippets", "record", "generated", "timeout", "shell-timeout", "releases",
                                  "paired", "legs"}
        if unknown:
            raise ValueError(f"{pyproject}: unknown [tool.cheatsheet] setting(s) {sorted(unknown)}")
        return cls(
            root=root,
            docs=root / settings.get("docs", "docs"),
            snippets=root / settings.get("snippets", "snippets"),
            record=root / settings.get("record", "verification"),
            generated=root / settings.get("generated", "generated"),
            timeout=float(settings.get("timeout", 120)),
            shell_timeout=float(settings.get("shell-timeout", 600)),
            releases=tuple(settings.get("releases", ())),
            paired=tuple(settings.get("paired", ())),
            legs=tuple((release, tuple(beside)) for release, beside in settings.get("legs", {}).items()),
        )

    def with_docs(self, docs: Path) -> Project:
        return replace(self, docs=Path(docs).resolve())


@cache
def repo() -> Project:
    """The settings of the repository the package is installed from."""
    return Project.load(REPO)
