"""Imported once by the workers' fork server: it loads and runs what a worker needs.

Every worker process is forked from that server, so what is imported and cached here
(the rulesets, the renderers, the parsers, their first-use tables) is there, warm, in a
new worker at once: a worker started to replace a killed or retired one answers its
first question as fast as its hundredth.
"""

from __future__ import annotations

from fracas.web import jobs, operations
from fracas.web.operations import OddsOptions, ScenarioInput


def warm() -> None:
    """Answer a few questions of every bundled example, as a worker would. Never fails:
    a question that goes wrong here goes wrong in a worker too, and is answered there."""
    try:
        examples = operations.examples()
    except Exception:
        return
    for example in examples:
        given = ScenarioInput(example["scenario"], example["name"])
        jobs.run(jobs.Job("validate", {"given": given}))
        jobs.run(jobs.Job("resolve", {"given": given, "seed": 1}))
        options = OddsOptions(method="mc", runs=10, seed=1)
        jobs.run(jobs.Job("odds", {"given": given, "options": options}))


warm()
