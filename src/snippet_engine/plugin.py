"""The MkDocs plugin: every snippet a page includes runs, and its output shows under it.

For each chapter (parsed once, chapter.py) the plugin:

- runs the snippets its code blocks include (runner.py; cached by content)
  and puts under each block the output of the lines it shows;
- folds the lines a block needs but does not show ("N lines of setup")
  above it, and makes its copy button copy the runnable whole
  (standalone/);
- makes the chapter a notebook and a page that shows it (notebooks.py),
  unless its front matter says `notebook: false`;
- serves every snippet as a download that runs on its own.

Every failure (a snippet raises, exits, crashes or times out; an include
names a missing file or section) is found once, logged as one error naming
the page, file and line, and shown on the page. `mkdocs build` fails at the
end listing every failure; `mkdocs serve` keeps serving (strict mode does
not stop its rebuilds) and shows the fix on the next rebuild.

The plugin owns the runner, and so the worker process, for its lifetime:
MkDocs keeps a plugin across serve rebuilds, and `on_shutdown` stops it.
"""

import atexit
import html
import importlib.machinery
import importlib.util
import logging
import os
import re
import signal
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from jinja2 import Environment
from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.base import ValidationError
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils import CountHandler, get_relative_url

import autograd_steps
from snippet_engine import api_links, kinds, pages
from snippet_engine.build import BUNDLE, Build
from snippet_engine.cache_file import entry_key
from snippet_engine.chapter import parse
from snippet_engine.material import with_copy_buttons
from snippet_engine.nav import list_notebooks, pages_of
from snippet_engine.page_cache import Converted, made_key
from snippet_engine.releases import ReleaseCheck
from snippet_engine.render import printable
from snippet_engine.runner import Runner
from snippet_engine.shapes import Settings
from snippet_engine.system_tools import check_dot

RECORDER = "downloads/step_through.py"  # the recorder alone, for readers' own code (not named as the package)
# What a page may ask the plugin to write for it, in its Markdown.
ENVIRONMENT = "<!-- snippets: environment -->"
RELEASES = "<!-- snippets: release check -->"  # what `make release-check` found, over the site
BUNDLE_LINK = "<!-- snippets: examples -->"
NOTEBOOK_LIST = "<!-- snippets: notebooks -->"  # every chapter's notebook, with its download
TITLE = re.compile(r'<span class="filename">([^<]+)</span>')



class AtLeast(c.Type[int]):
    """A whole number of at least `least`: a config error at start-up names the setting otherwise."""

    def __init__(self, least: int, default: int) -> None:
        super().__init__(int, default=default)
        self.least = least

    def run_validation(self, value: object) -> int:
        number = super().run_validation(value)
        if number < self.least:
            raise ValidationError(f"must be at least {self.least}, not {number}")
        return number


class Modules(c.ListOfItems[str]):
    """Names of modules that can be imported: a config error at start-up names one that cannot,
    whatever the build (a worker would fail on it only when started, after the first snippets)."""

    def __init__(self, default: list[str]) -> None:
        super().__init__(c.Type(str), default=default)

    def run_validation(self, value: object) -> list[str]:
        names = super().run_validation(value)
        for name in names:
            if not findable(name):
                raise ValidationError(f"no module named {name!r} can be imported by this Python ({sys.executable})")
        return names


def findable(name: str) -> bool:
    """Whether the module `name` can be imported: found in the folders of the packages above it,
    without importing them (`torch._dynamo`: importlib.util.find_spec imports torch, a second or
    more of every build, whose own process never uses it); where it is not there (a module that
    its package makes, `os.path`), as find_spec finds it."""
    try:
        spec = importlib.util.find_spec(name.partition(".")[0])
        parts = name.split(".")
        for n in range(2, len(parts) + 1):
            locations = spec.submodule_search_locations if spec else None
            spec = importlib.machinery.PathFinder.find_spec(".".join(parts[:n]), locations) if locations else None
        return spec is not None or importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a package above it is missing, or the name is not one
        return False


