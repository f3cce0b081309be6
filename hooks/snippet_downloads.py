"""Every snippet is downloadable from the page that shows it.

The site carries each file of `snippets/` at the same path, and the title of
each snippet's code block (its file name) links to that file.
"""

import html
from pathlib import Path

from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

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
    for name in state["names"]:
        title = f'<span class="filename">{html.escape(name)}</span>'
        if title in content:
            url = get_relative_url(f"snippets/{name}", page.url)
            link = f'<span class="filename"><a href="{url}" download title="Download {name}">{name}</a></span>'
            content = content.replace(title, link)
    return content
