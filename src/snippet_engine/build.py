"""One build of the site, as the engine sees it: the chapters, their snippets run, the
failures found, and the files the engine adds (downloads, notebooks and their pages).

The plugin (plugin.py) makes a `Build` for every build and hands it MkDocs's events.
`files` (on_files) starts every snippet and adds the engine's files, but waits for no
run: MkDocs renders the pages meanwhile, and a page waits only for its own snippets
when it is rendered. What is made of every result (the downloads and the examples'
zip, the notebooks, the failures of pages that were not rendered) is made by
`finish` (on_env), once the pages are done and before MkDocs writes the files.
`mkdocs serve` waits for the runs in `files` instead, `wait` seconds at most.
"""

import functools
import logging
import platform
from concurrent.futures import Future
from concurrent.futures import wait as wait_for
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.utils import get_relative_url, meta

from snippet_engine import api_links, notebooks, pages, standalone, wheel
from snippet_engine.chapter import Chapter, Include, missing_file, parse
from snippet_engine.notebooks import Links
from snippet_engine.page_cache import PageCache, made_key
from snippet_engine.releases import ReleaseCheck
from snippet_engine.runner import Fingerprint, Result, Runner, fingerprint, sha256
from snippet_engine.shapes import failure

log = logging.getLogger("mkdocs.plugins.snippets")
BUNDLE = "downloads/examples.zip"  # every example as its download, with requirements.txt


@dataclass
class Snippet:
    """A snippet file of this build: how it ran, and the programs a reader takes away (its
    copies and download), which are kept in the cache with what they were made from."""
    path: Path
    result: Result
    project: Path
    cache: PageCache
    made: bool = False  # programs were made that the cache does not have yet
    running: bool = False  # still running (`mkdocs serve`): no outputs yet
    data: Any = field(init=False, default=None)  # the values of the data file it read, which its copies hold

    def __post_init__(self) -> None:
        """The data file read once; one that is not JSON is the snippet's failure (its outputs kept)."""
        try:
            self.data = standalone.data_values(self.result.deps) if self.path.suffix == ".py" else None
        except ValueError as err:  # UnicodeDecodeError too
            if not self.result.error:
                self.result = replace(self.result, error=failure("DataError", unreadable(self.result.deps, self.project, err)))

    @functools.cached_property
    def source(self) -> standalone.Source:
        held = standalone.data_file(self.result.deps) if self.data is not None else None
        files = [d for d in self.result.deps if d.suffix != ".py" and d.is_file() and d != held]
        return standalone.Source(self.path, self.project, self.data, files)

    @functools.cached_property
    def made_from(self) -> str:
        """What its programs and cells are made from: its code, the files it imports and reads
        (its helper modules, its data), and its outputs."""
        files = {str(p): sha256(p) for p in [self.path, *self.result.deps]}
        return made_key("snippet", files, self.result.outputs, self.result.error)

    @functools.cached_property
    def programs(self) -> dict[str, list[Any]]:
        """{"first:last:as_file": [setup, copy, unsure]} of the programs made so far."""
        saved = self.cache.get(self.made_from)
        well_formed = isinstance(saved, dict) and all(
            isinstance(v, list) and len(v) == 3 and isinstance(v[2], list)
            and all(isinstance(t, str) for t in [*v[:2], *v[2]])
            for v in saved.values())
        return cast(dict[str, list[Any]], saved) if well_formed else {}

    def program(self, first: int | None = None, last: int | None = None, as_file: bool = False) -> standalone.Program:
        entry = f"{first}:{last}:{as_file}"
        if entry not in self.programs:
            made = self.source.program(first, last, as_file)
            self.programs[entry] = [made.setup, made.copy, made.unsure]
            self.made = True
        return standalone.Program(*self.programs[entry])

    def save(self) -> None:
        if self.made and not self.running and not changed_while_built(self.result):
            self.cache.put(self.made_from, self.programs)


