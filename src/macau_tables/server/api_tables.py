"""The round contract's commands over REST (issue 10). Stub: its owner replaces it."""

from __future__ import annotations

from fastapi import APIRouter

__all__ = ["router"]

router = APIRouter()