class SnippetsConfig(base.Config):
    snippets_dir = c.Type(str, default="snippets")
    """Folder of the runnable examples, relative to mkdocs.yml."""
    cache_dir = c.Type(str, default=".cache/snippets")
    """Where results are cached by content, relative to mkdocs.yml."""
    workers = AtLeast(1, default=Settings.workers)
    """Snippets run at once, each in a warm worker process of its own."""
    timeout = AtLeast(1, default=int(Settings.timeout))
    """Seconds a snippet may run before it is stopped and reported."""
    output_limit = AtLeast(1, default=Settings.output_limit)
    """Characters of a snippet's printed output kept: the first and last half, the cut said."""
    preload = Modules(default=list(Settings.preload))
    """Modules the worker imports once, so that each snippet starts warm."""
    fingerprint_packages = c.ListOfItems(c.Type(str), default=list(Settings.packages))
    """Packages whose versions are part of every cache key."""
    notebooks_dir = c.Type(str, default="notebooks")
    """Where chapters' notebooks and their pages go in the site."""
    api_reference = c.Type(str, default="https://docs.pytorch.org/docs/stable/")
    """The PyTorch reference that torch names in prose link to (api_links.py)."""
    release_check = c.Type(str, default="bench/results/release_check.json")
    """The data file of `make release-check`, relative to mkdocs.yml: where another release of
    torch prints something else, the page shows it (releases.py); none there, none shown."""
    serve_wait = AtLeast(0, default=5)
    """Under `mkdocs serve`, seconds a rebuild waits for a snippet; then the pages show it as
    running, and the site is rebuilt when it ends (a browser waits for the rebuild)."""

    def settings(self, project: Path) -> Settings:
        """How snippets run, for the project whose mkdocs.yml these settings are of."""
        return Settings(snippets_dir=project / self.snippets_dir, cache_dir=project / self.cache_dir,
                        timeout=self.timeout, output_limit=self.output_limit, preload=tuple(self.preload),
                        packages=tuple(self.fingerprint_packages), workers=self.workers)


