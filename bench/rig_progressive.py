"""What the rig adds to a simulated progressive controller's config: its link and the machines it reads.

The simulated controller (:mod:`drivers.sim.progressive_controller`) learns each linked machine's coin in from
that machine's simulator state file, so it is told where the rig keeps each one, and each machine's
denomination and bet per play (from the machine's PAR sheet) to turn coin-in credits into whole wagers in cents.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.profiles.model import Profile
from bench.profiles.progressive import ProgressiveControllerEquipment
from bench.profiles.slot import SlotMachineEquipment


def progressive_config(equipment: ProgressiveControllerEquipment, profile: Profile,
                       state_file: Callable[[str], Path]) -> dict[str, Any]:
    """``link`` (group, levels) and ``machines`` (state file, denomination, bet per play) of the controller."""
    machines: dict[str, Any] = {}
    for name in equipment.options.machines:
        machine = profile.equipment[name]
        assert isinstance(machine, SlotMachineEquipment)  # the profile model checked the links
        par = machine.options.par
        machines[name] = {"state_file": str(state_file(name)), "denomination_cents": par.denomination_cents,
                          "bet_per_play": par.bet_per_play}
    link = equipment.options.model_dump(mode="json", include={"group", "levels"})
    return {"link": link, "machines": machines}
