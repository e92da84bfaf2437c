"""Users administration over REST (role admin: admins configure the users):
list, create, disable and enable again, unlock (forget a user's failed logins). Every change is
audited with who and why.

Its routes join :data:`macau_tables.server.auth.router`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Final

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from ..errors import AuthError
from ..store import Store, Tx
from ..store import users_ops as ops
from .auth import MAX_PASSWORD, create_user, record_action, require, unlock_user
from .principal import Principal, UserRole

__all__ = ["router"]

router = APIRouter(prefix="/api/admin/users", tags=["users"])

ADMIN: Final = require(UserRole.ADMIN)
Admin = Annotated[Principal, Depends(ADMIN)]
TEXT: Final = r"^[^\x00]*$"  # text the database can keep (PostgreSQL refuses NUL)


class UserOut(BaseModel):
    """A user as an administrator sees them (never the password hash)."""

    name: str
    role: UserRole
    disabled: bool
    created_by: str
    created_at: datetime


class NewUser(BaseModel):
    """A user to create, and why."""

    name: str = Field(min_length=1, max_length=100)
    role: UserRole
    password: str = Field(min_length=1, max_length=MAX_PASSWORD)
    reason: str = Field(min_length=1, max_length=500, pattern=TEXT)


class Why(BaseModel):
    """Why an administrator changes a user."""

    reason: str = Field(min_length=1, max_length=500, pattern=TEXT)


def _out(record: ops.UserRecord) -> UserOut:
    return UserOut(
        name=record.name,
        role=UserRole(record.role),
        disabled=record.disabled,
        created_by=record.created_by,
        created_at=record.created_at,
    )


def _store(request: Request) -> Store:
    store: Store = request.app.state.runtime.store
    return store


@router.get("", response_model=list[UserOut], summary="Every user")
def list_users(request: Request, principal: Admin) -> list[UserOut]:
    """Every user, by name, with their role and whether they are disabled."""
    return [_out(u) for u in _store(request).read(ops.users)]


@router.post("", response_model=UserOut, status_code=201, summary="Create a user")
async def add_user(request: Request, body: NewUser, principal: Admin) -> UserOut:
    """Create a user (a player's wallet too), audited ``user_add`` with the reason."""
    store = _store(request)
    await run_in_threadpool(
        create_user,
        store,
        body.name,
        body.role,
        body.password,
        actor=principal.name,
        reason=body.reason,
    )
    found = store.read(lambda tx: ops.user(tx, body.name))
    assert found is not None
    return _out(found)


def _set_disabled(
    request: Request, principal: Principal, name: str, disabled: bool, reason: str
) -> UserOut:
    ops.check_user_name(name)
    if disabled and name == principal.name:
        raise AuthError("auth.disable_self", name=name)

    def change(tx: Tx) -> ops.UserRecord:
        ops.set_user_disabled(tx, name, disabled)
        record_action(
            tx, principal, "user_disable" if disabled else "user_enable", reason, name=name
        )
        found = ops.user(tx, name)
        assert found is not None
        return found

    return _out(_store(request).run(change))


@router.post(
    "/{name}/disable",
    response_model=UserOut,
    summary="Disable a user (their sessions end)",
)
def disable_user(request: Request, name: str, body: Why, principal: Admin) -> UserOut:
    """Disable ``name``: they can no longer sign in and their sessions and tokens end;
    audited ``user_disable`` with the reason."""
    return _set_disabled(request, principal, name, True, body.reason)


@router.post("/{name}/enable", response_model=UserOut, summary="Enable a user again")
def enable_user(request: Request, name: str, body: Why, principal: Admin) -> UserOut:
    """Let ``name`` sign in again; audited ``user_enable`` with the reason."""
    return _set_disabled(request, principal, name, False, body.reason)


class Unlocked(BaseModel):
    """A user whose failed logins were forgotten, and how many there were."""

    name: str
    forgotten: int


@router.post(
    "/{name}/unlock",
    response_model=Unlocked,
    summary="Unlock a user's sign-in (forget their failed logins)",
)
def unlock(request: Request, name: str, body: Why, principal: Admin) -> Unlocked:
    """Forget ``name``'s failed logins from every address: no address waits before trying
    them again; audited ``user_unlock`` with the reason and how many were forgotten."""
    forgotten = unlock_user(_store(request), name, principal, body.reason)
    return Unlocked(name=name, forgotten=forgotten)
