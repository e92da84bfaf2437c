"""Users, passwords, sessions and tokens, CSRF, throttling, the role rule of every endpoint.

Issue 10. Stub: its owner replaces it.
"""

from __future__ import annotations

from fastapi import APIRouter

__all__ = ["router"]

router = APIRouter()
