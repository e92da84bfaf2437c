"""The round contract over REST: ``/api/tables``.

* ``GET /api/tables`` (public): every table — id, name, game, mode (virtual / live), status,
  fault, linked meter and its amount, events recorded, its configuration (``rules``, encoded
  by the codec: bet unit, limits, seats or boxes, payouts, approvals) and, for the tables this
  process serves, the ``shoe`` (or deck) in play and how far it went (no card).
* ``GET /api/tables/{id}`` (public; the answer depends on who asks): the table's ``view`` for the
  caller's audience (:class:`~macau_tables.rounds.Audience`: a player sees their own cards, the
  dealer the dealer's console, a supervisor or an admin the supervisor's, anyone else the
  public's) encoded by the codec, ``expected`` (the phase, what is due, the commands that can be
  accepted now, by codec name) and ``seq`` (the last record: a stream resumes from it).
* ``POST /api/tables/{id}/commands``: ``{"idempotency_key": "…", "command": {"type":
  "baccarat.PlaceWager", …}}`` — or a bet slip ``{"idempotency_key", "commands": [...]}`` run
  as one request (all or nothing, :meth:`TableService.submit_all`). A command is a codec
  payload (``"v"`` optional); the OpenAPI document describes every one (:mod:`.schemas`).
  Answer: the :class:`~macau_tables.tables.model.Submitted` (codec-encoded). The same key again
  (same user, same request) answers the first result without applying anything; the same key
  with another request is refused (``tables.idempotency_mismatch``, 409).
* ``GET /api/tables/{id}/recall?last=N`` (supervisor, admin): the last rounds as recorded
  (:mod:`macau_tables.tables.recall`); a round still in play as the caller's live view, through
  the gate (:mod:`macau_tables.visibility`): no card before the table shows it.
* ``POST /api/tables/{id}/open`` and ``/close`` (supervisor): ``{"reason": "…"}``, audited.

Which tables take a command is read from the command too (its ``MODES``,
:func:`macau_tables.rounds.modes_of`): a virtual table refuses a physical act (a card by hand,
an exposure, a misdeal …) with 409 ``tables.mode_refuses`` whatever the cards, and
``expected`` / ``can_issue`` never offer one (the table service's ``expected()``). A virtual
table's round cycle opens its rounds and closes their betting (:mod:`macau_tables.tables.cycle`):
a client's ``tables.OpenRound`` or game ``CloseBetting`` there is 409 ``tables.cycle_owns``,
never offered either; a supervisor pauses and resumes the cycle of any table with
``tables.PauseCycle`` / ``tables.ResumeCycle`` (audited, as every supervisor's command). A
table's answer carries the cycle's public state (``cycle``: the countdown's deadline, idle,
paused). Since the cycle opens the rounds there, a player takes a free seat and leaves it with
``tables.TakeSeat`` / ``tables.LeaveSeat`` (for themselves; BAC-15: from the next round the
cycle opens); at a live table the dealer seats the players in ``tables.OpenRound``.

Who may send a command is read from the command itself (:func:`macau_tables.rounds.acting`),
never from the game: a player's command (``Issuer.PLAYER``) only from a player, for themselves
(its actor field — ``player``, or ``by`` of a baccarat reveal — is the caller's name:
``api.acts_for_another`` otherwise); a dealer's from a dealer or a supervisor (dealers move
cards, never money); a supervisor's from a supervisor, whose ``supervisor`` field is their own
name; the table service's own commands (time-outs, settlement, showdown) from nobody
(``api.service_only``). Admins configure and act as cashier: they do not play or deal.
Supervisors' commands are recorded in the audit log (who, when, why).
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .. import codec
from ..errors import CodecError, MacauTablesError
from ..rounds import Audience, Expected, Issuer, acting, actor_field_of, issuer_of
from ..tables.group import Guard
from ..tables.proofs import prove_round, recorded_leaves, round_of
from ..tables.recall import recall
from ..tables.reports import table_rows
from ..tables.service import TableService
from ..visibility import expected_for
from . import auth
from .errors import invalid_request, register_status
from .principal import Principal, UserRole
from .runtime import Runtime, runtime_dependency
from .schemas import COMMAND, ERROR_RESPONSES, ProvedCard, ShoeProof, submitted_model

__all__ = [
    "ISSUERS",
    "CommandRequest",
    "StatusRequest",
    "audience_of",
    "authorise",
    "expectation",
    "may_issue",
    "read_request",
    "router",
    "run_request",
    "screen",
]

MAX_SLIP: Final = 32
"""The most commands one bet slip may carry."""

MAX_RECALL: Final = 100

for _key, _status in (
    ("api.service_only", 403),
    ("api.role_cannot_issue", 403),
    ("api.acts_for_another", 403),
    ("api.command_or_commands", 422),
    ("api.nul_text", 422),
    ("core.not_a_command", 400),
    ("tables.not_a_command", 422),
    ("tables.text_required", 422),
    ("tables.round_open", 409),
    ("tables.no_round", 409),
    ("tables.in_fault", 409),
    ("tables.no_fault", 409),
    ("tables.no_meter", 409),
    ("tables.no_shoe", 409),
    ("tables.no_shoe_procedure", 409),
    ("tables.open_shoe_first", 409),
    ("tables.shoe_in_use", 409),
    ("tables.shoe_exhausted", 409),
    ("tables.mode_refuses", 409),
    ("tables.cycle_owns", 409),
    ("tables.cycle_paused_already", 409),
    ("tables.cycle_not_paused", 409),
    ("tables.leaf_from_client", 422),
    ("tables.unknown_round", 404),
    ("tables.service_settles", 403),
    ("tables.meter_round_open", 409),
):
    register_status(_key, _status)

router = APIRouter(prefix="/api/tables", tags=["tables"], responses=ERROR_RESPONSES)

TableId = Annotated[
    str,
    Path(min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$", description="The table's id"),
]

_PLAYS: Final = auth.require_in_thread(
    UserRole.PLAYER, UserRole.DEALER, UserRole.SUPERVISOR, UserRole.ADMIN
)
"""The rule of the commands: the token is looked up in the request's worker thread, the
command's own (one hand-over to a worker thread per command, not two)."""
_SUPERVISES: Final = auth.require(UserRole.SUPERVISOR)
_RECALLS: Final = auth.require(UserRole.SUPERVISOR, UserRole.ADMIN)


