"""What `make release-check` found (bench/release_check.py, its data file in the plugin's
`release_check` setting): the lines of snippets whose output is something else on another
release of torch. A page shows them under the block that runs them, and says which releases
its outputs were checked on; a snippet changed since the check is said to be unchecked."""

import difflib
import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from snippet_engine.render import escaped
from snippet_engine.runner import sha256


@dataclass(frozen=True)
class ReleaseCheck:
    ours: str  # the release the pages' outputs come from
    other: str  # the release they were checked on
    date: str
    snippets: dict[str, dict[str, Any]]  # {file under snippets/: {"sha256", "differs": [{"line", "ours", "theirs"}]}}
    # Each file's digest, by its size and time of change: read once while it stays as it is.
    digests: dict[tuple[Path, int, int], str | None] = field(default_factory=dict, compare=False)

    @classmethod
    def load(cls, path: Path) -> "ReleaseCheck | None":
        """The data file, or None where there is none."""
        if not path.is_file():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        checked = data["checked"]
        return cls(checked["ours_torch"], checked["other_torch"], checked["date"], data["snippets"])

    def differs(self, name: str, path: Path, first: int | None, last: int | None) -> list[dict[str, Any]] | None:
        """The lines from `first` to `last` of the snippet `name` (at `path`) whose output is
        something else on the other release; None when it was not checked as it is now (or
        is gone since)."""
        entry = self.snippets.get(name)
        if entry is None or not path.is_file():
            return None
        stat = path.stat()
        seen = (path, stat.st_size, stat.st_mtime_ns)
        if seen not in self.digests:
            self.digests[seen] = sha256(path)
        if entry["sha256"] != self.digests[seen]:
            return None
        return [d for d in entry["differs"]
                if d["line"] is not None and (first or 1) <= d["line"] <= (last or d["line"])]

    def note(self, lines: list[dict[str, Any]]) -> str:
        """Under a block: what its lines whose output is something else print on one release and
        not on the other, the lines of output they print alike left out."""
        ours: list[str] = []
        theirs: list[str] = []
        for d in lines:
            here, there = d["ours"].splitlines(), d["theirs"].splitlines()
            for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, here, there, autojunk=False).get_opcodes():
                if tag != "equal":
                    ours += here[i1:i2]
                    theirs += there[j1:j2]
        parts = ""
        for release, printed in ((self.ours, ours), (self.other, theirs)):
            if printed:
                text = escaped("\n".join(printed))
                parts += f'<p>Printed on torch {html.escape(release)} only:</p><pre class="snippet-printed">{text}</pre>'
        return (f'<div class="admonition note snippet-release"><p class="admonition-title">'
                f"On torch {html.escape(self.other)}</p><p>Run on torch {html.escape(self.other)} "
                f"({html.escape(self.date)}, <code>make release-check</code>), part of this output is "
                f"something else there.</p>{parts}</div>")

    def summary(self, changed: int, unchecked: int) -> str:
        """Under a chapter: which releases its outputs were checked on."""
        said = (f"{changed} of its blocks print{'s' * (changed == 1)} something else there, shown under "
                f"{'it' if changed == 1 else 'them'}" if changed else "every block prints the same there")
        if unchecked:
            said += f"; {unchecked} of its snippets changed since, and were not checked"
        return (f'<p class="snippet-releases">The outputs of this page come from torch {html.escape(self.ours)}; '
                f"its snippets were run on torch {html.escape(self.other)} too ({html.escape(self.date)}): {said}.</p>")

    def site_summary(self, snippets_dir: Path) -> str:
        """On the home page: what the check found over the whole site."""
        checked = {name: entry for name, entry in self.snippets.items()
                   if self.differs(name, snippets_dir / name, None, None) is not None}
        changed = [name for name, entry in checked.items() if entry["differs"]]
        lines = sum(len(checked[name]["differs"]) for name in changed)
        return (f"Every snippet was run on torch {self.other} too ({self.date}): {len(changed)} of the "
                f"{len(checked)} snippets checked print something else there, at {lines} of their lines, "
                "and each chapter shows it under the block that prints it.")
