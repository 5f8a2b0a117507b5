"""Synthetic camera frames with ground truth: dice arenas and roulette wheels (used by simulated cameras and tests)."""