# -- bodies ---------------------------------------------------------------------------------------


def _one_or_the_other(schema: dict[str, Any], _cls: type) -> None:
    """The document says what :meth:`CommandRequest.payloads` checks: ``command`` or
    ``commands``, exactly one, never ``null``."""
    for name in ("command", "commands"):
        prop = schema["properties"][name]
        alts = [a for a in prop.pop("anyOf", []) if a != {"type": "null"}]
        prop.pop("default", None)
        if alts:
            prop.update(alts[0])
    schema["oneOf"] = [{"required": ["command"]}, {"required": ["commands"]}]


class CommandRequest(BaseModel):
    """One command (``command``) or a bet slip (``commands``, run all or nothing), with the
    caller's idempotency key."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_one_or_the_other)

    idempotency_key: str = Field(min_length=1, max_length=128)
    command: COMMAND | None = None  # type: ignore[valid-type]
    commands: list[COMMAND] | None = Field(default=None, min_length=1, max_length=MAX_SLIP)  # type: ignore[valid-type]

    def payloads(self) -> list[dict[str, Any]]:
        """The commands as their codec payloads (the raw JSON objects sent); refuses a request
        with both or neither (``api.command_or_commands``)."""
        if (self.command is None) == (self.commands is None):
            raise MacauTablesError("api.command_or_commands")
        items: list[BaseModel] = (
            [self.command] if self.command is not None else list(self.commands or ())
        )
        return [item.model_dump() for item in items]


class StatusRequest(BaseModel):
    """Why the table is opened or closed (recorded in the audit log)."""

    model_config = ConfigDict(extra="forbid")

    reason: str = Field(min_length=1, max_length=500, pattern=r"\S")


# -- helpers --------------------------------------------------------------------------------------


def audience_of(principal: Principal | None) -> Audience:
    """The audience a caller sees a table as (a player by name, the dealer, a supervisor —
    admins too — or the public)."""
    if principal is None:
        return Audience.public()
    if principal.role is UserRole.PLAYER:
        return Audience.of_player(principal.name)
    if principal.role is UserRole.DEALER:
        return Audience.dealer()
    return Audience.supervisor()


def _service(runtime: Runtime, table_id: str) -> TableService:
    return runtime.service(table_id)


async def _screen(request: Request) -> None:
    """Refuse, before the body is read into models, a command whose type is not a command
    (``core.not_a_command``, 400) or is the table service's own (``api.service_only``, 403)
    — an unknown type is the codec's refusal (``core.codec_unknown_type``, 422)."""
    try:
        body = await request.json()
    except Exception:  # not JSON: the framework answers it (server.invalid_request)
        return
    screen(body)


