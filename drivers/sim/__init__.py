"""Device simulators: each speaks the same bytes as the real device, behind a pseudo-terminal."""
