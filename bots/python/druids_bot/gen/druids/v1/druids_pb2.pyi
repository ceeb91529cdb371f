from druids.v1 import meduris_pb2 as _meduris_pb2
from druids.v1 import dolmen_pb2 as _dolmen_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GameKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_KIND_UNSPECIFIED: _ClassVar[GameKind]
    GAME_KIND_MEDURIS: _ClassVar[GameKind]
    GAME_KIND_DOLMEN: _ClassVar[GameKind]

class GameStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_STATUS_UNSPECIFIED: _ClassVar[GameStatus]
    GAME_STATUS_WAITING_FOR_PLAYERS: _ClassVar[GameStatus]
    GAME_STATUS_RUNNING: _ClassVar[GameStatus]
    GAME_STATUS_FINISHED: _ClassVar[GameStatus]
    GAME_STATUS_ABANDONED: _ClassVar[GameStatus]

class ErrorReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ERROR_REASON_UNSPECIFIED: _ClassVar[ErrorReason]
    ERROR_REASON_INVALID_ARGUMENT: _ClassVar[ErrorReason]
    ERROR_REASON_GAME_NOT_FOUND: _ClassVar[ErrorReason]
    ERROR_REASON_TOKEN_MISSING: _ClassVar[ErrorReason]
    ERROR_REASON_TOKEN_UNKNOWN: _ClassVar[ErrorReason]
    ERROR_REASON_TOKEN_OF_OTHER_GAME: _ClassVar[ErrorReason]
    ERROR_REASON_ILLEGAL_ACTION: _ClassVar[ErrorReason]
    ERROR_REASON_NOT_YOUR_TURN: _ClassVar[ErrorReason]
    ERROR_REASON_NOT_STARTED: _ClassVar[ErrorReason]
    ERROR_REASON_GAME_OVER: _ClassVar[ErrorReason]
    ERROR_REASON_GAME_ABANDONED: _ClassVar[ErrorReason]
    ERROR_REASON_STALE_VERSION: _ClassVar[ErrorReason]
    ERROR_REASON_KEY_REUSED: _ClassVar[ErrorReason]
    ERROR_REASON_SEAT_TAKEN: _ClassVar[ErrorReason]
    ERROR_REASON_NO_OPEN_SEAT: _ClassVar[ErrorReason]
    ERROR_REASON_RATE_LIMITED: _ClassVar[ErrorReason]
    ERROR_REASON_LIMIT_REACHED: _ClassVar[ErrorReason]
    ERROR_REASON_STORAGE_UNAVAILABLE: _ClassVar[ErrorReason]
    ERROR_REASON_GAME_RUNNING: _ClassVar[ErrorReason]
    ERROR_REASON_STALE_PAGE_TOKEN: _ClassVar[ErrorReason]
    ERROR_REASON_SHUTTING_DOWN: _ClassVar[ErrorReason]
GAME_KIND_UNSPECIFIED: GameKind
GAME_KIND_MEDURIS: GameKind
GAME_KIND_DOLMEN: GameKind
GAME_STATUS_UNSPECIFIED: GameStatus
GAME_STATUS_WAITING_FOR_PLAYERS: GameStatus
GAME_STATUS_RUNNING: GameStatus
GAME_STATUS_FINISHED: GameStatus
GAME_STATUS_ABANDONED: GameStatus
ERROR_REASON_UNSPECIFIED: ErrorReason
ERROR_REASON_INVALID_ARGUMENT: ErrorReason
ERROR_REASON_GAME_NOT_FOUND: ErrorReason
ERROR_REASON_TOKEN_MISSING: ErrorReason
ERROR_REASON_TOKEN_UNKNOWN: ErrorReason
ERROR_REASON_TOKEN_OF_OTHER_GAME: ErrorReason
ERROR_REASON_ILLEGAL_ACTION: ErrorReason
ERROR_REASON_NOT_YOUR_TURN: ErrorReason
ERROR_REASON_NOT_STARTED: ErrorReason
ERROR_REASON_GAME_OVER: ErrorReason
ERROR_REASON_GAME_ABANDONED: ErrorReason
ERROR_REASON_STALE_VERSION: ErrorReason
ERROR_REASON_KEY_REUSED: ErrorReason
ERROR_REASON_SEAT_TAKEN: ErrorReason
ERROR_REASON_NO_OPEN_SEAT: ErrorReason
ERROR_REASON_RATE_LIMITED: ErrorReason
ERROR_REASON_LIMIT_REACHED: ErrorReason
ERROR_REASON_STORAGE_UNAVAILABLE: ErrorReason
ERROR_REASON_GAME_RUNNING: ErrorReason
ERROR_REASON_STALE_PAGE_TOKEN: ErrorReason
ERROR_REASON_SHUTTING_DOWN: ErrorReason