def screen(body: object) -> None:
    """:func:`_screen`'s refusals of a request's JSON ``body`` (already parsed): a type that is
    no command, or the table service's own."""
    if not isinstance(body, dict):
        return
    items: list[tuple[str, object]] = [("$.command", body.get("command"))]
    listed = body.get("commands")
    if isinstance(listed, list):
        items += [(f"$.commands[{i}]", c) for i, c in enumerate(listed[: MAX_SLIP + 1])]
    registry = codec.default_registry()
    for where, item in items:
        name = item.get("type") if isinstance(item, dict) else None
        if not isinstance(name, str):
            continue
        try:
            cls = registry.class_named(name)
        except CodecError as exc:
            raise CodecError("core.codec_unknown_type", path=where, type=repr(name)) from exc
        if issuer_of(cls) is Issuer.SERVICE:
            raise MacauTablesError("api.service_only", type=name)


def read_request(body: object) -> CommandRequest:
    """The :class:`CommandRequest` of a JSON ``body`` read elsewhere than from an HTTP request
    (the table socket's ``command`` message, without its ``type``), refused as ``POST
    …/commands`` refuses it: :func:`screen`'s refusals first, then a body the model does not
    take is 422 ``server.invalid_request`` with the same ``where`` and ``reason``."""
    screen(body)
    try:
        return CommandRequest.model_validate(body)
    except ValidationError as exc:
        errors = [{**e, "loc": ("body", *e.get("loc", ()))} for e in exc.errors()]
        raise invalid_request(RequestValidationError(errors)) from None


MAX_DEPTH: Final = 32
"""Tagged objects deeper than this get no default version (no command nests so deep: the
codec refuses what is there)."""


def _versioned(payload: object, depth: int = 0) -> object:
    """``payload`` with ``"v"`` (the current schema version) in every tagged object that left
    it out: the API does not ask clients for versions they cannot choose."""
    if depth > MAX_DEPTH:
        return payload
    if isinstance(payload, list):
        return [_versioned(x, depth + 1) for x in payload]
    if not isinstance(payload, dict):
        return payload
    out = {k: _versioned(v, depth + 1) for k, v in payload.items()}
    name = out.get("type")
    if "v" not in out and isinstance(name, str):
        try:
            cls = codec.default_registry().class_named(name)
        except CodecError:  # unknown: the codec says so, with the path
            return out
        out["v"] = getattr(cls, "__codec_version__", 1)
    return out


