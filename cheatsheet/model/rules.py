"""The one table of rule codes, and the one way to report a problem.

Every problem the project reports, from the entry checker, the example runner or the verification
record, is a `Problem` with a code from RULES, printed as `file:line: [entry-id] CODE message`.
A code that is not in the table is itself an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from cheatsheet import display
from cheatsheet.model.langs import wording


class Rule(NamedTuple):
    kind: str  # "check": from reading the pages; "run": from running examples; "record": from the verification record
    en: str  # what the rule is about, and what to do, in the contributor guide's words
    zh: str

    def summary(self, lang: str) -> str:
        return wording({"en": self.en, "zh": self.zh}, lang)


# Each code has a fixture in tests/fixtures/rules/CODE/ that breaks exactly that rule. The
# contributor guide's table of codes is `markdown_table(lang)` (the site renders it in place of
# the page's `<!-- rules-table -->` line).
RULES: dict[str, Rule] = {
    "ENTRY001": Rule("check", "The `###` heading has no explicit id: end it with `{ #english-task-id }`",
                     "`###` 标题没有显式 id：在标题末尾加 `{ #english-task-id }`"),
    "ENTRY002": Rule("check", "The id is not lowercase words joined by hyphens, such as `cuda-empty-cache`",
                     "id 不是小写单词加连字符的形式，例如应写成 `cuda-empty-cache`"),
    "ENTRY003": Rule("check", "The id (or an alias) is already used elsewhere on the site: pick another",
                     "id（或别名）在全站已被使用过：换一个"),
    "ENTRY004": Rule("check", "The entry has no code line: put a ```` ```python ```` fence under the heading",
                     "条目没有代码行：在标题下放一个 ```` ```python ```` 代码块"),
    "ENTRY005": Rule("check", "A required field (Mnemonic or Prerequisites) is missing",
                     "缺少必填字段（助记或使用前提）"),
    "ENTRY006": Rule("check", "No example: add `**Example:**` and a complete example that prints its result",
                     "没有示例：加上 `**解释性示例：**` 和一个会打印结果的完整示例"),
    "ENTRY007": Rule("check", "An example shows no output: print a result and add its `#>` lines",
                     "某个示例没有展示输出：打印结果，并写上 `#>` 行"),
    "ENTRY008": Rule("check", "Unknown fence option (the known ones are `requires-cuda`, `uses-deprecated` and `title=`)",
                     "未知的代码块选项（已知的有 `requires-cuda`、`uses-deprecated` 和 `title=`）"),
    "ENTRY009": Rule("check", "A second fence before the example marker: only one code line comes before it",
                     "示例标记之前有第二个代码块：那里只能有一个代码行"),
    "ENTRY010": Rule("check", "A placeholder marker written by `cheatsheet new` is left on the page or in the entry",
                     "页面或条目里还留着 `cheatsheet new` 写入的占位标记"),
    "ENTRY011": Rule("check", "A fence after the example marker that would run nowhere (`text`, `pycon`, `Python`, ...): "
                              "examples are `python` or `bash` fences",
                     "示例标记之后有一个哪里都不会运行的代码块（`text`、`pycon`、`Python` 等）："
                     "示例只能是 `python` 或 `bash` 代码块"),
    "ENTRY012": Rule("check", "A script shown with `--8<--` that no `bash` example of the entry runs",
                     "用 `--8<--` 展示的脚本没有被本条目的任何 `bash` 示例运行"),
    "ENTRY013": Rule("check", "Output lines in a fence outside any entry, where nothing checks them",
                     "不属于任何条目的代码块里有输出行，没有测试会核对它们"),
    "ENTRY014": Rule("check", "An alias `page.md#old-id` names a page that does not exist",
                     "别名 `page.md#old-id` 指向的页面不存在"),
    "ENTRY015": Rule("check", "The search words (`data-search`) hold Markdown characters (`<`, `>`, `*`, `[`, `]`, backticks, "
                              "`__name__`): the heading would not render",
                     "搜索词（`data-search`）里有 Markdown 字符（`<`、`>`、`*`、`[`、`]`、反引号、`__name__`），标题会无法渲染"),
    "ENTRY016": Rule("check", "A comment that looks like an output line but is not one (`#gpu>`, `#torch<=2.12>`): nothing "
                              "checks it",
                     "看起来像输出行、其实不是的注释（`#gpu>`、`#torch<=2.12>`），没有测试会核对它"),
    "PAIR001": Rule("check", "The page exists in one language only: add it at the same path in the other",
                    "页面只有一种语言的版本：在另一种语言的同一路径下补上"),
    "PAIR002": Rule("check", "An entry is missing from the other language: add it there with the same id",
                    "条目在另一种语言的页面上不存在：用相同的 id 补上"),
    "PAIR003": Rule("check", "The code differs between the languages: only comments may differ",
                    "两种语言的代码不同：只有注释可以不同"),
    "PAIR004": Rule("check", "The `##` sections differ between the languages: same sections, same order, same `{ #id }`",
                    "两种语言的 `##` 小节不同：小节相同、顺序相同、`{ #id }` 相同"),
    "PAIR005": Rule("check", "The entries are in a different order than on the Chinese page",
                    "条目的顺序与中文页面不同"),
    "PAIR006": Rule("check", "The entry's aliases (`data-aliases`) differ between the languages",
                    "两种语言里条目的别名（`data-aliases`）不同"),
    "PAIR007": Rule("check", "The entry has a different number of fences in the other language",
                    "两种语言里条目的代码块数目不同"),
    "PAGE001": Rule("check", "A `##` section heading has no explicit id: end it with `{ #section-in-english }`",
                    "`##` 小节标题没有显式 id：在末尾加上 `{ #section-in-english }`"),
    "CODE001": Rule("check", "The code does not parse: a code line must be valid Python on its own",
                    "代码无法解析：代码行单独拿出来也必须是合法的 Python"),
    "CODE002": Rule("check", "A `torch.` name (or a command, or a `python -m` module) does not exist in the installed PyTorch",
                    "用到的 `torch.` 名字（或命令、`python -m` 模块）在安装的 PyTorch 中不存在"),
    "CODE003": Rule("check", "A name that PyTorch itself marks deprecated, on any branch of the code; the message quotes "
                             "PyTorch's replacement",
                    "代码的任何分支里用了 PyTorch 自己标记为已弃用的名字；消息引用 PyTorch 给出的替代写法"),
    "CODE004": Rule("check", "The snippets/ file included with `--8<--` does not exist",
                    "`--8<--` 引入的 snippets/ 文件不存在"),
    "RUN001": Rule("run", "The printed output differs from the output lines",
                   "打印的输出与输出行不一致"),
    "RUN002": Rule("run", "The example raised an error (a warning counts), exited, or a shell example exited non-zero",
                   "示例抛出了错误（警告也算）、调用了退出，或者 shell 示例以非零状态退出"),
    "RUN003": Rule("run", "The example did not finish in time: its worker was killed and replaced",
                   "示例没有按时结束：运行它的工作进程被终止并替换"),
    "RUN004": Rule("run", "The worker process died while running the example",
                   "运行示例时工作进程意外退出"),
    "REC001": Rule("record", "The verification record has no row for the entry",
                   "验证记录里没有这个条目的行"),
    "REC002": Rule("record", "A verification row vouches for code that has changed since",
                   "验证记录的某一行担保的代码已经改变"),
    "REC003": Rule("record", "A verification row names an entry that no page defines",
                   "验证记录的某一行对应的条目已不存在"),
    "REC004": Rule("record", "A verification row records a failed run",
                   "验证记录的某一行记录的是一次失败的运行"),
    "REC005": Rule("record", "A CUDA row that no GPU wrote (its device is not a GPU)",
                   "某个 CUDA 行不是在 GPU 上写下的（记录的设备不是 GPU）"),
    "REC006": Rule("record", "A row whose source or release folder is wrong",
                   "某一行的来源或所在的版本目录不对"),
    "REC007": Rule("record", "A row says an example needs a package that this release's install should have",
                   "某一行说示例缺少某个包，而这个版本的安装本应包含它"),
}

# Where a kind of rule comes from, and the table's header, per language.
KINDS = {
    "en": {"check": "checker", "run": "running examples", "record": "verification record"},
    "zh": {"check": "条目检查", "run": "示例运行", "record": "验证记录"},
}
HEADER = {"en": ("Code", "From", "Meaning"), "zh": ("代码", "来源", "含义")}


# A page holding this line shows markdown_table(lang) there (the site plugin puts it in).
TABLE_MARKER = "<!-- rules-table -->"


def markdown_table(lang: str) -> str:
    """The table of rule codes (code, where it comes from, what it means) in `lang`, as Markdown."""
    rows = [wording(HEADER, lang), ("---",) * 3]
    rows += [(f"`{code}`", wording(KINDS, lang)[rule.kind], rule.summary(lang)) for code, rule in RULES.items()]
    return "\n".join(f"| {' | '.join(row)} |" for row in rows) + "\n"


class UnknownRule(ValueError):
    pass


@dataclass(frozen=True)
class Problem:
    path: Path
    line: int
    entry_id: str  # "-" for a problem outside any entry
    code: str
    message: str

    def __post_init__(self):
        if self.code not in RULES:
            raise UnknownRule(f"rule code {self.code!r} is not in cheatsheet.model.rules.RULES; "
                              "add it there (with a fixture) or use an existing code")

    def __str__(self) -> str:
        return f"{display(self.path)}:{self.line}: [{self.entry_id}] {self.code} {self.message}"
