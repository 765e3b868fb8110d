"""The terminal client for people: ``thousand`` (lobby, play, watch), full-screen or ``--plain`` line mode."""
