"""Equipment profiles: what is on the bench, how it is connected, and how simulators behave."""

from bench.profiles.base import Identity, SerialConnection
from bench.profiles.loader import ProfileError, builtin_profiles, load_profile, load_profile_text
from bench.profiles.model import (
    Equipment,
    Profile,
    RouletteOptions,
    RouletteSimulator,
    RouletteWheelEquipment,
)

__all__ = [
    "Equipment",
    "Identity",
    "Profile",
    "ProfileError",
    "RouletteOptions",
    "RouletteSimulator",
    "RouletteWheelEquipment",
    "SerialConnection",
    "builtin_profiles",
    "load_profile",
    "load_profile_text",
]
