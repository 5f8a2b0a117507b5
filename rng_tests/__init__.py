"""rng_tests package."""
