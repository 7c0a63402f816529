"""Every word the site's code adds to a page, one table per language with the same keys
(tests/test_site_plugin.py keeps them equal). Templates get this language's table as
`cheatsheet_strings` (the plugin's on_env).

Keys are `feature.name`: status (the line under an entry's heading), device, source (who ran a
row), list, recipe (the line under a recipe's title), glance (the table at the top of a topic page),
all (the all-idioms page), summary (the home page's verification summary, Markdown), compat,
mark, state and legend (the compatibility page), notebook, page (the page chrome), copy (the
"copy as Markdown" button of an entry), data (llms.txt and llms-full.txt: cheatsheet/site/sheet_data.py)."""

from __future__ import annotations

from types import MappingProxyType

from cheatsheet.model.langs import wording

ZH = MappingProxyType({
    # The status line: per device, the releases where the entry passed, failed or changed since.
    "status.passed": "✓ {release}",
    "status.failed": "✗ {release} 上失败",
    "status.stale": "⚠ 在 {release} 上验证后改过",
    "status.needs_cuda": "仅限 GPU",
    "status.needs_package": "{release} 未运行：需要 {package}",
    "status.needs_gpus": "{release} 未运行：需要多块 GPU",
    "status.since": "{release} 及以上可用",
    "status.pending": "尚未在 {releases} 上运行",
    "status.since_title": "记录中从这个版本起，之后每个版本在 {device} 上都通过；记录最早到 {oldest}，更早的版本没有运行过",
    "status.device": "{cells} · {device}",
    "status.cell_sep": " · ",
    "status.device_sep": " — ",
    "status.cpu_missing": "CPU：尚无运行记录",
    "status.cuda_missing": "CUDA：尚未在 GPU 上运行",
    # After an output line only a GPU prints, while no GPU has run the example as it is now.
    "status.unconfirmed_output": "← 这一版示例还没有在 GPU 上运行过",
    # A row, in a cell's tooltip.
    "status.row": "PyTorch {torch}，Python {python}，{device}，{date}；{source}",
    "status.row_failed": "{row}；失败：{note}",
    "status.row_stale": "{row}；这次运行之后代码改过",
    "status.api": "API 文档",
    "status.report": "报告问题",
    "device.cpu": "CPU",
    "device.cuda": "CUDA",
    # Who ran a row (cheatsheet.model.record.SOURCES), in full and in a column's header.
    "source.ci": "本项目的测试套件",
    "source.gpu": "维护者在 GPU 上的运行",
    "source.submitted": "读者提交的运行",
    "source_short.ci": "测试",
    "source_short.gpu": "GPU 运行",
    "source_short.submitted": "读者提交",
    "list.sep": "、",
    "recipe.ran": "这个实战在测试中作为一个程序完整运行过：{runs}。代码里的 <code>#&gt;</code> 行是记录在案的运行打印的输出。",
    "recipe.unchecked": "记录中没有哪次运行对应这个实战现在的代码：{runs}。代码里的 <code>#&gt;</code> 行尚未重新核对。",
    "recipe.none": "这个实战还没有运行记录，代码里的 <code>#&gt;</code> 行尚未经过核对。",
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
    "summary.cpu": "- **PyTorch {release}，CPU**：{passed} / {total} 个条目的示例通过（{details}）",
    "summary.cuda": "- **PyTorch {release}，CUDA**：{passed} / {total} 个条目的示例在 GPU 上通过（{details}）",
    "summary.cuda_others": "；其余条目的 `#cuda>` 行尚未在 GPU 上核对",
    "summary.details": "Python {python}，{device}，{dates}；{sources}",
    "summary.needs_cuda": "；另有 {n} 个条目的示例只能在 GPU 上运行",
    "summary.needs_package": "；另有 {n} 个条目没有运行：它们需要 {packages}，这个版本安装时不带它",
    "summary.needs_gpus": "；另有 {n} 个条目没有运行：每个进程要一块 GPU，这台机器不够",
    "summary.failed": "；{n} 个条目的示例失败",
    "summary.stale_only": "- **PyTorch {release}，{device}**：{n} 行记录都早于条目代码的最近一次改动，不能为现在的示例作证",
    "summary.end": "。",
    "summary.no_cuda": "- **CUDA**：还没有记录在案的 GPU 运行，`#cuda>` 行尚未在 GPU 上核对。",
    "summary.none": "- **CPU**：验证记录为空。",
    # The compatibility page (<!-- compatibility-matrix -->): entry x (release, device).
    "compat.filter": "输入词语筛选，例如 显存、view、失败",
    "compat.count": "共 {n} 个条目、{r} 个实战；列（PyTorch 版本与设备）：{c}",
    "compat.entry": "条目",
    "compat.release": "我用的版本：",
    "compat.all_releases": "全部版本",
    "compat.show": "显示：",
    "compat.show_all": "全部条目",
    "compat.show_works": "在这个版本上通过的",
    "compat.show_fails": "在这个版本上失败的",
    "compat.show_nopass": "在这个版本上没有通过记录的（失败、需要 GPU 或包、代码改过、未运行）",
    "compat.summary": "PyTorch {release}：{works} 个通过，{fails} 个失败，"
                      "{other} 个两者都不是（需要 GPU 或包、代码改过或未运行）",
    "compat.since": "可用版本",
    "compat.since_title": "记录中从这个版本起，之后每个版本都通过（CPU；只能在 GPU 上运行的条目看 CUDA）",
    "compat.dates": "{first} 至 {last}",
    "compat.column_title": "{n} 行：PyTorch {torch}；Python {python}；{device}；{dates}；{sources}",
    "compat.no_cuda": "还没有记录在案的 GPU 运行，所以没有 CUDA 列；<code>#cuda&gt;</code> 行尚未在 GPU 上核对。",
    "compat.none": "验证记录为空。",
    "compat.legend": "图例",
    # A cell: its mark (shown) and its state in words (for screen readers and the filter).
    "mark.passed": "✓",
    "mark.failed": "✗",
    "mark.stale": "⚠",
    "mark.needs-cuda": "仅限 GPU",
    "mark.needs-package": "未运行",
    "mark.needs-gpus": "需多卡",
    "mark.missing": "—",
    "state.passed": "通过",
    "state.failed": "失败",
    "state.stale": "运行后改过",
    "state.needs-cuda": "仅限 GPU",
    "state.needs-package": "未运行",
    "state.needs-gpus": "需多卡",
    "state.missing": "无记录",
    "compat.legend_item": "{mark} {words}：{text}",
    "compat.legend_word": "{mark}：{text}",
    "legend.passed": "条目的示例在这个版本和设备上运行过，打印的正是页面上的输出",
    "legend.failed": "示例在这里失败，悬停在格子上可看到失败之处",
    "legend.stale": "那次运行之后条目的代码改过，尚未重新验证",
    "legend.needs-cuda": "条目的示例都需要 CUDA，CPU 上的运行跳过了它们",
    "legend.needs-package": "示例导入的包（如 torchvision）只和固定版本的 torch 配套安装，这个版本上没有运行，悬停可看到包名",
    "legend.needs-gpus": "多进程示例在 GPU 上每个进程要一块卡（nccl），运行它的机器卡不够，没有运行；悬停可看到要几块、有几块",
    "legend.missing": "记录中没有条目在这个版本和设备上的运行",
    "notebook.download": "下载 Notebook",
    "notebook.intro": "由网站页面 {url} 自动生成。每个代码单元是一个条目的示例，附带的输出是测试在 CPU 上核对过的结果。",
    "notebook.link": "在网站上查看这一条",
    "notebook.terminal": "在终端中运行（脚本见上）：",
    "notebook.cuda": "这个示例需要 CUDA。",
    "page.loading": "加载中",
    # The button beside an entry's status line: it copies the entry as llms-full.txt gives it.
    "copy.label": "复制 Markdown",
    "copy.aria": "复制 Markdown：{title}",
    "copy.done": "已复制",
    # llms.txt and llms-full.txt (and each entry's copied Markdown), in Markdown.
    "data.about": "每个条目是一个 PyTorch 写法：一行可复制的代码、助记、作用、使用前提，"
                  "以及一个由测试真正运行过的示例和它打印的输出。"
                  "全部条目的完整 Markdown（附每个条目在各个 PyTorch 版本和设备上的验证记录）："
                  "[llms-full.txt]({full})；JSON：[api/entries.json]({json})，"
                  "它的 JSON Schema：[api/entries.schema.json]({schema})。",
    "data.full_about": "全站条目，按导航顺序：标题、代码行、字段、示例和它核对过的输出行，以及验证记录。"
                       "由页面和验证记录在构建网站时生成。",
    "data.page_line": "{n} 个条目",
    "data.source": "来源：{url}",
    "data.record": "验证记录：",
    "data.unconfirmed_all": "这个示例的输出行还没有在 GPU 上按现在的代码运行过。",
    "data.unconfirmed_cuda": "`#cuda>` 行还没有在 GPU 上按现在的代码运行过。",
    "data.since": "可用版本：{release} 及以上（{device}，由验证记录得出）",
    "data.record_row": "- PyTorch {release}，{device}：{state}（{row}）",
    "data.record_none": "- PyTorch {release}，{device}：{state}",
})

