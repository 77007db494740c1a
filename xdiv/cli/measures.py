"""``xdiv measures``: the measure reference and the named measure sets."""

from __future__ import annotations

from ..measures.names import describe_sets
from ..measures.registry import registry_markdown
from .common import command


def measures_page() -> str:
    """The docs page ``docs/measures.md``, generated from the measure registry."""
    return ("# Measure reference\n\n"
            "Generated from xdiv's measure registry by `xdiv measures`; do not edit by hand.\n"
            "Names follow `NAME[(key=value,...)][@cutoff]`, e.g. `Q(beta=0)@10`.\n\n"
            + registry_markdown()
            + "\n## Measure sets\n\nWherever a list of measures is accepted, these names "
              "stand for their members.\n\n" + describe_sets())


def add_parser(sub) -> None:
    command(sub, "measures", "print the measure reference (Markdown) from the registry", run,
            about="Print every registered measure with its name grammar, cutoff rule, "
                  "parameters and defaults, definition and source paper, and the named "
                  "measure sets (ndeval, gdeval, trec_eval, ntcir-intent), as the Markdown "
                  "of the docs' measure reference.",
            examples="examples:\n  xdiv measures > measures.md\n"
                     "  xdiv measures | grep -i nDCG")


def run(args) -> int:
    print(measures_page(), end="")
    return 0