class GameOptions(_message.Message):
    __slots__ = ("start_seat", "max_turns", "decision_ms", "time_bank_ms", "autopilot_after")
    START_SEAT_FIELD_NUMBER: _ClassVar[int]
    MAX_TURNS_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    AUTOPILOT_AFTER_FIELD_NUMBER: _ClassVar[int]
    start_seat: int
    max_turns: int
    decision_ms: int
    time_bank_ms: int
    autopilot_after: int
    def __init__(self, start_seat: _Optional[int] = ..., max_turns: _Optional[int] = ..., decision_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., autopilot_after: _Optional[int] = ...) -> None: ...

class CreateGameRequest(_message.Message):
    __slots__ = ("kind", "players", "seed", "options", "seat_names", "open_seats", "request_id")
    KIND_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    OPEN_SEATS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    kind: GameKind
    players: int
    seed: int
    options: GameOptions
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    open_seats: _containers.RepeatedScalarFieldContainer[int]
    request_id: str
    def __init__(self, kind: _Optional[_Union[GameKind, str]] = ..., players: _Optional[int] = ..., seed: _Optional[int] = ..., options: _Optional[_Union[GameOptions, _Mapping]] = ..., seat_names: _Optional[_Iterable[str]] = ..., open_seats: _Optional[_Iterable[int]] = ..., request_id: _Optional[str] = ...) -> None: ...

class SeatToken(_message.Message):
    __slots__ = ("seat", "name", "token")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    token: str
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class CreateGameResponse(_message.Message):
    __slots__ = ("game_id", "seats", "state")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seats: _containers.RepeatedCompositeFieldContainer[SeatToken]
    state: StateView
    def __init__(self, game_id: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[SeatToken, _Mapping]]] = ..., state: _Optional[_Union[StateView, _Mapping]] = ...) -> None: ...

class JoinGameRequest(_message.Message):
    __slots__ = ("game_id", "seat", "name", "request_id")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    name: str
    request_id: str
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., name: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class JoinGameResponse(_message.Message):
    __slots__ = ("seat", "started")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    seat: SeatToken
    started: bool
    def __init__(self, seat: _Optional[_Union[SeatToken, _Mapping]] = ..., started: _Optional[bool] = ...) -> None: ...