EN = MappingProxyType({
    "status.passed": "✓ {release}",
    "status.failed": "✗ {release} failed",
    "status.stale": "⚠ changed since verified on {release}",
    "status.needs_cuda": "GPU only",
    "status.needs_package": "{release} not run: needs {package}",
    "status.needs_gpus": "{release} not run: needs several GPUs",
    "status.since": "works since {release}",
    "status.pending": "not yet run on {releases}",
    "status.since_title": "from this release on, every recorded release passed on {device}; the record goes back to {oldest}, "
                          "older releases were not run",
    "status.device": "{cells} · {device}",
    "status.cell_sep": " · ",
    "status.device_sep": " — ",
    "status.cpu_missing": "CPU: no run on record",
    "status.cuda_missing": "CUDA: not yet run",
    "status.unconfirmed_output": "← not yet run on a GPU as the example is now",
    "status.row": "PyTorch {torch}, Python {python}, {device}, {date}; {source}",
    "status.row_failed": "{row}; failed: {note}",
    "status.row_stale": "{row}; the code changed after this run",
    "status.api": "API docs",
    "status.report": "Report a problem",
    "device.cpu": "CPU",
    "device.cuda": "CUDA",
    "source.ci": "this project's test suite",
    "source.gpu": "a maintainer's GPU run",
    "source.submitted": "a run a reader submitted",
    "source_short.ci": "tests",
    "source_short.gpu": "GPU run",
    "source_short.submitted": "submitted",
    "list.sep": ", ",
    "recipe.ran": "This recipe ran in the tests as one program: {runs}. "
                  "The <code>#&gt;</code> lines in the code are what the recorded runs printed.",
    "recipe.unchecked": "No recorded run of this recipe is for its code as it is now: {runs}. "
                        "The <code>#&gt;</code> lines in the code are not yet checked again.",
    "recipe.none": "No run of this recipe is on record yet: the <code>#&gt;</code> lines in the code are not yet checked.",
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
    "summary.cpu": "- **PyTorch {release}, CPU**: the examples of {passed} of {total} entries passed ({details})",
    "summary.cuda": "- **PyTorch {release}, CUDA**: the examples of {passed} of {total} entries passed on a GPU ({details})",
    "summary.cuda_others": "; the `#cuda>` lines of the others are not yet checked on a GPU",
    "summary.details": "Python {python}, {device}, {dates}; {sources}",
    "summary.needs_cuda": "; the examples of {n} more run on a GPU only",
    "summary.needs_package": "; {n} more were not run: they need {packages}, which this release is installed without",
    "summary.needs_gpus": "; {n} more were not run: they take one GPU per process, more than the machine had",
    "summary.failed": "; the examples of {n} failed",
    "summary.stale_only": "- **PyTorch {release}, {device}**: all {n} rows predate the last change to their entries' code "
                          "and vouch for none of the examples as they are",
    "summary.end": ".",
    "summary.no_cuda": "- **CUDA**: no GPU run is on record yet; the `#cuda>` lines are not yet checked on a GPU.",
    "summary.none": "- **CPU**: the verification record is empty.",
    "compat.filter": "Type to filter, e.g. memory, view, failed",
    "compat.count": "{n} entries and {r} recipes; columns (PyTorch release and device): {c}",
    "compat.entry": "Entry",
    "compat.release": "I am on:",
    "compat.all_releases": "every release",
    "compat.show": "Show:",
    "compat.show_all": "every entry",
    "compat.show_works": "what passed there",
    "compat.show_fails": "what failed there",
    "compat.show_nopass": "what has no pass there (failed, needs a GPU or package, changed since, not run)",
    "compat.summary": "PyTorch {release}: {works} passed, {fails} failed, "
                      "{other} neither (needs a GPU or package, changed since, or not run)",
    "compat.since": "Works since",
    "compat.since_title": "from this release on, every recorded release passed (CPU; CUDA for an entry that runs on a GPU only)",
    "compat.dates": "{first} to {last}",
    "compat.column_title": "{n} rows: PyTorch {torch}; Python {python}; {device}; {dates}; {sources}",
    "compat.no_cuda": "No GPU run is on record yet, so there are no CUDA columns; "
                      "the <code>#cuda&gt;</code> lines are not yet checked on a GPU.",
    "compat.none": "The verification record is empty.",
    "compat.legend": "Legend",
    "mark.passed": "✓",
    "mark.failed": "✗",
    "mark.stale": "⚠",
    "mark.needs-cuda": "GPU only",
    "mark.needs-package": "not run",
    "mark.needs-gpus": "needs GPUs",
    "mark.missing": "—",
    "state.passed": "passed",
    "state.failed": "failed",
    "state.stale": "changed since",
    "state.needs-cuda": "GPU only",
    "state.needs-package": "not run",
    "state.needs-gpus": "needs GPUs",
    "state.missing": "no run",
    "compat.legend_item": "{mark} {words}: {text}",
    "compat.legend_word": "{mark}: {text}",
    "legend.passed": "the entry's examples ran on this release and device and printed what the page shows",
    "legend.failed": "they failed there; the cell's tooltip says what failed",
    "legend.stale": "the entry's code changed after that run and is not yet verified again",
    "legend.needs-cuda": "every example of the entry needs CUDA, so the CPU run skipped them",
    "legend.needs-package": "an example imports a package installed only with the pinned torch (torchvision, say), "
                            "so it was not run on this release; the tooltip names the package",
    "legend.needs-gpus": "a multi-process example takes one GPU per process on CUDA (nccl), more than the machine that ran "
                         "it had, so it did not run; the tooltip says how many it needs and had",
    "legend.missing": "the record holds no run of the entry on this release and device",
    "notebook.download": "Download notebook",
    "notebook.intro": "Generated from the site page {url}. Each code cell is one entry's example; "
                      "the output shown with it is what the tests verified on CPU.",
    "notebook.link": "See this entry on the site",
    "notebook.terminal": "Run in a terminal (the script is above):",
    "notebook.cuda": "This example needs CUDA.",
    "page.loading": "Loading",
    "copy.label": "Copy Markdown",
    "copy.aria": "Copy Markdown: {title}",
    "copy.done": "Copied",
    "data.about": "Each entry is one PyTorch idiom: a line to copy, a mnemonic, what it does, its prerequisites, "
                  "and an example that the tests really ran, with what it printed. Every entry in full as Markdown, "
                  "with its verification record on each PyTorch release and device: [llms-full.txt]({full}); "
                  "as JSON: [api/entries.json]({json}), whose JSON Schema is [api/entries.schema.json]({schema}).",
    "data.full_about": "Every entry of the site, in nav order: title, code line, fields, the example with its checked "
                       "output lines, and the verification record. Generated from the pages and the record when the "
                       "site is built.",
    "data.page_line": "{n} entries",
    "data.source": "Source: {url}",
    "data.record": "Verification record:",
    "data.unconfirmed_all": "This example's output lines have not run on a GPU as the example is now.",
    "data.unconfirmed_cuda": "The `#cuda>` lines have not run on a GPU as the example is now.",
    "data.since": "Works since: {release} ({device}, derived from the verification record)",
    "data.record_row": "- PyTorch {release}, {device}: {state} ({row})",
    "data.record_none": "- PyTorch {release}, {device}: {state}",
})

STRINGS = MappingProxyType({"zh": ZH, "en": EN})


def for_language(code: str) -> MappingProxyType:
    """The table a language's site uses: its own, or the one its row names until it has its own
    (cheatsheet/model/langs.py: `strings`)."""
    return wording(STRINGS, code)
