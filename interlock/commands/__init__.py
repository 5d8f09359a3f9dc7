"""Plain functions behind each CLI command; each returns an exit code."""