class GetLegalActionsRequest(_message.Message):
    __slots__ = ("game_id", "all_payments", "page_size", "page_token")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    ALL_PAYMENTS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    all_payments: bool
    page_size: int
    page_token: str
    def __init__(self, game_id: _Optional[str] = ..., all_payments: _Optional[bool] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class LegalAction(_message.Message):
    __slots__ = ("id", "action", "description")
    ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    id: int
    action: Action
    description: str
    def __init__(self, id: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., description: _Optional[str] = ...) -> None: ...

class GetLegalActionsResponse(_message.Message):
    __slots__ = ("version", "seat", "decision", "actions", "deadline_unix_ms", "next_page_token")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    version: int
    seat: int
    decision: Decision
    actions: _containers.RepeatedCompositeFieldContainer[LegalAction]
    deadline_unix_ms: int
    next_page_token: str
    def __init__(self, version: _Optional[int] = ..., seat: _Optional[int] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ..., actions: _Optional[_Iterable[_Union[LegalAction, _Mapping]]] = ..., deadline_unix_ms: _Optional[int] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("meduris", "dolmen")
    MEDURIS_FIELD_NUMBER: _ClassVar[int]
    DOLMEN_FIELD_NUMBER: _ClassVar[int]
    meduris: _meduris_pb2.MedurisAction
    dolmen: _dolmen_pb2.DolmenAction
    def __init__(self, meduris: _Optional[_Union[_meduris_pb2.MedurisAction, _Mapping]] = ..., dolmen: _Optional[_Union[_dolmen_pb2.DolmenAction, _Mapping]] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ("meduris", "dolmen")
    MEDURIS_FIELD_NUMBER: _ClassVar[int]
    DOLMEN_FIELD_NUMBER: _ClassVar[int]
    meduris: _meduris_pb2.MedurisDecision
    dolmen: _dolmen_pb2.DolmenDecision
    def __init__(self, meduris: _Optional[_Union[_meduris_pb2.MedurisDecision, _Mapping]] = ..., dolmen: _Optional[_Union[_dolmen_pb2.DolmenDecision, _Mapping]] = ...) -> None: ...

class SubmitActionRequest(_message.Message):
    __slots__ = ("game_id", "action", "legal_action_id", "expected_version", "idempotency_key")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    action: Action
    legal_action_id: int
    expected_version: int
    idempotency_key: str
    def __init__(self, game_id: _Optional[str] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., legal_action_id: _Optional[int] = ..., expected_version: _Optional[int] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class SubmitActionResponse(_message.Message):
    __slots__ = ("version", "events")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    version: int
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, version: _Optional[int] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class StreamEventsRequest(_message.Message):
    __slots__ = ("game_id", "from_seq")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_SEQ_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    from_seq: int
    def __init__(self, game_id: _Optional[str] = ..., from_seq: _Optional[int] = ...) -> None: ...

class GameEvent(_message.Message):
    __slots__ = ("seq", "version", "description", "snapshot", "seat_joined", "game_started", "decision_needed", "game_finished", "timed_out", "autopilot_changed", "game_abandoned", "meduris", "dolmen")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    SEAT_JOINED_FIELD_NUMBER: _ClassVar[int]
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    DECISION_NEEDED_FIELD_NUMBER: _ClassVar[int]
    GAME_FINISHED_FIELD_NUMBER: _ClassVar[int]
    TIMED_OUT_FIELD_NUMBER: _ClassVar[int]
    AUTOPILOT_CHANGED_FIELD_NUMBER: _ClassVar[int]
    GAME_ABANDONED_FIELD_NUMBER: _ClassVar[int]
    MEDURIS_FIELD_NUMBER: _ClassVar[int]
    DOLMEN_FIELD_NUMBER: _ClassVar[int]
    seq: int
    version: int
    description: str
    snapshot: Snapshot
    seat_joined: SeatJoined
    game_started: GameStarted
    decision_needed: DecisionNeeded
    game_finished: GameFinished
    timed_out: TimedOut
    autopilot_changed: AutopilotChanged
    game_abandoned: GameAbandoned
    meduris: _meduris_pb2.MedurisEvent
    dolmen: _dolmen_pb2.DolmenEvent
    def __init__(self, seq: _Optional[int] = ..., version: _Optional[int] = ..., description: _Optional[str] = ..., snapshot: _Optional[_Union[Snapshot, _Mapping]] = ..., seat_joined: _Optional[_Union[SeatJoined, _Mapping]] = ..., game_started: _Optional[_Union[GameStarted, _Mapping]] = ..., decision_needed: _Optional[_Union[DecisionNeeded, _Mapping]] = ..., game_finished: _Optional[_Union[GameFinished, _Mapping]] = ..., timed_out: _Optional[_Union[TimedOut, _Mapping]] = ..., autopilot_changed: _Optional[_Union[AutopilotChanged, _Mapping]] = ..., game_abandoned: _Optional[_Union[GameAbandoned, _Mapping]] = ..., meduris: _Optional[_Union[_meduris_pb2.MedurisEvent, _Mapping]] = ..., dolmen: _Optional[_Union[_dolmen_pb2.DolmenEvent, _Mapping]] = ...) -> None: ...

class Snapshot(_message.Message):
    __slots__ = ("state",)
    STATE_FIELD_NUMBER: _ClassVar[int]
    state: StateView
    def __init__(self, state: _Optional[_Union[StateView, _Mapping]] = ...) -> None: ...

class SeatJoined(_message.Message):
    __slots__ = ("seat", "name")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...

class GameStarted(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DecisionNeeded(_message.Message):
    __slots__ = ("seat", "decision", "deadline_unix_ms")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    decision: Decision
    deadline_unix_ms: int
    def __init__(self, seat: _Optional[int] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ..., deadline_unix_ms: _Optional[int] = ...) -> None: ...

class TimedOut(_message.Message):
    __slots__ = ("seat", "action", "autopilot")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    AUTOPILOT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    action: Action
    autopilot: bool
    def __init__(self, seat: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., autopilot: _Optional[bool] = ...) -> None: ...

class GameAbandoned(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class AutopilotChanged(_message.Message):
    __slots__ = ("seat", "on")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    on: bool
    def __init__(self, seat: _Optional[int] = ..., on: _Optional[bool] = ...) -> None: ...

class GameFinished(_message.Message):
    __slots__ = ("outcome",)
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    outcome: Outcome
    def __init__(self, outcome: _Optional[_Union[Outcome, _Mapping]] = ...) -> None: ...

class Outcome(_message.Message):
    __slots__ = ("scores", "winners", "ranking", "by_safeguard")
    SCORES_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    RANKING_FIELD_NUMBER: _ClassVar[int]
    BY_SAFEGUARD_FIELD_NUMBER: _ClassVar[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    ranking: _containers.RepeatedScalarFieldContainer[int]
    by_safeguard: bool
    def __init__(self, scores: _Optional[_Iterable[int]] = ..., winners: _Optional[_Iterable[int]] = ..., ranking: _Optional[_Iterable[int]] = ..., by_safeguard: _Optional[bool] = ...) -> None: ...

class GetStateRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class GetStateResponse(_message.Message):
    __slots__ = ("state",)
    STATE_FIELD_NUMBER: _ClassVar[int]
    state: StateView
    def __init__(self, state: _Optional[_Union[StateView, _Mapping]] = ...) -> None: ...

class SeatInfo(_message.Message):
    __slots__ = ("seat", "name", "claimed")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    CLAIMED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    claimed: bool
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ..., claimed: _Optional[bool] = ...) -> None: ...

class StateView(_message.Message):
    __slots__ = ("game_id", "kind", "status", "version", "last_seq", "seats", "viewer_seat", "to_act", "decision", "outcome", "deadline_unix_ms", "autopilot_seats", "seed_chosen_by_creator", "meduris", "dolmen")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    VIEWER_SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    AUTOPILOT_SEATS_FIELD_NUMBER: _ClassVar[int]
    SEED_CHOSEN_BY_CREATOR_FIELD_NUMBER: _ClassVar[int]
    MEDURIS_FIELD_NUMBER: _ClassVar[int]
    DOLMEN_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    kind: GameKind
    status: GameStatus
    version: int
    last_seq: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatInfo]
    viewer_seat: int
    to_act: int
    decision: Decision
    outcome: Outcome
    deadline_unix_ms: int
    autopilot_seats: _containers.RepeatedScalarFieldContainer[int]
    seed_chosen_by_creator: bool
    meduris: _meduris_pb2.MedurisView
    dolmen: _dolmen_pb2.DolmenView
    def __init__(self, game_id: _Optional[str] = ..., kind: _Optional[_Union[GameKind, str]] = ..., status: _Optional[_Union[GameStatus, str]] = ..., version: _Optional[int] = ..., last_seq: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatInfo, _Mapping]]] = ..., viewer_seat: _Optional[int] = ..., to_act: _Optional[int] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ..., outcome: _Optional[_Union[Outcome, _Mapping]] = ..., deadline_unix_ms: _Optional[int] = ..., autopilot_seats: _Optional[_Iterable[int]] = ..., seed_chosen_by_creator: _Optional[bool] = ..., meduris: _Optional[_Union[_meduris_pb2.MedurisView, _Mapping]] = ..., dolmen: _Optional[_Union[_dolmen_pb2.DolmenView, _Mapping]] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ("kind", "status", "page_size", "page_token")
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    kind: GameKind
    status: GameStatus
    page_size: int
    page_token: str
    def __init__(self, kind: _Optional[_Union[GameKind, str]] = ..., status: _Optional[_Union[GameStatus, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class GameSummary(_message.Message):
    __slots__ = ("game_id", "kind", "status", "players", "version", "seats", "created_unix_ms")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CREATED_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    kind: GameKind
    status: GameStatus
    players: int
    version: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatInfo]
    created_unix_ms: int
    def __init__(self, game_id: _Optional[str] = ..., kind: _Optional[_Union[GameKind, str]] = ..., status: _Optional[_Union[GameStatus, str]] = ..., players: _Optional[int] = ..., version: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatInfo, _Mapping]]] = ..., created_unix_ms: _Optional[int] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games", "next_page_token")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameSummary]
    next_page_token: str
    def __init__(self, games: _Optional[_Iterable[_Union[GameSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ExportReplayRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class ReplayAction(_message.Message):
    __slots__ = ("seat", "action", "timeout", "autopilot")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    AUTOPILOT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    action: Action
    timeout: bool
    autopilot: bool
    def __init__(self, seat: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., timeout: _Optional[bool] = ..., autopilot: _Optional[bool] = ...) -> None: ...

class Replay(_message.Message):
    __slots__ = ("game_id", "kind", "players", "seed", "options", "actions", "outcome", "status")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    kind: GameKind
    players: int
    seed: int
    options: GameOptions
    actions: _containers.RepeatedCompositeFieldContainer[ReplayAction]
    outcome: Outcome
    status: GameStatus
    def __init__(self, game_id: _Optional[str] = ..., kind: _Optional[_Union[GameKind, str]] = ..., players: _Optional[int] = ..., seed: _Optional[int] = ..., options: _Optional[_Union[GameOptions, _Mapping]] = ..., actions: _Optional[_Iterable[_Union[ReplayAction, _Mapping]]] = ..., outcome: _Optional[_Union[Outcome, _Mapping]] = ..., status: _Optional[_Union[GameStatus, str]] = ...) -> None: ...
