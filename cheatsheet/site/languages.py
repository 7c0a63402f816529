"""The other languages' sites, derived from mkdocs.yml and each language's row
(cheatsheet.model.langs), and built by the source language's build into <site_dir>/<URL prefix>.

One build per language gives each language its own search index. Hooking the other builds onto
the source language's keeps `mkdocs build` and `mkdocs serve` to a single command. Nothing of an
other language's config is written twice: its docs folder, site name, search settings, colour
toggle and nav titles come from its row, everything else from mkdocs.yml."""

from __future__ import annotations

import copy
import os
from pathlib import Path
from urllib.parse import urljoin

from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.utils.yaml import yaml_load

from cheatsheet.model.langs import BY_CODE, LANGUAGES, OTHERS, SOURCE, Language

PLUGIN = "cheatsheet"


def alternate(lang: str) -> list[dict]:
    """The language switch (Material's extra.alternate) on `lang`'s site: every language, its link
    relative to this site's root (overrides/partials/alternate.html appends the current page)."""
    up = "../" * BY_CODE[lang].url_prefix.count("/")
    return [{"name": other.name, "link": "./" if other.code == lang else (up + other.url_prefix) or "./", "lang": other.code}
            for other in LANGUAGES]


def site_config(config: MkDocsConfig, lang: str) -> MkDocsConfig:
    """The config of `lang`'s site: mkdocs.yml (`config`'s file) with that language's row applied,
    placed under the site that `config` builds."""
    if lang not in OTHERS:
        raise PluginError(f"{config.config_file_path}: no site is derived for `{lang}`: the languages served below "
                          f"the {SOURCE} site are {', '.join(OTHERS) or 'none'} (cheatsheet/model/langs.py)")
    row = BY_CODE[lang]
    with open(config.config_file_path, "rb") as f:
        raw = yaml_load(f)
    root = Path(config.config_file_path).parent
    source_docs = Path(os.path.relpath(config.docs_dir, root)).as_posix()
    docs = (Path(source_docs).parent / lang).as_posix()
    edit_uri = raw.get("edit_uri")
    if edit_uri and edit_uri.rstrip("/").endswith(source_docs):
        edit_uri = edit_uri.rstrip("/")[: -len(source_docs)] + docs + "/"
    return load_config(
        config.config_file_path,
        docs_dir=docs,
        site_dir=os.path.join(config.site_dir, row.url_prefix.rstrip("/")),
        site_url=urljoin(config.site_url, row.url_prefix) if config.site_url else None,
        strict=config.strict,
        site_name=row.site_name or raw["site_name"],
        site_description=row.site_description or raw.get("site_description"),
        edit_uri=edit_uri,
        theme=_theme(raw["theme"], row),
        plugins=_plugins(raw.get("plugins", []), row),
        nav=_nav(raw["nav"], row, config.config_file_path) if "nav" in raw else None,
    )


def _theme(theme: dict, row: Language) -> dict:
    theme = copy.deepcopy(theme)
    theme["language"] = row.code
    for palette in theme.get("palette", []):
        if "toggle" in palette and palette.get("scheme") in row.toggle:
            palette["toggle"]["name"] = row.toggle[palette["scheme"]]
    return theme


def _plugins(plugins: list, row: Language) -> list:
    """mkdocs.yml's plugins, with the language's search settings, and this plugin told which
    language it builds and that it builds no other site."""
    out = []
    for plugin in plugins:
        name, options = (plugin, {}) if isinstance(plugin, str) else next(iter(plugin.items()))
        options = dict(options or {})
        if name == "search":
            options.update(row.search)
        elif name == PLUGIN:
            options.update(lang=row.code, other_languages=False)
        out.append({name: options})
    return out


def _nav(nav: list, row: Language, config_file: str) -> list:
    """mkdocs.yml's nav in the language's titles: a section by its title in mkdocs.yml, a page by
    its file; a page the row leaves out is titled by its own heading."""
    out = []
    for item in nav:
        if isinstance(item, str):
            out.append({row.nav[item]: item} if item in row.nav else item)
            continue
        (title, value), = item.items()
        if isinstance(value, list):
            if title not in row.nav:
                raise PluginError(f"{config_file}: the nav section `{title}` has no title in {row.code}: add "
                                  f"\"{title}\": \"...\" to the nav of the `{row.code}` row in cheatsheet/model/langs.py")
            out.append({row.nav[title]: _nav(value, row, config_file)})
        else:
            out.append({row.nav[value]: value} if value in row.nav else value)
    return out
