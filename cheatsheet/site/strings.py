"""Every word the site's code adds to a page, one table per language with the same keys
(tests/test_site_plugin.py keeps them equal). Templates get this language's table as
`cheatsheet_strings` (the plugin's on_env).

Keys are `feature.name`: status (the line under an entry's heading), recipe (the line under a
recipe's title), glance (the table at the top of a topic page), all (the all-idioms page),
summary (the home page's verification summary, Markdown), notebook, page (the page chrome)."""

from __future__ import annotations

from types import MappingProxyType

ZH = MappingProxyType({
    "status.cpu": "✓ CPU · PyTorch {torch} · {date}",
    "status.cpu_stale": "⚠ 代码在上次验证（{date}）后改过",
    "status.cpu_cuda_only": "CPU：仅 GPU 示例",
    "status.cpu_failed": "✗ CPU 上失败（{date}）",
    "status.cpu_missing": "尚无运行记录",
    "status.cuda": "✓ CUDA · {device} · PyTorch {torch} · {date}",
    "status.cuda_stale": "CUDA：代码在上次 GPU 验证后改过",
    "status.cuda_failed": "✗ CUDA 上失败（{date}）",
    "status.cuda_missing": "CUDA：尚未在 GPU 上运行",
    "status.api": "API 文档",
    "status.report": "报告问题",
    "recipe.ran": "这个实战在测试中作为一个程序完整运行过：{runs}。代码里的 <code>#&gt;</code> 行是那次运行打印的输出。",
    "recipe.run": "{device} 上{result}（PyTorch {torch}，{date}）",
    "recipe.passed": "通过",
    "recipe.failed": "失败",
    "recipe.needs-cuda": "需要 GPU",
    "recipe.none": "这个实战还没有运行记录，代码里的 <code>#&gt;</code> 行尚未经过核对。",
    "recipe.stale": "代码在上次记录的运行之后改过，尚未重新核对",
    "recipe.missing": "GPU 上尚未运行",
    "recipe.sep": "；",
    "glance.summary": "本页速查（{n} 条）",
    "glance.task": "任务",
    "glance.code": "代码行",
    # The first sentence of 作用 in the all-idioms table, cut to this many characters, at any one.
    "glance.what_chars": "60",
    "glance.word_break": "",
    "all.filter": "输入词语筛选，例如 显存、freeze、view",
    "all.count": "共 {n} 个条目、{r} 个实战",
    "all.recipes": "实战",
    "all.recipe": "完整程序",
    "summary.cpu": "- **CPU**：{passed} / {total} 个条目的示例通过（PyTorch {torch}，Python {python}，{device}，{dates}）",
    "summary.needs_cuda": "；另有 {n} 个条目的示例只能在 GPU 上运行",
    "summary.end": "。",
    "summary.cuda": "- **CUDA**：{passed} / {total} 个条目的示例在 GPU 上通过（PyTorch {torch}，{device}，{dates}）；"
                    "其余条目的 `#cuda>` 行尚未在 GPU 上核对。",
    "summary.no_cuda": "- **CUDA**：还没有记录在案的 GPU 运行，`#cuda>` 行尚未在 GPU 上核对。",
    "summary.none": "- **CPU**：验证记录为空。",
    "notebook.download": "下载 Notebook",
    "notebook.intro": "由网站页面 {url} 自动生成。每个代码单元是一个条目的示例，附带的输出是测试在 CPU 上核对过的结果。",
    "notebook.link": "在网站上查看这一条",
    "notebook.terminal": "在终端中运行（脚本见上）：",
    "notebook.cuda": "这个示例需要 CUDA。",
    "page.loading": "加载中",
})

EN = MappingProxyType({
    "status.cpu": "✓ CPU · PyTorch {torch} · {date}",
    "status.cpu_stale": "⚠ changed since last verified ({date})",
    "status.cpu_cuda_only": "CPU: GPU-only example",
    "status.cpu_failed": "✗ failed on CPU ({date})",
    "status.cpu_missing": "no run on record",
    "status.cuda": "✓ CUDA · {device} · PyTorch {torch} · {date}",
    "status.cuda_stale": "CUDA: changed since last verified on a GPU",
    "status.cuda_failed": "✗ failed on CUDA ({date})",
    "status.cuda_missing": "CUDA: not yet run",
    "status.api": "API docs",
    "status.report": "Report a problem",
    "recipe.ran": "This recipe ran in the tests as one program: {runs}. "
                  "The <code>#&gt;</code> lines in the code are what that run printed.",
    "recipe.run": "{result} on {device} (PyTorch {torch}, {date})",
    "recipe.passed": "passed",
    "recipe.failed": "failed",
    "recipe.needs-cuda": "needs a GPU",
    "recipe.none": "No run of this recipe is on record yet: the <code>#&gt;</code> lines in the code are not yet checked.",
    "recipe.stale": "its code changed after the last recorded run and is not yet checked again",
    "recipe.missing": "not yet run on a GPU",
    "recipe.sep": "; ",
    "glance.summary": "This page at a glance ({n} entries)",
    "glance.task": "Task",
    "glance.code": "Code line",
    # The first sentence of What it does in the all-idioms table, cut to this many characters, at a space.
    "glance.what_chars": "120",
    "glance.word_break": " ",
    "all.filter": "Type to filter, e.g. memory, freeze, view",
    "all.count": "{n} entries and {r} recipes",
    "all.recipes": "Recipes",
    "all.recipe": "complete program",
    "summary.cpu": "- **CPU**: the examples of {passed} of {total} entries passed "
                   "(PyTorch {torch}, Python {python}, {device}, {dates})",
    "summary.needs_cuda": "; the examples of {n} more run on a GPU only",
    "summary.end": ".",
    "summary.cuda": "- **CUDA**: the examples of {passed} of {total} entries passed on a GPU "
                    "(PyTorch {torch}, {device}, {dates}); "
                    "the `#cuda>` lines of the others are not yet checked on a GPU.",
    "summary.no_cuda": "- **CUDA**: no GPU run is on record yet; the `#cuda>` lines are not yet checked on a GPU.",
    "summary.none": "- **CPU**: the verification record is empty.",
    "notebook.download": "Download notebook",
    "notebook.intro": "Generated from the site page {url}. Each code cell is one entry's example; "
                      "the output shown with it is what the tests verified on CPU.",
    "notebook.link": "See this entry on the site",
    "notebook.terminal": "Run in a terminal (the script is above):",
    "notebook.cuda": "This example needs CUDA.",
    "page.loading": "Loading",
})

STRINGS = MappingProxyType({"zh": ZH, "en": EN})
