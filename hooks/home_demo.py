"""The home page shows the step-through of a chapter's block: the code and the viewer, as built.

`<!-- home: step-through of autograd_basics/watch_first_gradient.py -->` on the home page becomes
that snippet's code block and step-through viewer as the chapter that includes it shows them
(docs/autograd_basics.md). They are copied from the built chapter once the site is written:
the snippet engine makes a notebook of every page with a code block, and the home page is no
chapter. Relative links are rewritten for the home page, and the viewer's script and styles
linked from it. tests/test_home.py presses through the viewer on the home page.
"""

import posixpath
import re

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

MARKER = re.compile(r"<!-- home: step-through of ([\w/]+\.py) -->")
BLOCK_START = re.compile(r'<div [^>]*class="highlight"[^>]*>')
URL = re.compile(r'\b(href|src)="(?![a-z]+:|#|/)([^"]*)"')
VIEWER_ASSETS = re.compile(r'<link rel="stylesheet" href="[^"]*/steps\.css">(?:<script [^>]*steps\.js[^>]*></script>)?')


def moved(fragment, source_url, target_url):
    """`fragment`, cut from the page at `source_url`, with its relative URLs valid at `target_url`."""
    def rewrite(m):
        path, _, anchor = m[2].partition("#")
        absolute = posixpath.normpath(posixpath.join(posixpath.dirname("/" + source_url), path))
        relative = posixpath.relpath(absolute, posixpath.dirname("/" + target_url) or "/")
        return f'{m[1]}="{relative}{"#" + anchor if anchor else ""}"'

    return URL.sub(rewrite, fragment)


def shown(chapter_html, snippet):
    """The step-through viewer under the code block titled `snippet`, and the block itself
    where the viewer does not show the code beside its graph."""
    title = chapter_html.find(f">{snippet}</a>")
    steps = chapter_html.find('<figure class="snippet-steps"', title)
    if title < 0 or steps < 0:
        return None
    end = chapter_html.index("</figure>", steps) + len("</figure>")
    if "snippet-steps__code" in chapter_html[steps:end]:
        return chapter_html[steps:end]
    start = [m.start() for m in BLOCK_START.finditer(chapter_html, 0, title)][-1]
    return chapter_html[start:end]


def on_post_build(config):
    home = File("index.md", config.docs_dir, config.site_dir, config.use_directory_urls)
    with open(home.abs_dest_path, encoding="utf-8") as f:
        page = f.read()
    for m in reversed(list(MARKER.finditer(page))):
        chapter = File(m[1].split("/")[0] + ".md", config.docs_dir, config.site_dir, config.use_directory_urls)
        with open(chapter.abs_dest_path, encoding="utf-8") as f:
            chapter_html = f.read()
        fragment = shown(chapter_html, m[1])
        if fragment is None:
            raise PluginError(f"index.md: {chapter.src_uri} shows no step-through of {m[1]}")
        page = page[:m.start()] + moved(fragment, chapter.url, home.url) + page[m.end():]
        assets = VIEWER_ASSETS.search(chapter_html)
        if assets and "steps.css" not in page.split("</head>", 1)[0]:
            page = page.replace("</head>", moved(assets[0], chapter.url, home.url) + "</head>", 1)
    with open(home.abs_dest_path, "w", encoding="utf-8") as f:
        f.write(page)