class Warnings(logging.Handler):
    """Counts the warnings that MkDocs, its plugins and hooks log, under serve too (where the
    errors of a build are not counted: `keep_serving_on_errors`)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


WARNINGS = Warnings()
logging.getLogger("mkdocs").addHandler(WARNINGS)


class SnippetsPlugin(BasePlugin[SnippetsConfig]):
    runner: Runner  # made with the settings, in on_config
    build: Build  # made for each build, in on_files

    def __init__(self) -> None:
        self.settings: Settings | None = None
        self.serving = False
        self.sigterm: Any = None  # the SIGTERM handler before on_startup's, put back on shutdown
        self.server: LiveReloadServer | None = None  # under serve, from the first build on
        self.watched: set[str] = set()
        # For each page being converted: its key in the page cache, what the cache holds for it,
        # and the warnings logged before MkDocs converted it.
        self.converting: dict[str, tuple[str, Converted | None, int]] = {}

    def on_startup(self, *, command: Literal["build", "gh-deploy", "serve"], dirty: bool) -> None:
        self.serving = command == "serve"
        if threading.current_thread() is threading.main_thread():
            self.sigterm = signal.signal(signal.SIGTERM, stop)

    def on_config(self, config: MkDocsConfig) -> None:
        check_dot()
        self.project = Path(config.config_file_path).resolve().parent
        self.snippets = self.project / self.config.snippets_dir
        self.ran = self.project / self.config.cache_dir / "serve-ran"  # its change rebuilds the site
        settings = self.config.settings(self.project)
        if settings != self.settings:
            if self.settings:
                self.runner.close()
            self.runner, self.settings = Runner(settings), settings
        self.nav_pages: list[str] = []
        self.site_files = ""  # the digest of the names of the site's files, once MkDocs has them (on_nav)
        if self.serving:
            keep_serving_on_errors()

    def on_shutdown(self) -> None:
        if self.settings:
            self.runner.close()
        if self.sigterm is not None:
            signal.signal(signal.SIGTERM, self.sigterm)  # as it was: MkDocs may run in a process that goes on
            self.sigterm = None

    def on_serve(self, server: LiveReloadServer, *, config: MkDocsConfig,
                 builder: Callable[..., Any]) -> LiveReloadServer:
        server.watch(str(self.snippets))
        self.ran.parent.mkdir(parents=True, exist_ok=True)
        self.ran.touch()
        server.watch(str(self.ran))  # written when a snippet the pages show as running ends
        self.server = server
        self.watch_data_folders(server)
        return server

    def watch_data_folders(self, server: LiveReloadServer) -> None:
        """Under serve, the folders snippets list and those of data files they read (bench/results)
        are watched, those a snippet starts reading in a later build too."""
        deps = {Path(d) for s in self.build.snippets.values() for d in s.result.deps}
        for folder in sorted({d if d.is_dir() else d.parent for d in deps}):
            if folder.is_dir() and not folder.is_relative_to(self.snippets) and str(folder) not in self.watched:
                self.watched.add(str(folder))
                server.watch(str(folder))

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        self.build = Build(self.runner, self.project, self.project / self.config.cache_dir, self.snippets,
                           self.config.snippets_dir, self.config.notebooks_dir,
                           wait=self.config.serve_wait if self.serving else None,
                           releases=ReleaseCheck.load(self.project / self.config.release_check))
        self.build.files(files, config)
        order = pages_of(config.nav)
        chapters = sorted(self.build.notebooks.values(),
                          key=lambda n: order.index(n.chapter.src_uri) if n.chapter.src_uri in order else len(order))
        list_notebooks(config.nav, f"{self.config.notebooks_dir}.md",
                       [(Path(n.ipynb.src_uri).name, n.page.src_uri) for n in chapters])
        for future in self.build.running:
            future.add_done_callback(lambda _: self.ran.write_text(str(time.time())))
        recorder = Path(autograd_steps.__file__).parent / "recording.py"  # the recorder alone, for readers
        files.append(File.generated(config, RECORDER, abs_src_path=str(recorder)))
        for name, path in kinds.assets().items():
            files.append(File.generated(config, f"{kinds.URL}/{name}", abs_src_path=str(path)))
        return files

    def on_nav(self, nav: Navigation, config: MkDocsConfig, files: Files) -> Navigation:
        self.nav_pages = [page.file.src_uri for page in nav.pages]  # in reading order
        self.site_files = entry_key(sorted(file.src_uri for file in files))  # what a page's links may go to
        return nav

    def on_env(self, env: Environment, config: MkDocsConfig, files: Files) -> Environment:
        """The pages are rendered: what is made of every snippet's run is made now, before MkDocs
        writes the files (build.py)."""
        self.build.finish(files)
        return env

    def bundle_link(self, page: Page) -> str:
        url = get_relative_url(BUNDLE, page.url)
        return (f'<a href="{url}" download>Download all examples</a> '
                "(a zip, by chapter, with the pinned requirements and a README)")

    def page_markdown(self, markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        build, uri = self.build, page.file.src_uri
        markdown = markdown.replace(ENVIRONMENT, build.environment).replace(BUNDLE_LINK, self.bundle_link(page))
        if RELEASES in markdown:
            markdown = markdown.replace(RELEASES, build.releases.site_summary(self.snippets) if build.releases else "")
        if NOTEBOOK_LIST in markdown:
            markdown = markdown.replace(NOTEBOOK_LIST, build.notebook_list(self.nav_pages, uri))
        if uri in build.notebooks:
            return build.notebook_page(uri)
        chapter = build.chapters.get(uri)
        if chapter is None or not chapter.blocks:
            return markdown
        if chapter.markdown != markdown:  # another plugin changed the page first
            chapter = parse(uri, markdown, self.snippets, chapter.first_line)
        build.check(chapter)
        markdown = pages.chapter_markdown(chapter, markdown, build, build.page(uri, page.url))
        if notebook := build.notebook_of(uri):
            url = get_relative_url(notebook.ipynb.url, page.url)
            markdown = pages.with_notebook_link(markdown, f'<p class="notebook-download"><a href="{url}" download>'
                                                f"Download this chapter as a Jupyter notebook</a> · "
                                                f"{self.bundle_link(page)}</p>")
        return markdown

    @event_priority(-200)  # last: the Markdown that MkDocs converts, as every plugin and hook left it
    def markdown_to_convert(self, markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """The page's Markdown, or "" where the cache holds what MkDocs made of it (page_cache.py):
        then MkDocs converts nothing, and `converted_content` gives the page what it made."""
        # MkDocs collects a page's links to other pages' anchors only where it does not log its debug lines.
        anchors = logging.getLogger("mkdocs.structure.pages").getEffectiveLevel() > logging.DEBUG
        key = made_key("converted", markdown, page.file.src_uri, page.url, config.markdown_extensions,
                       config.mdx_configs, config.validation, anchors, self.site_files)
        converted = self.build.cache.converted(key)
        self.converting[page.file.src_uri] = key, converted, WARNINGS.count
        return "" if converted else markdown

    on_page_markdown = CombinedEvent(page_markdown, markdown_to_convert)

    @event_priority(200)  # first: the page as MkDocs converted it (KaTeX typesets its formulas at 100)
    def converted_content(self, content: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        key, converted, warnings = self.converting.pop(page.file.src_uri)
        if converted:
            return converted.restore(page, files)
        if WARNINGS.count == warnings:  # a conversion that warned runs again, and warns again
            self.build.cache.put_converted(key, Converted.of(page, content))
        return content

    def page_content(self, content: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """The page's markers replaced, and its torch names linked to the reference (api_links.py)."""
        uri = page.file.src_uri
        content = self.build.page(uri, page.url).content(content)
        content = TITLE.sub(lambda m: self.download_link(m, page), content)
        assert self.build.names is not None, "on_files found the torch version"
        return api_links.link(content, uri, self.config.api_reference, self.build.names)

    on_page_content = CombinedEvent(converted_content, page_content)

    def on_post_page(self, output: str, page: Page, config: MkDocsConfig) -> str:
        """HTML kept out of the search index (pages.py) goes in now that search has read the page;
        the page gets the scripts and styles of the kinds of output it shows (a step-through's)."""
        html_of = self.build.page(page.file.src_uri, page.url)
        output = with_copy_buttons(html_of.late(output))
        tags = kinds.tags(html_of.scripts, get_relative_url(kinds.URL, page.url))
        return output.replace("</head>", tags + "</head>", 1) if tags else output

    def download_link(self, m: re.Match[str], page: Page) -> str:
        name = html.unescape(m[1])
        if not (self.snippets / name).is_file() or not name.endswith(".py"):
            return m[0]
        url = urllib.parse.quote(get_relative_url(f"{self.config.snippets_dir}/{name}", page.url))
        return f'<span class="filename"><a href="{url}" download title="Download {m[1]}">{m[1]}</a></span>'

    def on_post_build(self, config: MkDocsConfig) -> None:
        out = Path(config.site_dir) / pages.ASSETS
        out.mkdir(parents=True, exist_ok=True)
        for name, data in self.build.assets.items():
            (out / name).write_bytes(data)
        self.runner.prune()
        self.build.save()
        if self.server:
            self.watch_data_folders(self.server)
        if self.serving:
            self.runner.warm()  # the next edit's snippet finds the workers ready
        failures = self.build.failures
        if failures and not self.serving:
            listed = "\n".join(f"  {printable(message.splitlines()[0])}" for message in failures.values())
            raise PluginError(f"{len(failures)} snippet failure(s), each shown above in full:\n{listed}")


def stop(signum: int, frame: object) -> None:
    """SIGTERM stops MkDocs as Ctrl-C does, through its `finally`s: `on_shutdown` stops the
    worker, and `mkdocs serve` removes the temporary site it serves. Then the process ends at
    once, without freeing what it holds one object at a time (after a large snippet's copies,
    that took seconds)."""
    atexit.register(exit_now, 128 + signum)  # the last registered, the first to run: after the `finally`s
    raise SystemExit(128 + signum)


def exit_now(status: int) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def keep_serving_on_errors() -> None:
    """Under `mkdocs serve`, errors must not abort a rebuild: strict mode would leave
    the server stuck on the old pages. They are on the page and in the log instead."""
    for handler in logging.getLogger("mkdocs").handlers:
        if isinstance(handler, CountHandler) and not_counted not in handler.filters:
            handler.addFilter(not_counted)


def not_counted(record: logging.LogRecord) -> bool:
    return False
