"""macau-tables: Macau's statutory Baccarat and Caribbean Stud Poker, exactly as the law says.

The pure core (``cards``, ``rng``, ``jackpot``, ``approvals`` and the game packages) never
touches a clock, a database, a socket or a global random generator; see ``docs/rules.md``.
"""

__version__ = "0.1.0"
