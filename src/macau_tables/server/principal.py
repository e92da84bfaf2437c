"""Who is asking: a signed-in user and the role the server grants them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Principal", "UserRole"]


class UserRole(StrEnum):
    """A user's role. Dealers move cards, never money; supervisors authorise corrections,
    voids, carried-wager returns and large jackpot payments; admins configure tables, options,
    approvals and users and act as cashier."""

    PLAYER = "player"
    DEALER = "dealer"
    SUPERVISOR = "supervisor"
    ADMIN = "admin"


@dataclass(frozen=True, slots=True)
class Principal:
    """A signed-in user: ``name`` (for a player, also the wallet's and the commands' player
    id), ``role``, and how they signed in (``"cookie"`` for pages, ``"token"`` for API
    clients; a cookie session's state-changing requests need the CSRF token)."""

    name: str
    role: UserRole
    via: str = "token"
