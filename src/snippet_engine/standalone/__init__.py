"""What a reader takes away: a block's copy, a snippet's download, a notebook's cells.

Each is what the reader would have written: plain code that runs on its own in
an empty folder, and writes no file the snippet itself does not write.

- A block's copy is the block plus what it uses, directly or through what it
  calls: the imports, the earlier definitions and statements it needs, and
  the statements that change what it uses (`out.backward()` before a block
  that prints `x.grad`, a seed before one that draws random numbers). What it
  does not use (earlier prints, plots, unrelated definitions) is left out,
  and so is what only shows something: a call of a function that only prints
  or plots, a hook that only prints, an error an earlier block shows (a try
  whose handlers only show: the second backward() of a freed graph), so that
  a copy prints what its block shows and no more. A statement it needs that
  also prints (a training loop) is kept without its prints, as are the
  functions only the setup calls (a hook the setup registers and runs); this
  takes it that a block does not run a hook an earlier block registered
  (tests/site/test_copies.py compares every copy's output with its block's).
  Bindings the code does not spell out count too: a call of a function that
  assigns a `global`, a walrus in a comprehension, a `match` capture, `from m
  import *`, `builtins.x = ...`; and so do the names a lambda or a generator
  expression reads when it runs, and a change of torch's process-wide settings
  (`torch.set_grad_enabled(False)`), which every later copy keeps. Where an
  earlier statement the copy leaves out has an effect the analysis cannot
  follow (exec(), globals(), setattr(), a method that changes its class, a
  cached function, a file written and read back, a generator object drawn
  from, a function that seeds), the copy says why (`Program.unsure`,
  unsure.py) and the build warns at the block.
  That setup is plain code: without the comment lines, docstrings and blank
  lines inside definitions that the page shows where it teaches that code
  (`plain`); the block's own lines are as shown.
- A helper module of the project (`from elu import ELUCustom`) is inlined:
  the definitions the code needs from it, as code, and the import dropped;
  a module imported whole (`import tiny_autograd as tiny`) becomes a function
  holding those definitions that returns them as a namespace.
- A data file the snippet reads with `json.loads(path.read_text())` becomes
  its values, as a literal in place of the call (in a copy only the part of
  them the copy's code takes: `used_data`); the lines that only found
  its path from `__file__` go. The setup fold on the page shows values of
  more than `FOLDED_DATA` characters as `...`, saying so: the page shows a
  fold for each block that reads them, the copy holds them once.

The dependency analysis is a backward liveness pass over the top-level
statements, a few dozen lines of `ast`: the tools that do this for whole
programs (tree shakers, bundlers) do not keep the reader's own lines.

Modules:

- statements.py  a file's top-level statements: what each reads, binds and does
- needs.py       which earlier statements a block needs (liveness, effects, seeds)
- unsure.py      what a copy cannot be sure of: the effects it cannot follow
- data.py        a data file's values, trimmed to the part a copy's code uses
- text.py        code as a reader writes it: plain setup, imports, blank lines
- source.py      a snippet file as its copies, notebook cells and download
- bundle.py      the zip of every example's download
"""

from snippet_engine.standalone.bundle import bundle, requirements
from snippet_engine.standalone.data import data_file, data_values
from snippet_engine.standalone.source import Inlined, Program, Source, project_module
from snippet_engine.standalone.statements import Statement, names
from snippet_engine.standalone.text import join

__all__ = ["Inlined", "Program", "Source", "Statement", "bundle", "data_file", "data_values", "join", "names",
           "project_module", "requirements"]