@dataclass
class Build:
    runner: Runner
    project: Path
    cache_dir: Path
    snippets_dir: Path
    snippets_url: str  # where the site serves the snippets as downloads
    notebooks_dir: str
    wait: float | None = None  # seconds to wait for snippets (`mkdocs serve`); None: until they end
    chapters: dict[str, Chapter] = field(default_factory=dict)
    snippets: dict[Path, Snippet] = field(default_factory=dict)
    failures: dict[object, str] = field(default_factory=dict)  # each logged once, listed at the end
    html: dict[str, pages.PageHtml] = field(default_factory=dict)  # each page's, by its file
    assets: dict[str, bytes] = field(default_factory=dict)  # the outputs' files (pages.ASSETS)
    notebooks: dict[str, "Notebook"] = field(default_factory=dict)  # by the src_uri of its page
    started: dict[Path, Future[Result]] = field(default_factory=dict)  # runs no page has waited for yet
    downloads: dict[Path, File] = field(default_factory=dict)  # every snippet as a program of its own
    bundle: File | None = None
    environment: str = ""
    names: api_links.TorchNames | None = None
    links: Links | None = None  # where the notebooks' links go (files() makes them)
    running: list[Future[Result]] = field(default_factory=list)  # the runs the pages show as running
    releases: ReleaseCheck | None = None  # what `make release-check` found

    def __post_init__(self) -> None:
        self.cache = PageCache(self.cache_dir / "pages")
        standalone.project_module.cache_clear()  # a helper module may have appeared since the last build

    # What pages.py needs

    def snippet(self, path: Path) -> Snippet:
        """A snippet of the build, its run waited for (or made) the first time it is asked for."""
        if path not in self.snippets:
            future = self.started.pop(path, None)
            result = self.runner.wait(future) if future else self.runner.run(path)
            self.snippets[path] = Snippet(path, as_shown(result), self.project, self.cache)
        return self.snippets[path]

    def result(self, path: Path) -> Result:
        return self.snippet(path).result

    def source(self, path: Path) -> standalone.Source:
        """A snippet read as the program a reader takes away (standalone/), once per build."""
        return self.snippet(path).source

    def program(self, path: Path, first: int | None = None, last: int | None = None,
                as_file: bool = False) -> standalone.Program:
        return self.snippet(path).program(first, last, as_file)

    def is_running(self, path: Path) -> bool:
        return self.snippet(path).running

    def failure(self, chapter: Chapter, include: Include) -> str | None:
        return self.failures.get((chapter.src_uri, include.file, include.problem))

    def highlighted(self, code: str) -> str:
        return self.cache.highlighted(code)

    def page(self, src_uri: str, url: str) -> pages.PageHtml:
        if src_uri not in self.html:
            self.html[src_uri] = pages.PageHtml(url, self.assets)
        return self.html[src_uri]

    def save(self) -> None:
        """Keep what this build made for the next: the programs; and only what it used."""
        for snippet in self.snippets.values():
            snippet.save()
        self.cache.prune()

    # Files

    def files(self, files: Files, config: MkDocsConfig) -> None:
        """Start every snippet; add the chapters' notebooks (unless a chapter's front matter says
        `notebook: false`), their pages, and every snippet as a download, alone and in the
        examples' zip: their content is made once the snippets have run (`notebook_page`, `finish`)."""
        found = fingerprint(self.runner.settings.packages)  # what produces the outputs: Python, packages, GPU
        self.packages = found["packages"]
        documents = [f for f in files.documentation_pages() if f.src_uri.endswith(".md")]
        for file in documents:
            markdown, _ = meta.get_data(file.content_string)  # as the page's events get it
            self.chapters[file.src_uri] = parse(file.src_uri, markdown, self.snippets_dir,
                                                file.content_string.count("\n") - markdown.count("\n") + 1)
        options: dict[Path, frozenset[str]] = {}
        for chapter in self.chapters.values():
            for path, words in chapter.options.items():
                options[path] = options.get(path, frozenset()) | words
        # Every snippet a page includes, and every file a download is made of, run at once.
        self.included = {i.path for c in self.chapters.values() for i in c.snippets}
        downloads = self.find_snippets()
        self.run([(p, options.get(p, frozenset())) for p in sorted(self.included | set(downloads))])
        for file in documents:
            chapter = self.chapters[file.src_uri]
            if chapter.blocks and meta.get_data(file.content_string)[1].get("notebook", True):
                self.add_notebook(chapter, files, config)
        for path in downloads:
            name = path.relative_to(self.snippets_dir).as_posix()
            self.downloads[path] = File.generated(config, f"{self.snippets_url}/{name}", content="")
            files.append(self.downloads[path])
        self.environment = environment(found)
        self.names = api_links.TorchNames(self.cache, found["packages"]["torch"], self.runner)
        self.bundle = File.generated(config, BUNDLE, content=b"")
        files.append(self.bundle)
        files.append(File.generated(config, f"downloads/{wheel.filename()}", content=wheel.wheel()))
        self.links = Links(config.site_url, {f.src_uri: f.url for f in files},
                                     {n.chapter.src_uri: n.ipynb.src_uri for n in self.notebooks.values()},
                                     {n.chapter.src_uri: notebooks.anchors(n.chapter.markdown) for n in self.notebooks.values()})

    def find_snippets(self) -> list[Path]:
        """Every snippet file under snippets/; one that links outside it is a failure."""
        found = []
        for path in sorted(self.snippets_dir.rglob("*.py")):
            if path.resolve().is_relative_to(self.snippets_dir.resolve()):
                found.append(path)
            else:
                self.failures[path] = (f"snippets/{path.relative_to(self.snippets_dir).as_posix()} links to "
                                       f"{path.resolve()}, outside snippets/: a snippet is a file under snippets/")
                log.error(self.failures[path])
        return found

    def finish(self, files: Files) -> None:
        """Every run waited for; the failures of every chapter logged (those of pages MkDocs did
        not render too); the notebooks, the downloads and the examples' zip made. A snippet that
        fails and that no page includes gets no download, and fails the build."""
        for path in list(self.started):
            self.snippet(path)
        for snippet in self.snippets.values():
            if not snippet.running:  # a snippet may write another after that one's page was made
                snippet.result = as_shown(snippet.result)
        for chapter in self.chapters.values():
            self.check(chapter)
        for uri in self.notebooks:
            self.notebook_page(uri)
        programs: dict[str, str] = {}
        for path, file in self.downloads.items():
            result = self.result(path)
            if path not in self.included and result.error:  # no page shows it; no download has it
                self.failures[path] = f"no page includes snippet {result.describe()}"
                log.error(self.failures[path])
            if result.error and (path not in self.included or changed_while_built(result)):
                files.remove(file)
                continue
            name = path.relative_to(self.snippets_dir).as_posix()
            programs[name] = file.content_string = self.program(path, as_file=True).copy + "\n"
        assert self.bundle is not None, "files() made it"
        self.bundle.content_bytes = standalone.bundle(programs, self.packages, self.environment)

    def run(self, items: list[tuple[Path, frozenset[str]]]) -> None:
        """Start snippets, [(path, options)], all at once; a page waits for its own (`snippet`).
        With `wait`, they are waited for now, that many seconds at most: a snippet still running
        then (or started by an earlier build) is shown as running, and `running` holds its run."""
        started = dict(zip([path for path, _ in items], self.runner.start_all(items, once=self.wait is None)))
        if self.wait is None:
            self.started = {path: future for path, (future, _) in started.items()}
            return
        wait_for([future for future, now in started.values() if now], timeout=self.wait)
        self.running = [future for future, _ in started.values() if not future.done()]
        for path, (future, _) in started.items():
            done = future.done()  # asked once: a run may end between two asks
            result = as_shown(future.result()) if done else Result(path, [], 0.0, False)  # no outputs yet
            self.snippets[path] = Snippet(path, result, self.project, self.cache, running=not done)

    def check(self, chapter: Chapter) -> None:
        """Log each failure of the chapter's snippets once, naming page, file and line. An include
        whose file went since the page was read is one."""
        for block in chapter.blocks:
            line = chapter.line(block.start)
            for include in block.includes:
                result = self.result(include.path) if include.is_snippet and not include.problem else None
                if not include.problem and not include.path.is_file():  # a snippet may delete a file
                    include.problem = missing_file(include.file, self.snippets_dir)
                spec = include.file + (f":{include.select}" if include.select else "")
                if include.problem:
                    message = f'the include "{spec}": {include.problem}'
                elif result and result.error:
                    message = f"snippet {result.describe()}"
                else:
                    if result and len(block.includes) == 1 and (doubts := self.program(include.path, include.first, include.last).unsure):
                        log.warning(f"{chapter.src_uri}:{line}: the copy of {spec} may print other than its block: "
                                    + "; ".join(doubts))
                    continue
                where = (chapter.src_uri, include.file, include.problem)
                if where not in self.failures:
                    self.failures[where] = f"{chapter.src_uri}:{line}: {message}"
                    log.error(self.failures[where])

    def add_notebook(self, chapter: Chapter, files: Files, config: MkDocsConfig) -> None:
        """The chapter's notebook and the page that shows it, made when the page is rendered
        (`notebook_page`): the page's file holds its front matter only until then."""
        slug = Path(chapter.src_uri).with_suffix("").as_posix()
        ipynb = File.generated(config, f"{self.notebooks_dir}/{slug}.ipynb", content="")
        page = File.generated(config, f"{self.notebooks_dir}/{slug}.md", content=pages.NOTEBOOK_FRONT_MATTER)
        files.append(ipynb)
        files.append(page)
        self.notebooks[page.src_uri] = Notebook(chapter, ipynb, page)

    def notebook_page(self, src_uri: str) -> str:
        """The Markdown of a notebook's page below its front matter; the notebook itself is made
        with it, once (its cells are cached by what they are made of)."""
        notebook = self.notebooks[src_uri]
        if notebook.markdown is None:
            chapter = notebook.chapter
            made_from = made_key("cells", chapter.markdown, sorted(self.snippet(i.path).made_from for i in chapter.snippets))
            cells = self.cache.get(made_from)
            if not (isinstance(cells, list) and all(isinstance(c, dict) and "cell_type" in c for c in cells)):
                cells = notebooks.chapter_cells(chapter, {i.path: self.result(i.path) for i in chapter.snippets},
                                                self.source)
                self.cache.put(made_from, cells)
            assert self.links is not None, "files() made them"
            install = notebooks.install_cell(self.packages, cells, self.links.url(f"downloads/{wheel.filename()}"))
            notebook.ipynb.content_string = notebooks.notebook_json(cells, install, notebook.page.src_uri,
                                                                    chapter.src_uri, self.links)
            download = get_relative_url(notebook.ipynb.url, notebook.page.url)
            notebook.markdown = pages.notebook_markdown(notebooks.title(chapter.markdown), download, cells, self,
                                                        self.page(src_uri, notebook.page.url))
        return notebook.markdown

    def notebook_of(self, src_uri: str) -> "Notebook | None":
        """The notebook of the chapter at `src_uri`, if it has one."""
        return next((n for n in self.notebooks.values() if n.chapter.src_uri == src_uri), None)

    def notebook_list(self, nav_pages: list[str], src_uri: str) -> str:
        """The Markdown list of every chapter's notebook, in the order of the nav, for the page at `src_uri`."""
        entries = []
        for uri in nav_pages:
            if notebook := self.notebook_of(uri):
                markdown = self.chapters[uri].markdown
                entries.append((notebooks.title(markdown), get_relative_url(notebook.page.src_uri, src_uri),
                                get_relative_url(notebook.ipynb.src_uri, src_uri),
                                notebooks.summary(markdown)))
        return notebooks.index_markdown(entries)


