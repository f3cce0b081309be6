"""The MkDocs plugin: every snippet a page includes runs, and its output shows under it.

For each chapter (parsed once, chapter.py) the plugin:

- runs the snippets its code blocks include (runner.py; cached by content)
  and puts under each block the output of the lines it shows;
- folds the lines a block needs but does not show ("N lines of setup")
  above it, and makes its copy button copy the runnable whole
  (standalone.py);
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

import hashlib
import html
import itertools
import logging
import os
import platform
import re
from pathlib import Path

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File
from mkdocs.utils import CountHandler, get_relative_url, meta

from snippet_engine import api_links, notebooks, render, standalone
from snippet_engine.chapter import parse
from snippet_engine.page_cache import PageCache, key
from snippet_engine.runner import Runner, fingerprint
from snippet_engine.system_tools import check_dot

log = logging.getLogger("mkdocs.plugins.snippets")
ASSETS = "assets/snippet-outputs"
SCRIPTS = "assets/snippet-engine"  # the step-through viewer's script and styles (steps_view.py)
BUNDLE = "downloads/examples.zip"  # every example as its download, with requirements.txt
RECORDER = "downloads/autograd_steps.py"  # step_through, for readers' own code
# What a page may ask the plugin to write for it, in its Markdown.
ENVIRONMENT = "<!-- snippets: environment -->"
BUNDLE_LINK = "<!-- snippets: examples -->"
NOTEBOOK_LIST = "<!-- snippets: notebooks -->"  # every chapter's notebook, with its download
MARK = "snippetengine0mark"  # in markers that a page's HTML has until the plugin replaces them
TITLE = re.compile(r'<span class="filename">([^<]+)</span>')
# A code block as Material finds it (`pre:not(.mermaid) > code`), with its line spans if it has them.
CODE_BLOCK = re.compile(r'(<pre(?![^>]*\bmermaid\b)[^>]*>(?:<span></span>)?)<code>(?=(<span id="__span)?)')


class SnippetsConfig(base.Config):
    snippets_dir = c.Type(str, default="snippets")
    """Folder of the runnable examples, relative to mkdocs.yml."""
    cache_dir = c.Type(str, default=".cache/snippets")
    """Where results are cached by content, relative to mkdocs.yml."""
    workers = c.Type(int, default=os.cpu_count() or 1)
    """Snippets run at once, each in a warm worker process of its own."""
    timeout = c.Type(int, default=600)
    """Seconds a snippet may run before it is stopped and reported."""
    output_limit = c.Type(int, default=20_000)
    """Characters of a snippet's printed output kept: the first and last half, the cut said."""
    preload = c.ListOfItems(c.Type(str), default=["torch", "matplotlib.pyplot", "graphviz", "torchviz"])
    """Modules the worker imports once, so that each snippet starts warm."""
    fingerprint_packages = c.ListOfItems(c.Type(str), default=["torch", "torchviz", "graphviz", "matplotlib",
                                                               "numpy"])
    """Packages whose versions are part of every cache key."""
    notebooks_dir = c.Type(str, default="notebooks")
    """Where chapters' notebooks and their pages go in the site."""
    api_reference = c.Type(str, default="https://docs.pytorch.org/docs/stable/")
    """The PyTorch reference that torch names in prose link to (api_links.py)."""


