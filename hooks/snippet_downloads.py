"""Every snippet is downloadable from the page that shows it.

The site carries each file of `snippets/` at the same path, and the title of
each snippet's code block (its file name) links to that file.
"""

import html
import re
from pathlib import Path

from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

TITLE = re.compile(r'<span class="filename">([^<]+)</span>')
state = {}


def on_files(files, config):
    snippets = Path(config.config_file_path).resolve().parent / "snippets"
    state["names"] = set()
    for path in sorted(snippets.rglob("*.py")):
        name = path.relative_to(snippets).as_posix()
        state["names"].add(name)
        files.append(File.generated(config, f"snippets/{name}", abs_src_path=str(path)))
    return files


def on_page_content(content, page, config, files):
    def link(m):
        name = html.unescape(m[1])
        if name not in state["names"]:
            return m[0]
        url = get_relative_url(f"snippets/{name}", page.url)
        return f'<span class="filename"><a href="{url}" download title="Download {m[1]}">{m[1]}</a></span>'

    return TITLE.sub(link, content)