@dataclass
class Notebook:
    """A chapter's notebook: its .ipynb and the page that shows it, both named as the chapter under
    `notebooks_dir`; the page's Markdown once made."""
    chapter: Chapter
    ipynb: File
    page: File
    markdown: str | None = None


def as_shown(result: Result) -> Result:
    """The result, or a failure when its snippet's file changed or went since its code ran:
    its page would show other code than ran."""
    return result if sha256(result.path) == result.source else changed(result.path)


def unreadable(deps: list[Path], project: Path, err: ValueError) -> str:
    """Why the data file a snippet read (`standalone.data_file`) is its failure."""
    file = standalone.data_file(deps)
    assert file is not None, "only a file is read"
    name = file.relative_to(project).as_posix() if file.is_relative_to(project) else str(file)
    return f"{name} cannot be read as JSON in UTF-8 ({err}); a copy of the snippet holds the values of the data file it reads"


def changed_while_built(result: Result) -> bool:
    return result.error is not None and result.error["type"] == "SnippetChanged"


def changed(path: Path) -> Result:
    return Result(path, [], 0.0, False, failure("SnippetChanged", "the file changed or was deleted during the "
                                                "build, after its code ran (by another snippet?): build again"))


def environment(found: Fingerprint) -> str:
    """What produced the outputs, in words, from the engine's fingerprint (part of every cache key)."""
    packages = [f"{name} {version}" for name, version in found["packages"].items() if version]
    return (f"Python {found['python']}, {', '.join(packages[:-1])} and {packages[-1]}, on "
            f"{platform.system()} ({platform.machine()}), {'with' if found['gpu'] else 'without'} a GPU")