def no_nul(value: object, path: str = "$", depth: int = 0) -> None:
    """Refuse (``api.nul_text``, 422) a text holding the NUL character anywhere in ``value``
    (no database stores it; nothing is written)."""
    if depth > MAX_DEPTH:
        return
    if isinstance(value, str):
        if "\x00" in value:
            raise MacauTablesError("api.nul_text", path=path)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            no_nul(item, f"{path}[{i}]", depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            no_nul(key, path, depth + 1)
            no_nul(item, f"{path}.{key}", depth + 1)


def _decode(payload: dict[str, Any], index: int) -> object:
    """The command a payload stands for: the codec reads it (``v`` defaults to the current
    schema version); in a bet slip a refusal names the command's place."""
    try:
        return codec.decode(_versioned(payload))
    except CodecError as exc:
        if index < 0:
            raise
        raise CodecError(
            "core.codec_refused",
            path=f"$.commands[{index}]",
            type=str(payload.get("type")),
            detail=exc,
        ) from None


ISSUERS: Final[dict[Issuer, frozenset[UserRole]]] = {
    Issuer.PLAYER: frozenset({UserRole.PLAYER}),
    Issuer.DEALER: frozenset({UserRole.DEALER, UserRole.SUPERVISOR}),
    Issuer.SUPERVISOR: frozenset({UserRole.SUPERVISOR}),
    Issuer.SERVICE: frozenset(),
}
"""Who may send the commands of each issuer (dealers move cards, never money; admins neither
play nor deal; the service's own commands come from nobody)."""


def may_issue(principal: Principal | None, command_type: type) -> bool:
    """Whether ``principal``'s role may send commands of ``command_type`` (for themselves)."""
    return principal is not None and _role_may_issue(principal.role, command_type)


def _role_may_issue(role: UserRole, command_type: type) -> bool:
    return role in ISSUERS[issuer_of(command_type)]


def expectation(
    expected: Expected | None, principal: Principal | None, audience: Audience | None = None
) -> dict[str, Any]:
    """``{"expected", "can_issue"}``: what the round waits for as ``principal`` may read it
    (through the gate, :func:`macau_tables.visibility.expected_for`: the public reads no player
    id, a player no other player's — BAC-15, CSP-12; the codec's encoding of
    :class:`~macau_tables.rounds.Expected`: phase, due, command names; ``None`` before the
    first round) and, of its commands, those ``principal``'s role may send — as
    ``GET /api/tables/{id}`` and the table stream's ``table`` message carry them.
    ``audience``: ``principal``'s (:func:`audience_of`), when the caller has it already."""
    if expected is None:
        return {"expected": None, "can_issue": []}
    shown = expected_for(expected, audience_of(principal) if audience is None else audience)
    encoded, issuable = _expectation(shown, None if principal is None else principal.role)
    return {"expected": encoded, "can_issue": list(issuable)}


@functools.lru_cache(maxsize=256)
def _expectation(
    expected: Expected, role: UserRole | None
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The encoding of ``expected`` (as the gate let the caller read it) and the names of its
    commands ``role`` may send: the same for every socket of an audience after an event (the
    stream computes it per subscriber), so it is encoded once per distinct value (read-only:
    nobody changes the answer)."""
    names = tuple(
        codec.type_name(c)
        for c in expected.commands
        if role is not None and _role_may_issue(role, c)
    )
    return codec.encode(expected), names


def authorise(principal: Principal, command: object) -> Issuer:
    """Refuse (403) ``command`` from ``principal`` unless it is theirs to issue (module
    docstring); returns who issues it."""
    issuer, named = acting(command)
    name = codec.type_name(type(command))
    if issuer is Issuer.SERVICE:
        raise MacauTablesError("api.service_only", type=name)
    if principal.role not in ISSUERS[issuer]:
        raise MacauTablesError(
            "api.role_cannot_issue",
            name=principal.name,
            role=principal.role.value,
            type=name,
            issuer=issuer.value,
        )
    field = actor_field_of(type(command))
    if field is not None and issuer is not Issuer.DEALER and named != principal.name:
        raise MacauTablesError(
            "api.acts_for_another",
            name=principal.name,
            type=name,
            field=field,
            other=str(getattr(command, field, None)),
        )
    return issuer


# -- routes ---------------------------------------------------------------------------------------

_SUPERVISING: Final = frozenset({UserRole.SUPERVISOR, UserRole.ADMIN})
"""Who is told why a table is not served here (the reason may name the approver and files)."""


@router.get("", dependencies=[Depends(auth.public)], summary="The casino's tables")
def list_tables(
    runtime: Annotated[Runtime, Depends(runtime_dependency)],
    principal: Annotated[Principal | None, Depends(auth.optional_principal)],
) -> list[dict[str, Any]]:
    """Every table (id, game, mode, status, meter, configuration); the tables this process
    serves also say whether their meter can be reached; the others, to a supervisor or an
    admin, why this process does not serve them, when it tried (``not_served``: a refusal's
    ``key`` and ``params``, e.g. ``tables.leased``, ``tables.program_changed``; ``None``
    otherwise)."""

    def read(tx: Any) -> list[dict[str, Any]]:
        rows = table_rows(tx)
        for row in rows:
            row["rules"] = codec.encode(tx.get_config(row["config_id"]))
        return rows

    rows = runtime.store.read(read)
    served = set(runtime.table_ids())
    why = runtime.not_served() if principal is not None and principal.role in _SUPERVISING else {}
    for row in rows:
        row["served_here"] = row["table_id"] in served
        found = None if row["served_here"] else why.get(row["table_id"])
        row["not_served"] = None if found is None else {"key": found[0], "params": found[1]}
        row["shoe"] = row["cycle"] = None
        if row["served_here"]:
            try:
                service = runtime.service(row["table_id"])
            except MacauTablesError:  # taken over by another process meanwhile
                continue
            row["shoe"] = dict(service.dealing.progress(service.state.deal))
            cycle = service.view(Audience.public()).cycle
            row["cycle"] = None if cycle is None else cycle.to_json()
    return rows


@router.get("/{table_id}", dependencies=[Depends(auth.public)], summary="A table as you see it")
def show_table(
    table_id: TableId,
    runtime: Annotated[Runtime, Depends(runtime_dependency)],
    principal: Annotated[Principal | None, Depends(auth.optional_principal)],
) -> dict[str, Any]:
    """The table's view for the caller's audience (player, dealer, supervisor, public), what
    the round expects next (and, of its commands, those the caller's role may send:
    ``can_issue``), and the last record's ``seq``."""
    service = _service(runtime, table_id)
    audience = audience_of(principal)
    update = service.view(audience)
    return {
        "table_id": update.table_id,
        "game": service.setup.game,
        "mode": service.setup.mode.value,
        "status": service.status.value,
        "seq": update.seq,
        "audience": codec.encode(audience),
        "round_id": update.round_id,
        "view": None if update.view is None else codec.encode(update.view),
        **expectation(service.expected(), principal),
        "fault": update.fault,
        "meter_link": update.meter_link,
        "cycle": None if update.cycle is None else update.cycle.to_json(),
        "shoe": dict(service.dealing.progress(service.state.deal)),
        "rules": codec.encode(service.state.rules),
    }


@router.post(
    "/{table_id}/commands",
    summary="Send a command (or a bet slip) to a table",
    response_model=None,
    responses={200: {"model": submitted_model(), "description": "What the request did"}},
)
def submit(
    table_id: TableId,
    signed_in: Annotated[auth.Deferred, Depends(_PLAYS)],
    _screened: Annotated[None, Depends(_screen)],
    body: CommandRequest,
    runtime: Annotated[Runtime, Depends(runtime_dependency)],
) -> dict[str, Any]:
    """Run the command(s) at the table, idempotently (module docstring)."""
    principal = signed_in()  # who asks, before anything else: 401 / 403 refused here
    return run_request(runtime, table_id, principal, body)


def prepare_request(
    principal: Principal, body: CommandRequest
) -> tuple[list[object], list[Issuer], str]:
    """What :func:`run_request` checks before it runs ``body``: no NUL anywhere, each command
    decoded (a bet slip's refusals name the command's place), each authorised for
    ``principal`` (:func:`authorise`); returns the commands, their issuers and the
    idempotency key (``api:{name}:{key}``). Reads nothing."""
    payloads = body.payloads()
    no_nul(body.idempotency_key, "$.idempotency_key")
    if body.commands is None:
        no_nul(payloads[0], "$.command")
    else:
        no_nul(payloads, "$.commands")
    slip = body.commands is not None
    commands = [_decode(p, i if slip else -1) for i, p in enumerate(payloads)]
    issuers = [authorise(principal, c) for c in commands]
    return commands, issuers, f"api:{principal.name}:{body.idempotency_key}"


def run_request(
    runtime: Runtime,
    table_id: str,
    principal: Principal,
    body: CommandRequest,
    guard: Guard | None = None,
) -> dict[str, Any]:
    """``body``'s command, or bet slip (all or nothing), run at ``table_id`` for
    ``principal`` (signed in, their session checked by the caller): decoded, authorised
    (:func:`authorise`), submitted under the idempotency key ``api:{name}:{key}`` and, for a
    supervisor's command, audited; returns the codec's encoding of the
    :class:`~macau_tables.tables.model.Submitted`. The one meaning of a command request:
    ``POST /api/tables/{id}/commands`` and the table socket's ``command`` message
    (:mod:`.socket_commands`) both call it, so a retry on either finds the other's answer.
    Blocking (it writes the store; it returns once the commit is durable): call it from a
    worker thread. Raises the refusals (:class:`MacauTablesError`), and what ``guard`` refuses
    (checked in the transaction that commits the command: a table socket's session,
    :mod:`.socket_commands`)."""
    commands, issuers, key = prepare_request(principal, body)
    service = _service(runtime, table_id)
    if body.commands is not None:
        result = service.submit_all(
            commands, idempotency_key=key, actor=principal.name, guard=guard
        )
    else:
        result = service.submit(commands[0], idempotency_key=key, actor=principal.name, guard=guard)
    for command, issuer in zip(commands, issuers, strict=True):
        if issuer is Issuer.SUPERVISOR:
            auth.record_action(
                runtime,
                principal,
                f"command {codec.type_name(type(command))}",
                getattr(command, "reason", None),
                table_id=table_id,
                command=codec.encode(command),
                round_id=result.round_id,
                first_seq=result.first_seq,
                last_seq=result.last_seq,
            )
    return codec.encode(result)


class RoundProofs(BaseModel):
    """The proofs of the cards of round ``round_id`` that the caller's ``audience`` view shows
    now, by shoe (none for a live table, or a card with no leaf)."""

    table_id: str
    round_id: str
    audience: str
    shoes: list[ShoeProof]


@router.get(
    "/{table_id}/proofs",
    dependencies=[Depends(auth.public)],
    summary="Proofs of the cards of a round your view shows",
)
def round_proofs(
    table_id: TableId,
    runtime: Annotated[Runtime, Depends(runtime_dependency)],
    principal: Annotated[Principal | None, Depends(auth.optional_principal)],
    round_id: Annotated[
        str,
        Query(alias="round", min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$"),
    ],
) -> RoundProofs:
    """For each card of round ``round`` that the caller's view shows now (a player: their own
    cards and the dealer's once shown; the public: what the public view shows), its position,
    salt and audit path against the Merkle root published before the shoe's first card
    (Common rules "Randomness"). Cards the view does not show are never proved."""
    service = _service(runtime, table_id)
    audience = audience_of(principal)
    state = service.state
    proving, commitment = service.dealing.proving(state.deal)
    current = state.round if state.round is not None and state.round.round_id == round_id else None

    def read(tx: Any) -> RoundProofs:
        r = current if current is not None else round_of(tx, table_id, service.dealing, round_id)
        shoes = prove_round(r, audience, recorded_leaves(tx, table_id, proving, commitment))
        return RoundProofs(
            table_id=table_id,
            round_id=round_id,
            audience=audience.role.value,
            shoes=[
                ShoeProof(
                    shoe_no=s.shoe_no,
                    commitment=s.commitment,
                    size=s.cards[0].size if s.cards else 0,
                    cards=[ProvedCard.of(c) for c in s.cards],
                )
                for s in shoes
            ],
        )

    return runtime.store.read(read)


@router.get("/{table_id}/recall", summary="The last rounds as recorded")
def recall_rounds(
    table_id: TableId,
    principal: Annotated[Principal, Depends(_RECALLS)],
    runtime: Annotated[Runtime, Depends(runtime_dependency)],
    last: Annotated[int, Query(ge=1, le=MAX_RECALL)] = 10,
) -> list[dict[str, Any]]:
    """The table's last ``last`` rounds, oldest first: cards, wagers, balances, awards, the
    chain hash of each — a round still in play as the caller's live view (no card more:
    :mod:`macau_tables.visibility`)."""
    audience = audience_of(principal)
    rounds = runtime.store.read(lambda tx: recall(tx, table_id, last, audience=audience))
    return [r.to_dict() for r in rounds]


def _set_status(
    runtime: Runtime, principal: Principal, table_id: str, body: StatusRequest, opened: bool
) -> dict[str, Any]:
    no_nul(body.reason, "$.reason")
    service = _service(runtime, table_id)
    if opened:
        service.open_table(actor=principal.name, reason=body.reason)
    else:
        service.close_table(actor=principal.name, reason=body.reason)
    # The store audits the change itself (table_open / table_closed, with who and why): a second
    # entry here listed every open and close twice in the audit log.
    return {"table_id": table_id, "status": service.status.value}


@router.post("/{table_id}/open", summary="Open a table for rounds (audited)")
def open_table(
    table_id: TableId,
    body: StatusRequest,
    principal: Annotated[Principal, Depends(_SUPERVISES)],
    runtime: Annotated[Runtime, Depends(runtime_dependency)],
) -> dict[str, Any]:
    """Open the table (refused while a fault is in force, or without its approvals today:
    CSP-13, BAC-19)."""
    return _set_status(runtime, principal, table_id, body, True)


@router.post("/{table_id}/close", summary="Close a table (audited)")
def close_table(
    table_id: TableId,
    body: StatusRequest,
    principal: Annotated[Principal, Depends(_SUPERVISES)],
    runtime: Annotated[Runtime, Depends(runtime_dependency)],
) -> dict[str, Any]:
    """Close the table: no new round opens; a round in progress goes on."""
    return _set_status(runtime, principal, table_id, body, False)
