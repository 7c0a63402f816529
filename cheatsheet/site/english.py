"""The English site, built by the Chinese build into <site_dir>/en/ (cheatsheet.model.langs).

One build per language gives each language its own search index. Hooking the other builds onto
the default language's keeps `mkdocs build` and `mkdocs serve` to a single command."""

from __future__ import annotations

import os
from urllib.parse import urljoin

from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError

from cheatsheet.model.langs import URL_PREFIX


def check_language(lang: str, config_file: str) -> None:
    """A language the plugin's `languages` may name: one served below the default language's site."""
    if not URL_PREFIX.get(lang):
        raise PluginError(f"{config_file}: cheatsheet plugin: `languages` names `{lang}`, which is no language served "
                          f"below the default one ({', '.join(k for k, v in URL_PREFIX.items() if v)})")


def site_config(config: MkDocsConfig, lang: str, config_file: str) -> MkDocsConfig:
    """The config of the `lang` site (`config_file`), placed under the site that `config` builds."""
    check_language(lang, config.config_file_path)
    prefix = URL_PREFIX[lang]
    return load_config(
        config_file,
        site_dir=os.path.join(config.site_dir, prefix.rstrip("/")),
        site_url=urljoin(config.site_url, prefix) if config.site_url else None,
        strict=config.strict,
    )
