"""The snippet engine of this site, as a MkDocs plugin (`snippets` in mkdocs.yml).

Modules, one concern each:

- plugin.py    the MkDocs plugin: typed settings, owns the runner and its worker
- chapter.py   a chapter parsed once: prose and the snippets its code blocks include
- runner.py    runs a snippet (or takes it from the content cache)
- worker.py    the warm process that forks a child per snippet
- scrapers.py  what a running snippet produces, as nbformat outputs
- render.py    outputs and failures as HTML
- steps_view.py  the step-through viewer of a recorded backward pass (its script and
               styles: assets/steps.js, assets/steps.css)
- standalone.py  a snippet (or the part of it a block shows) as a file that runs on its own
- notebooks.py a chapter as a Jupyter notebook, and the notebook's page
- api_links.py links from torch names in prose to the PyTorch reference
"""
