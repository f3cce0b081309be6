"""The snippet engine of this site, as MkDocs plugins (`snippets` and `katex` in mkdocs.yml).

Modules, one concern each:

- plugin.py      the MkDocs plugin: typed settings, MkDocs's events; owns the runner
- material.py    what Material does to a page in the browser (copy buttons), done at build time
- nav.py         the nav's pages in reading order, and the notebooks' pages listed in it
- build.py       one build: the chapters, their snippets run, failures, the files it adds
- pages.py       a chapter's page and its notebook's page, and the one way HTML goes into them
- chapter.py     a chapter parsed once: prose and the snippets its code blocks include
- runner.py      runs a snippet (or takes it from the content cache); worker.py, the warm
                 process that forks a child per snippet
- shapes.py      what a run gives (outputs, failures), typed
- capture.py     what a running snippet prints and displays, as nbformat outputs
- torch_settings.py  torch's process-wide settings a snippet may leave changed (a notebook
                 sets them back before the next snippet's cells)
- kinds/         the kinds of output, one module each: how it is captured and shown
- render.py      what the kinds' HTML is made with, and the failure's block
- standalone/    a snippet (or the part of it a block shows) as code that runs on its own
- notebooks.py   a chapter as a Jupyter notebook
- cache_file.py  the one kind of cache; page_cache.py, rendered HTML kept by content
- api_links.py   links from torch names in prose to the PyTorch reference
- wheel.py       the step-through package (src/autograd_steps) as a wheel to download
- katex.py       the `katex` plugin: math typeset at build time
- system_tools.py  Graphviz, Chromium, an emoji font: checks, and how to install them
"""
