"""`<!-- verification-summary -->` on a page becomes what the verification record holds
(cheatsheet.model.record.summary: the entries by verdict, per torch release and device), so the
site never claims more than the record shows: one line per release and device with rows, counting
only the rows that vouch for the examples as they are now, and one line for CUDA while no release
has a GPU run."""

from __future__ import annotations

from collections.abc import Mapping

from cheatsheet.model.devices import DEVICES
from cheatsheet.model.record import version_key

MARKER = "<!-- verification-summary -->"


def render(figures: Mapping[tuple[str, str], Mapping], strings: Mapping[str, str]) -> str:
    """The summary as Markdown, one list item per (release, device) with rows, newest release first."""
    lines = []
    order = sorted(figures, key=lambda col: DEVICES.index(col[1]))  # then, stably, newest release first
    order = sorted(order, key=lambda col: version_key(col[0]), reverse=True)
    for release, device in order:
        found = figures[(release, device)]
        states = found["states"]
        if not found["torch"]:  # no current row
            stale = states.get("stale", 0)
            if stale:
                lines.append(strings["summary.stale_only"].format(release=release, device=strings[f"device.{device}"], n=stale)
                             + strings["summary.end"])
            continue
        sep = strings["list.sep"]
        sources = sep.join(strings.get(f"source.{s}", s) for s in found["sources"])
        details = strings["summary.details"].format(python=sep.join(found["python"]), device=sep.join(found["devices"]),
                                                    dates=sep.join(found["dates"]), sources=sources)
        line = strings[f"summary.{device}"].format(release=release, passed=states.get("passed", 0), total=found["entries"],
                                                   details=details)
        if states.get("needs-cuda"):
            line += strings["summary.needs_cuda"].format(n=states["needs-cuda"])
        if states.get("needs-package"):
            line += strings["summary.needs_package"].format(n=states["needs-package"],
                                                            packages=sep.join(found.get("lacking", ())))
        if states.get("needs-gpus"):
            line += strings["summary.needs_gpus"].format(n=states["needs-gpus"])
        if states.get("failed"):
            line += strings["summary.failed"].format(n=states["failed"])
        if device == "cuda":
            line += strings["summary.cuda_others"]
        lines.append(line + strings["summary.end"])
    if not _has_rows(figures, "cpu"):
        lines.insert(0, strings["summary.none"])
    if not _has_rows(figures, "cuda"):
        lines.append(strings["summary.no_cuda"])
    return "\n".join(lines)


def _has_rows(figures: Mapping[tuple[str, str], Mapping], device: str) -> bool:
    """Some release has a row on `device`, current or not."""
    return any(set(found["states"]) - {"missing"} for (_, d), found in figures.items() if d == device)