class SnippetsPlugin(BasePlugin[SnippetsConfig]):
    runner: Runner  # made with the settings, in on_config

    def __init__(self):
        self.settings, self.serving = None, False

    def on_startup(self, *, command, dirty):
        self.serving = command == "serve"

    def on_config(self, config):
        check_dot()
        root = Path(config.config_file_path).resolve().parent
        self.project = root
        self.snippets = root / self.config.snippets_dir
        settings = (self.snippets, root / self.config.cache_dir, self.config.timeout, self.config.output_limit,
                    tuple(self.config.preload), tuple(self.config.fingerprint_packages), self.config.workers)
        if settings != self.settings:
            if self.settings:
                self.runner.close()
            self.runner, self.settings = Runner(*settings), settings
            self.pages = PageCache(root / self.config.cache_dir / "pages")
        self.chapters, self.results, self.failures, self.sources, self.recorded = {}, {}, {}, {}, set()
        self.html, self.assets, self.late, self.shown = {}, {}, {}, {}
        self.notebook_pages, self.cached_pages, self.page_keys = set(), {}, {}
        if self.serving:
            keep_serving_on_errors()

    def on_shutdown(self):
        if self.settings:
            self.runner.close()

    def on_serve(self, server, *, config, builder):
        server.watch(str(self.snippets))
        for folder in sorted({Path(d).parent for r in self.results.values() for d in r.deps}):
            if folder.is_dir() and not folder.is_relative_to(self.snippets):
                server.watch(str(folder))  # data files snippets read (bench/results)
        return server

    # Running and failures

    def result(self, path):
        if path not in self.results:
            self.results[path] = self.runner.run(path, steps=path in self.recorded)
        return self.results[path]

    def source(self, path):
        """A snippet read as the program a reader takes away (standalone.py), once per build."""
        if path not in self.sources:
            data = standalone.data_values(self.result(path).deps) if path.suffix == ".py" else None
            self.sources[path] = standalone.Source(path, self.project, data)
        return self.sources[path]

    def check(self, chapter):
        """Run the chapter's snippets; log each failure once, naming page, file and line."""
        for block in chapter.blocks:
            line = chapter.markdown.count("\n", 0, block.start) + 1
            for include in block.includes:
                spec = include.file + (f":{include.select}" if include.select else "")
                if include.problem:
                    message = f'the include "{spec}": {include.problem}'
                elif include.is_snippet and (result := self.result(include.path)).error:
                    message = f"snippet {result.describe()}"
                else:
                    continue
                where = (chapter.src_uri, include.file, include.problem)
                if where not in self.failures:
                    self.failures[where] = f"{chapter.src_uri}:{line}: {message}"
                    log.error(self.failures[where])

    def failure(self, chapter, include):
        return self.failures.get((chapter.src_uri, include.file, include.problem))

    # Files: notebooks, their pages, downloads

    def on_files(self, files, config):
        found = fingerprint(self.runner.packages)  # what produces the outputs: Python, packages, GPU
        for file in [f for f in files.documentation_pages() if f.src_uri.endswith(".md")]:
            self.chapters[file.src_uri] = parse(file.src_uri, file.content_string, self.snippets)
        self.recorded = {path for chapter in self.chapters.values() for path in chapter.recorded}
        # Every snippet a page includes, and every file a download is made of, run at once.
        included = {i.path for c in self.chapters.values() for i in c.snippets}
        paths = sorted(included | set(self.snippets.rglob("*.py")))
        for path, result in zip(paths, self.runner.run_all([(p, p in self.recorded) for p in paths])):
            self.results[path] = result
        for file in [f for f in files.documentation_pages() if f.src_uri in self.chapters]:
            chapter = self.chapters[file.src_uri]
            if chapter.blocks:
                self.check(chapter)
                if meta.get_data(file.content_string)[1].get("notebook", True):
                    self.add_notebook(chapter, files, config, found["packages"])
        recorder = Path(__file__).parent.parent / "autograd_steps.py"  # the reader's own step_through
        files.append(File.generated(config, RECORDER, abs_src_path=str(recorder)))
        assets = Path(__file__).parent / "assets"
        for name in ("steps.js", "steps.css"):
            files.append(File.generated(config, f"{SCRIPTS}/{name}", abs_src_path=str(assets / name)))
        programs = {}
        for path in sorted(self.snippets.rglob("*.py")):
            if path not in included and self.results[path].error:  # no page shows it; no download has it
                self.failures[path] = f"no page includes snippet {self.results[path].describe()}"
                log.error(self.failures[path])
                continue
            name = path.relative_to(self.snippets).as_posix()
            programs[name] = self.source(path).whole()
            files.append(File.generated(config, f"{self.config.snippets_dir}/{name}", content=programs[name]))
        self.environment = environment(found)
        self.names = api_links.Names(self.project / self.config.cache_dir / "api-links" / "names.json",
                                     found["packages"]["torch"], self.runner)
        files.append(File.generated(config, BUNDLE, content=standalone.bundle(programs, found["packages"],
                                                                            self.environment)))
        return files

    def on_nav(self, nav, config, files):
        self.nav_pages = [page.file.src_uri for page in nav.pages]  # in reading order
        return nav

    def bundle_link(self, page):
        url = get_relative_url(BUNDLE, page.url)
        return (f'<a href="{url}" download>Download all examples</a> '
                "(a zip, by chapter, with the pinned requirements and a README)")

    def add_notebook(self, chapter, files, config, packages):
        slug = Path(chapter.src_uri).with_suffix("").as_posix()
        folder = self.config.notebooks_dir
        results = {i.path: self.result(i.path) for i in chapter.snippets}
        cells = notebooks.chapter_cells(chapter, results, self.source)
        install = notebooks.install_cell(packages, cells)
        ipynb = File.generated(config, f"{folder}/{slug}.ipynb", content=notebooks.notebook_json(cells, install))
        page = File.generated(config, f"{folder}/{slug}.md", content="")
        title = notebooks.title(chapter.markdown)
        download = get_relative_url(ipynb.url, page.url)
        site = PageSite(self, page.url)
        page.content_string = notebooks.notebook_page(
            title, download, cells, lambda outputs: self.marker(page.src_uri, self.outputs_html(outputs, page.url)),
            lambda code: self.marker(page.src_uri, copy_attribute(code)),
            lambda code, n: self.marker(page.src_uri,
                                        site.after_search(self.fold(code, f"the helper modules (In [{n}])"))))
        files.append(ipynb)
        files.append(page)
        self.notebook_pages.add(page.src_uri)

    # Pages

    def marker(self, src_uri, html_text):
        """A paragraph that on_page_content replaces with `html_text`."""
        found = self.html.setdefault(src_uri, [])
        found.append(html_text)
        return f"{MARK}n{len(found) - 1}"

    def outputs_html(self, outputs, page_url, block=None):
        return render.outputs_html(outputs, PageSite(self, page_url), block)

    def on_page_markdown(self, markdown, page, config, files):
        markdown = markdown.replace(ENVIRONMENT, self.environment).replace(BUNDLE_LINK, self.bundle_link(page))
        if NOTEBOOK_LIST in markdown:
            markdown = markdown.replace(NOTEBOOK_LIST, notebook_list(self.nav_pages, self.chapters, self.notebook_pages,
                                                                    self.config.notebooks_dir, page.file.src_uri))
        if page.file.src_uri in self.notebook_pages:
            return self.notebook_markdown(markdown, page, config)
        chapter = self.chapters.get(page.file.src_uri)
        if chapter is None or not chapter.blocks:
            return markdown
        if chapter.markdown != markdown:  # another plugin changed the page first
            chapter = parse(page.file.src_uri, markdown, self.snippets)
        parts, done = [], 0
        for block in chapter.blocks:
            parts += [markdown[done:block.start], self.block_markdown(chapter, block, page)]
            done = block.end
        parts.append(markdown[done:])
        return self.with_notebook_link("".join(parts), page)

    def with_notebook_link(self, markdown, page):
        slug = Path(page.file.src_uri).with_suffix("").as_posix()
        if f"{self.config.notebooks_dir}/{slug}.md" not in self.notebook_pages:
            return markdown
        url = get_relative_url(f"{self.config.notebooks_dir}/{slug}.ipynb", page.url)
        link = (f'<p class="notebook-download"><a href="{url}" download>'
                f"Download this chapter as a Jupyter notebook</a> · {self.bundle_link(page)}</p>")
        title, _, rest = markdown.partition("\n")
        return f"{title}\n\n{link}\n{rest}" if title.startswith("# ") else f"{link}\n\n{markdown}"

    def block_markdown(self, chapter, block, page):
        """A code block as the page shows it: setup fold, code, copy, outputs or errors."""
        indent, uri = block.indent, page.file.src_uri
        failures = [f for i in block.includes if (f := self.failure(chapter, i))]
        if any(i.problem for i in block.includes):
            return indent + self.marker(uri, render.error_block("This code block cannot be shown",
                                                                "\n\n".join(failures))) + "\n"
        numbered = [(i.path.name, n, line) for i in block.includes for n, line in i.numbered()]
        lines = [line for *_, line in numbered]
        info = block.info if "title=" in block.info else f'{block.info} title="{block.includes[0].file}"'
        if block.steps:  # the viewer names lines by their number in the file
            info += f' linenums="{block.includes[0].first or 1}"'
        fence = "\n".join([indent + block.fence + info, *(indent + line for line in lines), indent + block.fence])
        parts = [fence]
        snippets = [i for i in block.includes if i.is_snippet]
        if len(block.includes) == 1 and snippets:
            parts[:0] = self.setup_and_copy(block.includes[0], indent, page)
        outputs = [o for i in snippets for o in self.result(i.path).select(i.first, i.last)]
        if outputs:
            code = list(itertools.dropwhile(lambda n: not n[2], numbered))  # the highlighter drops leading empty lines
            shown = {(name, n): k for k, (name, n, _) in enumerate(code, 1)}
            parts.append(indent + self.marker(uri, self.outputs_html(outputs, page.url, shown)))
        if failures:
            parts.append(indent + self.marker(uri, render.error_block("This snippet failed", "\n\n".join(failures))))
        return "\n\n".join(parts) + "\n"  # a marker is a paragraph of its own, even when prose follows the fence

    def setup_and_copy(self, include, indent, page):
        """The folded setup a block needs, and the marker that gives its copy button the runnable whole."""
        uri = page.file.src_uri
        program = self.source(include.path).program(include.first, include.last)
        parts = []
        if program.setup:
            # Rendered here (cached) and put in after search: the same code is on the page already.
            fold = self.fold(program.setup, "setup, run before the code below and copied with it")
            parts.append(indent + self.marker(uri, PageSite(self, page.url).after_search(fold)))
        parts.append(indent + self.marker(uri, copy_attribute(program.copy + "\n")))
        return parts

    def fold(self, code, what):
        """Code folded away: "N lines of <what>", opened on demand."""
        lines = code.count("\n") + 1
        title = f"{lines} line{'s' * (lines != 1)} of {what}"
        return (f'<details class="snippet-setup"><summary>{title}</summary>'
                f"{self.pages.highlighted(code + chr(10))}</details>")

    def notebook_markdown(self, markdown, page, config):
        """A notebook page rendered before with the same content is taken from the cache."""
        uri = page.file.src_uri
        self.page_keys[uri] = key(markdown, self.html.get(uri, []), page.url, config.markdown_extensions,
                                  config.mdx_configs)
        cached = self.pages.page(self.page_keys[uri])
        if cached is None:
            return markdown
        self.cached_pages[uri] = cached
        return ""

    def on_page_content(self, content, page, config, files):
        """The page's markers replaced, and its torch names linked to the reference (api_links.py).
        A notebook page is cached unlinked: its links and warnings are made anew on every build."""
        uri = page.file.src_uri
        if uri in self.cached_pages:
            content, page.toc = self.cached_pages[uri]
            return api_links.link(content, uri, self.config.api_reference, self.names)
        blocks = self.html.get(uri, [])

        def place(m):
            text, following = blocks[int(m["n"])], m["cls"] and f'<div class="{m["cls"]}'
            if text.startswith("data-copy="):  # for the code block right after it
                return f"<div {text} class=\"{m['cls']}" if following else ""
            return text + (following or "")

        content = re.sub(rf'<p>{MARK}n(?P<n>\d+)</p>(?:\s*<div class="(?P<cls>[^"]*highlight))?', place, content)
        content = TITLE.sub(lambda m: self.download_link(m, page), content)
        if uri in self.notebook_pages:
            self.pages.put_page(self.page_keys[uri], content, page.toc)
        return api_links.link(content, uri, self.config.api_reference, self.names)

    def on_post_page(self, output, page, config):
        """HTML kept out of the search index (render.py) goes in now that search has read the page;
        a page with a step-through viewer gets its script and styles."""
        output = re.sub(rf"<!--{MARK}late(\w+)-->", lambda m: self.late[m[1]], output)
        output = with_copy_buttons(output)
        url = get_relative_url(SCRIPTS, page.url)
        tags = ""
        if '<figure class="snippet-steps">' in output:
            tags += f'<link rel="stylesheet" href="{url}/steps.css"><script src="{url}/steps.js" defer></script>'
        return output.replace("</head>", tags + "</head>", 1) if tags else output

    def download_link(self, m, page):
        name = html.unescape(m[1])
        if not (self.snippets / name).is_file() or not name.endswith(".py"):
            return m[0]
        url = get_relative_url(f"{self.config.snippets_dir}/{name}", page.url)
        return f'<span class="filename"><a href="{url}" download title="Download {m[1]}">{m[1]}</a></span>'

    def on_post_build(self, config):
        out = Path(config.site_dir) / ASSETS
        out.mkdir(parents=True, exist_ok=True)
        for name, data in self.assets.items():
            (out / name).write_bytes(data)
        self.runner.prune()
        self.pages.prune()
        if self.failures and not self.serving:
            listed = "\n".join(f"  {message.splitlines()[0]}" for message in self.failures.values())
            raise PluginError(f"{len(self.failures)} snippet failure(s), each shown above in full:\n{listed}")


