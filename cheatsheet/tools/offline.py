"""The sheet without a network: both languages built as a copy read from disk and zipped into one
file that works when unzipped and opened in a browser (file://).

    python -m cheatsheet offline [SITE_DIR]  ->  SITE_DIR/pytorch-cheatsheet-offline.zip

The copy is a build of its own, with Material's `offline` plugin switched on (OFFLINE=true,
mkdocs.yml): links name the files (gpu-memory/index.html would need a server to be found from
gpu-memory/), and the site's search indexes are also written as scripts, which a file:// page can
load where it may not fetch. The printable PDFs of SITE_DIR (`python -m cheatsheet pdf`), when
there, go into the copy too, so that its home page links to them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from cheatsheet.model.langs import LANGS
from cheatsheet.site.pdf import pdf_path

ZIP_NAME = "pytorch-cheatsheet-offline.zip"
FOLDER = "pytorch-cheatsheet"  # the zip's one top folder, so that unzipping makes no mess


def build(root: Path, out: Path) -> None:
    """Both languages as the copy read from disk, into `out`. In a process of its own: the configs
    read OFFLINE when they load, the English one inside the Chinese build."""
    env = dict(os.environ, OFFLINE="true")
    env.setdefault("NO_MKDOCS_2_WARNING", "1")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--site-dir", str(out)], cwd=root, env=env,
                          capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"the offline build failed:\n{proc.stderr[-5000:]}")


def write_zip(copy: Path, zip_path: Path) -> Path:
    """Every file of `copy` but the scripts' source maps (for debugging Material), under FOLDER/."""
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for path in sorted(copy.rglob("*")):
            if path.is_file() and path.suffix != ".map":
                z.write(path, f"{FOLDER}/{path.relative_to(copy).as_posix()}")
    return zip_path


def offline_zip(root: Path, site_dir: Path, zip_path: Path | None = None) -> Path:
    """Build the copy, add SITE_DIR's PDFs, zip it (by default to SITE_DIR/ZIP_NAME)."""
    site_dir = Path(site_dir)
    with tempfile.TemporaryDirectory(prefix="offline-") as tmp:
        copy = Path(tmp) / FOLDER
        build(root, copy)
        for lang in LANGS:
            if pdf_path(site_dir, lang).is_file():
                shutil.copy2(pdf_path(site_dir, lang), pdf_path(copy, lang))
        return write_zip(copy, Path(zip_path) if zip_path else site_dir / ZIP_NAME)
