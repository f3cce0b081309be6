"""The copy of the site that is read from disk (`file://`), built by `make build` as a zip.

Material's `offline` plugin (off in mkdocs.yml; on when OFFLINE=1 is set) makes a build that works from disk: page
URLs end in `.html` (folders would show as listings), and the search index is inlined in a
script. Search then runs its worker in an iframe, with the iframe-worker shim, which the plugin
takes from unpkg.com: here the shim comes from the site itself (node_modules/iframe-worker,
installed by `make setup`), so the copy on disk needs no network either. The served site keeps
its folder URLs; the footer of every page links the zip and the PDF when `make build` makes
them (OFFLINE_DOWNLOAD and PDF_DOWNLOAD, their paths in the site, which this hook puts in
`config.extra` for overrides/partials/copyright.html), and the home page links the project's
source where `make build` makes it (SOURCE_DOWNLOAD, in place of SOURCE_LINK). Settings come from the environment, not
from `!ENV` in mkdocs.yml, which plain YAML readers (the tests) cannot load.
"""

import os
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

SHIM = "assets/javascripts/iframe-worker-shim.js"


@event_priority(100)  # before the offline plugin reads its setting
def on_config(config):
    if os.environ.get("OFFLINE") not in (None, "", "0", "false"):
        config.plugins["material/offline"].config.enabled = True
    for key in ("offline_download", "pdf_download", "source_download"):
        config.extra[key] = os.environ.get(key.upper(), "")
    return config


# Where the home page says where its source comes from: a link to the download, or nothing.
SOURCE_LINK = "<!-- source download -->"


def on_page_markdown(markdown, page, config, files):
    if SOURCE_LINK not in markdown:
        return markdown
    source = config.extra["source_download"]
    link = (f' (<a href="{source}" download>download it</a> and unzip it: `unzip {Path(source).name}`, '
            f"then `cd {Path(source).stem}`)") if source else ""
    return markdown.replace(SOURCE_LINK, link)


def on_files(files, config):
    polyfills = config.extra.get("polyfills") or []
    if any("iframe-worker" in url for url in polyfills):  # the offline plugin is on: a local shim
        config.extra["polyfills"] = [SHIM if "iframe-worker" in url else url for url in polyfills]
        shim = Path(config.config_file_path).resolve().parent / "node_modules" / "iframe-worker" / "shim" / "index.js"
        if not shim.is_file():
            raise PluginError(f"The offline build needs {shim}: run `make setup`.")
        files.append(File.generated(config, SHIM, abs_src_path=str(shim)))
    return files

