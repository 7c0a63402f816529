"""The harness itself: run it on a small page and check each guarantee fails when broken."""

import re
import subprocess
import sys
import textwrap

import pytest
from entry_format import ROOT

PAGE = '''
# Harness self-test

### Output matches { #good-output }

```python
x = 1
```

- 助记：x.
- 使用前提：none.

**解释性示例：**

```python
print(1 + 1)
#> 2
```

### Output does not match { #wrong-output }

```python
x = 1
```

- 助记：x.
- 使用前提：none.

**解释性示例：**

```python
print("actual line")
#> expected line
```

### Deprecated call fails { #deprecated-call }

```python
x = 1
```

- 助记：x.
- 使用前提：none.

**解释性示例：**

```python
import torch

scaler = torch.cuda.amp.GradScaler(enabled=False)
print("unreachable")
#> unreachable
```

### Runs in a temporary directory and leaves state behind { #leaves-state }

```python
x = 1
```

- 助记：x.
- 使用前提：none.

**解释性示例：**

```python
import os
import torch

leaked = "from the previous example"
torch.set_default_dtype(torch.float64)
open("scratch.txt", "w").close()
print(os.path.basename(os.getcwd()).startswith("example-"))
#> True
```

### Sees a fresh namespace and default torch state { #fresh-state }

```python
x = 1
```

- 助记：x.
- 使用前提：none.

**解释性示例：**

```python
import os
import torch

print("leaked" in globals(), os.path.exists("scratch.txt"), torch.get_default_dtype())
#> False False torch.float32
```

### CPU run sees no GPU { #cpu-run-hides-gpu }

```python
x = 1
```

- 助记：x.
- 使用前提：none.

**解释性示例：**

```python
import torch

print(torch.cuda.is_available(), torch.accelerator.is_available())
#cpu> False False
#cuda> True True
```

### CUDA-only example { #cuda-only }

```python
x = 1
```

- 助记：x.
- 使用前提：none.

**解释性示例：**

```{.python requires-cuda}
import torch

print(torch.ones(1, device="cuda").device.type)
#> cuda
```

### Hangs { #hangs }

```python
x = 1
```

- 助记：x.
- 使用前提：none.

**解释性示例：**

```python
import time

time.sleep(30)
```

### Code line uses a missing name { #bad-code-line }

```python
torch.no_such_function()
```

- 助记：x.
- 使用前提：none.

**解释性示例：**

```python
print("ok")
#> ok
```
'''


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One pytest run, in a subprocess, over PAGE; returns its report."""
    pytester_dir = tmp_path_factory.mktemp("harness")
    page = pytester_dir / "docs" / "zh" / "page.md"
    page.parent.mkdir(parents=True)
    page.write_text(textwrap.dedent(PAGE), "utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", str(page), "-p", "tests.harness", "--markdown-docs",
         "--markdown-docs-syntax=superfences", "-rA", "-p", "no:cacheprovider", "--timeout=5",
         "-c", "/dev/null", "--rootdir", str(pytester_dir)],
        cwd=ROOT, capture_output=True, text=True,
    )
    return proc.stdout + proc.stderr


def outcome(output: str, test: str) -> str:
    """PASSED / FAILED / ERROR for one test, read off the -rA summary."""
    for line in output.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("PASSED", "FAILED", "ERROR") and rest.split(" ")[0].endswith(f"::{test}"):
            return word
    raise AssertionError(f"{test} not in the report:\n{output}")


def test_matching_output_passes(run):
    assert outcome(run, "good-output[cpu]") == "PASSED"


def test_wrong_output_fails_with_expected_and_actual(run):
    assert outcome(run, "wrong-output[cpu]") == "FAILED"
    assert re.search(r"docs/zh/page\.md:\d+: \[wrong-output\] example on cpu: printed output differs", run)
    assert "-expected line" in run and "+actual line" in run


def test_deprecation_warning_fails_the_example(run):
    assert outcome(run, "deprecated-call[cpu]") == "FAILED"
    assert "FutureWarning" in run


def test_examples_are_isolated(run):
    assert outcome(run, "leaves-state[cpu]") == "PASSED"
    assert outcome(run, "fresh-state[cpu]") == "PASSED"


def test_cpu_run_takes_the_cpu_path(run):
    assert outcome(run, "cpu-run-hides-gpu[cpu]") == "PASSED"


def test_cuda_only_example_is_skipped_on_cpu_with_reason(run):
    lines = [line for line in run.splitlines() if line.startswith("SKIPPED")]
    assert any("requires-cuda" in line for line in lines), lines


def test_timeout_fails_a_hanging_example(run):
    assert outcome(run, "hangs[cpu]") == "FAILED"
    assert "Timeout" in run


def test_code_line_names_are_checked(run):
    assert outcome(run, "bad-code-line[code-line]") == "FAILED"
    assert "CODE002 `torch.no_such_function` does not exist" in run
