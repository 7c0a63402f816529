"""MkDocs hook: `<!-- verification-summary -->` on a page becomes what the verification record
(verification/*.csv) holds, so the site never claims more than the record shows."""

from pathlib import Path

from cheatsheet.model.record import summary

MARKER = "<!-- verification-summary -->"
TEXT = {
    "zh": {
        "cpu": "- **CPU**：{passed} / {total} 个条目的示例通过（PyTorch {torch}，Python {python}，{device}，{dates}）",
        "needs_cuda": "；另有 {n} 个条目的示例只能在 GPU 上运行",
        "cuda": "- **CUDA**：{passed} / {total} 个条目的示例在 GPU 上通过（PyTorch {torch}，{device}，{dates}）；其余条目的 `#cuda>` 行尚未在 GPU 上核对。",
        "no_cuda": "- **CUDA**：还没有记录在案的 GPU 运行，`#cuda>` 行尚未在 GPU 上核对。",
        "none": "- **CPU**：验证记录为空。",
    },
    "en": {
        "cpu": "- **CPU**: the examples of {passed} of {total} entries passed (PyTorch {torch}, Python {python}, {device}, {dates})",
        "needs_cuda": "; the examples of {n} more run on a GPU only",
        "cuda": "- **CUDA**: the examples of {passed} of {total} entries passed on a GPU (PyTorch {torch}, {device}, {dates}); the `#cuda>` lines of the others are not yet checked on a GPU.",
        "no_cuda": "- **CUDA**: no GPU run is on record yet; the `#cuda>` lines are not yet checked on a GPU.",
        "none": "- **CPU**: the verification record is empty.",
    },
}


def render(root: Path, lang: str) -> str:
    text = TEXT[lang]
    figures = summary(root / "docs", root / "snippets", root / "verification")
    cpu, cuda = figures["cpu"], figures["cuda"]
    total = cpu["entries"]
    lines = []
    if cpu["torch"]:
        line = text["cpu"].format(passed=cpu["states"].get("passed", 0), total=total, torch=", ".join(cpu["torch"]),
                                  python=", ".join(cpu["python"]), device="; ".join(cpu["devices"]), dates=", ".join(cpu["dates"]))
        if cpu["states"].get("needs-cuda"):
            line += text["needs_cuda"].format(n=cpu["states"]["needs-cuda"])
        lines.append(line + ("。" if lang == "zh" else "."))
    else:
        lines.append(text["none"])
    if cuda["torch"]:
        lines.append(text["cuda"].format(passed=cuda["states"].get("passed", 0), total=total, torch=", ".join(cuda["torch"]),
                                         device="; ".join(cuda["devices"]), dates=", ".join(cuda["dates"])))
    else:
        lines.append(text["no_cuda"])
    return "\n".join(lines)


def on_page_markdown(markdown, page, config, files):
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render(Path(config.config_file_path).parent, config.theme["language"]))
