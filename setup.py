"""The package's build step (everything else is in pyproject.toml): the wheel carries the sheet as
data, written from the pages and the record by the site's own code (cheatsheet/site/package_data.py),
so that an installed `find` and `mcp` answer without a built site or a checkout."""

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithSheetData(build_py):
    def run(self):
        super().run()
        sys.path.insert(0, str(ROOT))  # this checkout's package, not an installed one
        from cheatsheet.project import Project
        from cheatsheet.site.package_data import build

        build(Project.load(ROOT), Path(self.build_lib) / "cheatsheet" / "data")


setup(cmdclass={"build_py": BuildWithSheetData})
