"""MkDocs hook: the Chinese build also builds the English site into <site_dir>/en.

One build per language gives each language its own search index. Hooking the English build
onto the Chinese one keeps `mkdocs build` and `mkdocs serve` to a single command.
"""

import os
from urllib.parse import urljoin

from mkdocs.commands.build import build
from mkdocs.config import load_config


def on_post_build(config):
    if config.theme["language"] != "zh":
        return
    english = load_config(
        os.path.join(os.path.dirname(config.config_file_path), "mkdocs.en.yml"),
        site_dir=os.path.join(config.site_dir, "en"),
        site_url=urljoin(config.site_url, "en/") if config.site_url else None,
        strict=config.strict,
    )
    build(english)
