"""Baccarat (百家樂), 2004 regulation with its amendments (SPEC BAC-1 … BAC-19)."""