class PageSite:
    """What render.py needs from the site for one page: files, and HTML put in after search."""

    def __init__(self, plugin, page_url):
        self.plugin, self.page_url = plugin, page_url

    def asset_url(self, name, data):
        self.plugin.assets[name] = data
        return get_relative_url(f"{ASSETS}/{name}", self.page_url)

    def first_time(self, what):
        """True the first time the page shows `what` (a warning), False after."""
        seen = self.plugin.shown.setdefault(self.page_url, set())
        return not (what in seen or seen.add(what))

    def after_search(self, fragment):
        digest = hashlib.sha256(fragment.encode()).hexdigest()[:16]
        self.plugin.late[digest] = fragment
        return f"<!--{MARK}late{digest}-->"  # a comment: the search index skips it


def notebook_list(nav_pages, chapters, notebook_pages, folder, src_uri):
    """The Markdown list of every chapter's notebook, in the order of the nav, for the page at `src_uri`."""
    entries = []
    for uri in nav_pages:
        slug = Path(uri).with_suffix("").as_posix()
        if f"{folder}/{slug}.md" in notebook_pages:
            markdown = chapters[uri].markdown
            entries.append((notebooks.title(markdown), get_relative_url(f"{folder}/{slug}.md", src_uri),
                            get_relative_url(f"{folder}/{slug}.ipynb", src_uri), notebooks.summary(markdown)))
    return notebooks.index_markdown(entries)


