"""Exact game mathematics, simulation and PAR sheets, on the same rule functions as the tables."""
