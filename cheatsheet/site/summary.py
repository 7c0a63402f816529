"""`<!-- verification-summary -->` on a page becomes what the verification record holds
(cheatsheet.model.record.summary: the entries by verdict, per device), so the site never claims
more than the record shows."""

from __future__ import annotations

from collections.abc import Mapping

MARKER = "<!-- verification-summary -->"


def render(figures: Mapping[str, Mapping], strings: Mapping[str, str]) -> str:
    """The summary as Markdown, one list item per device."""
    cpu, cuda = figures["cpu"], figures["cuda"]
    lines = []
    if cpu["torch"]:
        line = strings["summary.cpu"].format(**_figures(cpu, cpu["entries"]), python=", ".join(cpu["python"]))
        if cpu["states"].get("needs-cuda"):
            line += strings["summary.needs_cuda"].format(n=cpu["states"]["needs-cuda"])
        lines.append(line + strings["summary.end"])
    else:
        lines.append(strings["summary.none"])
    if cuda["torch"]:
        lines.append(strings["summary.cuda"].format(**_figures(cuda, cpu["entries"])))
    else:
        lines.append(strings["summary.no_cuda"])
    return "\n".join(lines)


def _figures(device: Mapping, total: int) -> dict[str, object]:
    return {"passed": device["states"].get("passed", 0), "total": total, "torch": ", ".join(device["torch"]),
            "device": "; ".join(device["devices"]), "dates": ", ".join(device["dates"])}