def environment(found):
    """What produced the outputs, in words, from the engine's fingerprint (part of every cache key)."""
    packages = [f"{name} {version}" for name, version in found["packages"].items() if version]
    return (f"Python {found['python']}, {', '.join(packages[:-1])} and {packages[-1]}, on "
            f"{platform.system()} ({platform.machine()}), {'with' if found['gpu'] else 'without'} a GPU")


def copy_attribute(code):
    """What a code block's copy button copies (Material reads `data-copy` of the block)."""
    return f'data-copy="{html.escape(code)}"'


def with_copy_buttons(page):
    """Every code block's copy button, written as Material's `content.code.copy` would add it.

    Material adds the button in the browser, block after block, reading each block's
    size after changing it: on a page of 50 code blocks that lays the whole page out 50
    times and blocks a phone for seconds. Written here, with the class Material adds to
    a block of line spans, Material's code blocks find nothing to change, and its
    clipboard (which listens on the whole document) copies the block's `data-copy`."""
    count = itertools.count(1)

    def button(m):
        n = next(count)
        lines = ' class="md-code__content"' if m[2] else ""
        return (f'{m[1]}<nav class="md-code__nav"><button class="md-code__button" title="Copy to clipboard" '
                f'data-clipboard-target="#__copy_{n}" data-md-type="copy"></button></nav>'
                f'<code id="__copy_{n}"{lines}>')

    return CODE_BLOCK.sub(button, page)


def keep_serving_on_errors():
    """Under `mkdocs serve`, errors must not abort a rebuild: strict mode would leave
    the server stuck on the old pages. They are on the page and in the log instead."""
    for handler in logging.getLogger("mkdocs").handlers:
        if isinstance(handler, CountHandler) and not_counted not in handler.filters:
            handler.addFilter(not_counted)


def not_counted(record):
    return False
