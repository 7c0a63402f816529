"""The project's own set-up: one set of pins, and the README's commands are what CI runs."""

import re
import tomllib

from cheatsheet.project import repo

PROJECT = repo()


def groups() -> dict[str, list[str]]:
    raw = tomllib.loads((PROJECT.root / "pyproject.toml").read_text("utf-8"))["dependency-groups"]

    def expand(name):
        out = []
        for item in raw[name]:
            out += expand(item["include-group"]) if isinstance(item, dict) else [item]
        return out

    return {name: expand(name) for name in raw}


def requirement_lines() -> list[str]:
    lines = [line.split("#")[0].strip() for line in (PROJECT.root / "requirements.txt").read_text("utf-8").splitlines()]
    return [line for line in lines if line]


def test_requirements_txt_is_the_package_and_every_group_pinned_alike():
    everything = sorted({pin for pins in groups().values() for pin in pins})
    assert sorted(line for line in requirement_lines() if line != "-e .") == everything
    assert "-e ." in requirement_lines()
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[\w.]+", pin) for pin in everything), everything


def test_the_site_group_needs_no_torch():
    assert not [pin for pin in groups()["docs"] if pin.startswith(("torch", "numpy"))]


def test_readme_commands_are_what_ci_runs():
    readme = (PROJECT.root / "README.md").read_text("utf-8")
    serve = ("python3 -m venv .venv && .venv/bin/pip install -U pip && .venv/bin/pip install -e . --group docs "
             "&& .venv/bin/mkdocs serve")
    test = "python3 -m venv .venv && .venv/bin/pip install -r requirements.txt && .venv/bin/pytest"
    assert serve in readme and test in readme
    ci = (PROJECT.root / ".ci" / "run").read_text("utf-8")
    assert ".venv/bin/pytest" in ci and "requirements.txt" in (PROJECT.root / ".ci" / "setup").read_text("utf-8")


def test_ci_run_verifies_every_other_claimed_release_in_its_own_folder_beside_the_suite():
    """Beside the README's test command, .ci/run installs each claimed release other than the pin
    into .venv-RELEASE and runs every example there, checked against the committed record; the
    run fails if either fails."""
    ci = (PROJECT.root / ".ci" / "run").read_text("utf-8")
    leg = ci.index('VENV=".venv-$release" TORCH_VERSION="$release" .ci/setup pages')
    suite = ci.index(".venv/bin/pytest || status=$?")
    assert leg < suite and "repo().releases" in ci and ") >" in ci[leg:suite] and "&\n" in ci[leg:suite]
    assert '-m cheatsheet verify --device cpu --source ci --out "$part" --check-against verification' in ci[leg:]
    assert 'wait "${leg#*:}" || status=1' in ci[suite:] and ci.rstrip().endswith('exit "$status"')
    setup = (PROJECT.root / ".ci" / "setup").read_text("utf-8")
    assert 'venv="${VENV:-.venv}"' in setup and ".venv/bin" not in setup, "every install goes into $VENV"
    # another torch than the pin: the paired packages' pins, which go with torch's, are left out too
    assert """get("paired", [])""" in setup and 'grep -v "${skip[@]}" requirements.txt' in setup


def test_every_other_release_is_installed_without_the_paired_packages():
    """`paired` names pinned requirements (so the pin has them); .ci/setup leaves them out for any
    other release, which is what Project.lacking tells the record check."""
    project = repo()
    pinned = {line.split("==")[0] for line in (project.root / "requirements.txt").read_text().splitlines() if "==" in line}
    assert project.paired and set(project.paired) <= pinned
    assert project.pin in project.releases
    assert project.lacking() == {r: project.paired for r in project.releases if r != project.pin}
