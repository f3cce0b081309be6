"""Run every Python snippet a page includes and show its output under it.

A page includes a snippet the pymdownx.snippets way, in a fence of its own:

    ```python
    --8<-- "autograd_basics/first_gradient.py:backward"
    ```

The whole file runs (through snippet_runner, cached by content); the block
then shows the output produced by the lines it displays: all of them, a named
section (`# --8<-- [start:name]` ... `[end:name]`) or a line range (`:3:9`).
The fence gets the file name as its title unless it has one.

`mkdocs build` stops on a snippet that raises, naming the page, the file, the
line and the traceback; `mkdocs serve` shows the error on the page instead
and keeps serving. EXECUTE_SNIPPETS=0 switches execution off (pages show
code only), which bench/build_time.py uses as the plain-Markdown baseline.
"""

import logging
import secrets
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

import snippet_html
from snippet_includes import FENCE, includes_in, line_range
from snippet_runner import WORKER_PROCESS, SnippetError, SnippetRunner, execution_enabled

log = logging.getLogger("mkdocs.hooks.snippet_outputs")

ASSETS = "assets/snippet-outputs"

state = {"serving": False, "runner": None, "snippets": None, "assets": {}, "outputs": {}, "token": ""}


def on_startup(command, dirty):
    state["serving"] = command == "serve"


def on_shutdown():
    WORKER_PROCESS.close()


def on_config(config):
    root = Path(config.config_file_path).resolve().parent
    state["snippets"] = root / "snippets"
    state["runner"] = SnippetRunner(state["snippets"], root / ".cache" / "snippet-outputs")
    state["assets"], state["outputs"] = {}, {}
    state["token"] = secrets.token_hex(4)  # page markers no prose can contain


def on_page_markdown(markdown, page, config, files):
    if not execution_enabled():
        return markdown
    outputs = state["outputs"][page.file.src_uri] = []

    def replace(fence):
        found = includes_in(fence, state["snippets"])
        if not found:
            return fence[0]
        for include in found:
            if not include.path.exists():
                raise PluginError(f"{page.file.src_uri}: included snippet does not exist: {include.path}")
        blocks = [output_html(include, page) for include in found]
        info = fence["info"] if "title=" in fence["info"] else f'{fence["info"]} title="{found[0].file}"'
        indent, mark = fence["indent"], fence["fence"]
        head = f"{indent}{mark}{info}\n{fence['body']}{indent}{mark}\n"
        if not any(blocks):
            return head
        outputs.append("\n".join(filter(None, blocks)))
        return f"{head}\n{indent}{marker(len(outputs) - 1)}\n"

    return FENCE.sub(replace, markdown)


def marker(n):
    return f"snippetoutput{state['token']}n{n}"


def output_html(include, page):
    path = include.path
    result = state["runner"].run(path)
    if result.error:
        message = f"{page.file.src_uri}: snippet {SnippetError(result)}"
        if not state["serving"]:
            raise PluginError(message)
        log.error(message)
        return snippet_html.error_block(message)
    try:
        first, last = line_range(path, include.select)
    except ValueError as err:
        raise PluginError(f"{page.file.src_uri}: {err}") from None

    def asset_url(name, data):
        state["assets"][name] = data
        return get_relative_url(f"{ASSETS}/{name}", page.url)

    return snippet_html.render(result.select(first, last), asset_url)


def on_page_content(html, page, config, files):
    for n, block in enumerate(state["outputs"].get(page.file.src_uri, [])):
        html = html.replace(f"<p>{marker(n)}</p>", block, 1)
    return html


def on_post_build(config):
    out = Path(config.site_dir) / ASSETS
    out.mkdir(parents=True, exist_ok=True)
    for name, data in state["assets"].items():
        (out / name).write_bytes(data)
