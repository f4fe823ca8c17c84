"""Analysis commands: ``metrics``, ``growth``, ``agreement``, ``composition``, ``health``, one
module each."""

from __future__ import annotations

import argparse

from cimem.cli.agreement import add_agreement_command
from cimem.cli.composition import add_composition_command
from cimem.cli.growth import add_growth_command
from cimem.cli.health import add_health_command
from cimem.cli.metrics import add_metrics_command
from cimem.cli.plan import add_plan_command


def add_analysis_commands(sub: argparse._SubParsersAction) -> None:
    add_metrics_command(sub)
    add_growth_command(sub)
    add_agreement_command(sub)
    add_composition_command(sub)
    add_health_command(sub)
    add_plan_command(sub)
