from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DolmenDirection(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DOLMEN_DIRECTION_UNSPECIFIED: _ClassVar[DolmenDirection]
    DOLMEN_DIRECTION_NORTH: _ClassVar[DolmenDirection]
    DOLMEN_DIRECTION_EAST: _ClassVar[DolmenDirection]
    DOLMEN_DIRECTION_SOUTH: _ClassVar[DolmenDirection]
    DOLMEN_DIRECTION_WEST: _ClassVar[DolmenDirection]
    DOLMEN_DIRECTION_DIAGONAL: _ClassVar[DolmenDirection]

class DolmenShape(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DOLMEN_SHAPE_UNSPECIFIED: _ClassVar[DolmenShape]
    DOLMEN_SHAPE_SQUARE: _ClassVar[DolmenShape]
    DOLMEN_SHAPE_HEXAGON: _ClassVar[DolmenShape]
    DOLMEN_SHAPE_OCTAGON: _ClassVar[DolmenShape]

class DolmenColour(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DOLMEN_COLOUR_UNSPECIFIED: _ClassVar[DolmenColour]
    DOLMEN_COLOUR_RED: _ClassVar[DolmenColour]
    DOLMEN_COLOUR_YELLOW: _ClassVar[DolmenColour]
    DOLMEN_COLOUR_BLUE: _ClassVar[DolmenColour]
    DOLMEN_COLOUR_GREEN: _ClassVar[DolmenColour]
    DOLMEN_COLOUR_BLACK: _ClassVar[DolmenColour]

class DolmenScoreReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DOLMEN_SCORE_REASON_UNSPECIFIED: _ClassVar[DolmenScoreReason]
    DOLMEN_SCORE_REASON_DOLMEN: _ClassVar[DolmenScoreReason]
    DOLMEN_SCORE_REASON_DECLINED_STONE: _ClassVar[DolmenScoreReason]

class DolmenEndReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DOLMEN_END_REASON_UNSPECIFIED: _ClassVar[DolmenEndReason]
    DOLMEN_END_REASON_LAST_DOLMEN: _ClassVar[DolmenEndReason]
    DOLMEN_END_REASON_LAST_STONE: _ClassVar[DolmenEndReason]
    DOLMEN_END_REASON_SAFEGUARD: _ClassVar[DolmenEndReason]
DOLMEN_DIRECTION_UNSPECIFIED: DolmenDirection
DOLMEN_DIRECTION_NORTH: DolmenDirection
DOLMEN_DIRECTION_EAST: DolmenDirection
DOLMEN_DIRECTION_SOUTH: DolmenDirection
DOLMEN_DIRECTION_WEST: DolmenDirection
DOLMEN_DIRECTION_DIAGONAL: DolmenDirection
DOLMEN_SHAPE_UNSPECIFIED: DolmenShape
DOLMEN_SHAPE_SQUARE: DolmenShape
DOLMEN_SHAPE_HEXAGON: DolmenShape
DOLMEN_SHAPE_OCTAGON: DolmenShape
DOLMEN_COLOUR_UNSPECIFIED: DolmenColour
DOLMEN_COLOUR_RED: DolmenColour
DOLMEN_COLOUR_YELLOW: DolmenColour
DOLMEN_COLOUR_BLUE: DolmenColour
DOLMEN_COLOUR_GREEN: DolmenColour
DOLMEN_COLOUR_BLACK: DolmenColour
DOLMEN_SCORE_REASON_UNSPECIFIED: DolmenScoreReason
DOLMEN_SCORE_REASON_DOLMEN: DolmenScoreReason
DOLMEN_SCORE_REASON_DECLINED_STONE: DolmenScoreReason
DOLMEN_END_REASON_UNSPECIFIED: DolmenEndReason
DOLMEN_END_REASON_LAST_DOLMEN: DolmenEndReason
DOLMEN_END_REASON_LAST_STONE: DolmenEndReason
DOLMEN_END_REASON_SAFEGUARD: DolmenEndReason

class DolmenAction(_message.Message):
    __slots__ = ("place_druid", "walk", "collect_herbs", "fly", "place_stone", "decline_stone", "place_dolmen", "pass_dolmen")
    class PlaceDruid(_message.Message):
        __slots__ = ("site",)
        SITE_FIELD_NUMBER: _ClassVar[int]
        site: int
        def __init__(self, site: _Optional[int] = ...) -> None: ...
    class Walk(_message.Message):
        __slots__ = ("direction",)
        FROM_FIELD_NUMBER: _ClassVar[int]
        DIRECTION_FIELD_NUMBER: _ClassVar[int]
        direction: DolmenDirection
        def __init__(self, direction: _Optional[_Union[DolmenDirection, str]] = ..., **kwargs) -> None: ...
    class CollectHerbs(_message.Message):
        __slots__ = ("site",)
        SITE_FIELD_NUMBER: _ClassVar[int]
        site: int
        def __init__(self, site: _Optional[int] = ...) -> None: ...
    class Fly(_message.Message):
        __slots__ = ("to",)
        FROM_FIELD_NUMBER: _ClassVar[int]
        TO_FIELD_NUMBER: _ClassVar[int]
        to: int
        def __init__(self, to: _Optional[int] = ..., **kwargs) -> None: ...
    class PlaceStone(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class DeclineStone(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class PlaceDolmen(_message.Message):
        __slots__ = ("value",)
        VALUE_FIELD_NUMBER: _ClassVar[int]
        value: int
        def __init__(self, value: _Optional[int] = ...) -> None: ...
    class PassDolmen(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    PLACE_DRUID_FIELD_NUMBER: _ClassVar[int]
    WALK_FIELD_NUMBER: _ClassVar[int]
    COLLECT_HERBS_FIELD_NUMBER: _ClassVar[int]
    FLY_FIELD_NUMBER: _ClassVar[int]
    PLACE_STONE_FIELD_NUMBER: _ClassVar[int]
    DECLINE_STONE_FIELD_NUMBER: _ClassVar[int]
    PLACE_DOLMEN_FIELD_NUMBER: _ClassVar[int]
    PASS_DOLMEN_FIELD_NUMBER: _ClassVar[int]
    place_druid: DolmenAction.PlaceDruid
    walk: DolmenAction.Walk
    collect_herbs: DolmenAction.CollectHerbs
    fly: DolmenAction.Fly
    place_stone: DolmenAction.PlaceStone
    decline_stone: DolmenAction.DeclineStone
    place_dolmen: DolmenAction.PlaceDolmen
    pass_dolmen: DolmenAction.PassDolmen
    def __init__(self, place_druid: _Optional[_Union[DolmenAction.PlaceDruid, _Mapping]] = ..., walk: _Optional[_Union[DolmenAction.Walk, _Mapping]] = ..., collect_herbs: _Optional[_Union[DolmenAction.CollectHerbs, _Mapping]] = ..., fly: _Optional[_Union[DolmenAction.Fly, _Mapping]] = ..., place_stone: _Optional[_Union[DolmenAction.PlaceStone, _Mapping]] = ..., decline_stone: _Optional[_Union[DolmenAction.DeclineStone, _Mapping]] = ..., place_dolmen: _Optional[_Union[DolmenAction.PlaceDolmen, _Mapping]] = ..., pass_dolmen: _Optional[_Union[DolmenAction.PassDolmen, _Mapping]] = ...) -> None: ...

class DolmenDecision(_message.Message):
    __slots__ = ("kind", "site", "may_decline", "circle", "on_top")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        KIND_UNSPECIFIED: _ClassVar[DolmenDecision.Kind]
        KIND_PLACE_DRUID: _ClassVar[DolmenDecision.Kind]
        KIND_TURN: _ClassVar[DolmenDecision.Kind]
        KIND_STONE: _ClassVar[DolmenDecision.Kind]
        KIND_DOLMEN: _ClassVar[DolmenDecision.Kind]
    KIND_UNSPECIFIED: DolmenDecision.Kind
    KIND_PLACE_DRUID: DolmenDecision.Kind
    KIND_TURN: DolmenDecision.Kind
    KIND_STONE: DolmenDecision.Kind
    KIND_DOLMEN: DolmenDecision.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    SITE_FIELD_NUMBER: _ClassVar[int]
    MAY_DECLINE_FIELD_NUMBER: _ClassVar[int]
    CIRCLE_FIELD_NUMBER: _ClassVar[int]
    ON_TOP_FIELD_NUMBER: _ClassVar[int]
    kind: DolmenDecision.Kind
    site: int
    may_decline: bool
    circle: int
    on_top: bool
    def __init__(self, kind: _Optional[_Union[DolmenDecision.Kind, str]] = ..., site: _Optional[int] = ..., may_decline: _Optional[bool] = ..., circle: _Optional[int] = ..., on_top: _Optional[bool] = ...) -> None: ...

class DolmenEvent(_message.Message):
    __slots__ = ("druid_placed", "turn_started", "turn_passed", "walked", "herbs_collected", "flew", "stone_placed", "stone_declined", "leader_changed", "dolmen_placed", "dolmen_passed", "circle_completed", "dolmen_scored", "scored", "last_turns_begin", "game_ended", "game_over")
    class DruidPlaced(_message.Message):
        __slots__ = ("seat", "site")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        SITE_FIELD_NUMBER: _ClassVar[int]
        seat: int
        site: int
        def __init__(self, seat: _Optional[int] = ..., site: _Optional[int] = ...) -> None: ...
    class TurnStarted(_message.Message):
        __slots__ = ("seat", "turn")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        TURN_FIELD_NUMBER: _ClassVar[int]
        seat: int
        turn: int
        def __init__(self, seat: _Optional[int] = ..., turn: _Optional[int] = ...) -> None: ...
    class TurnPassed(_message.Message):
        __slots__ = ("seat",)
        SEAT_FIELD_NUMBER: _ClassVar[int]
        seat: int
        def __init__(self, seat: _Optional[int] = ...) -> None: ...
    class Walked(_message.Message):
        __slots__ = ("seat", "to", "direction", "jumped")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        FROM_FIELD_NUMBER: _ClassVar[int]
        TO_FIELD_NUMBER: _ClassVar[int]
        DIRECTION_FIELD_NUMBER: _ClassVar[int]
        JUMPED_FIELD_NUMBER: _ClassVar[int]
        seat: int
        to: int
        direction: DolmenDirection
        jumped: int
        def __init__(self, seat: _Optional[int] = ..., to: _Optional[int] = ..., direction: _Optional[_Union[DolmenDirection, str]] = ..., jumped: _Optional[int] = ..., **kwargs) -> None: ...
    class HerbsCollected(_message.Message):
        __slots__ = ("seat", "site")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        SITE_FIELD_NUMBER: _ClassVar[int]
        seat: int
        site: int
        def __init__(self, seat: _Optional[int] = ..., site: _Optional[int] = ...) -> None: ...
    class Flew(_message.Message):
        __slots__ = ("seat", "to")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        FROM_FIELD_NUMBER: _ClassVar[int]
        TO_FIELD_NUMBER: _ClassVar[int]
        seat: int
        to: int
        def __init__(self, seat: _Optional[int] = ..., to: _Optional[int] = ..., **kwargs) -> None: ...
    class StonePlaced(_message.Message):
        __slots__ = ("seat", "site", "stones_left")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        SITE_FIELD_NUMBER: _ClassVar[int]
        STONES_LEFT_FIELD_NUMBER: _ClassVar[int]
        seat: int
        site: int
        stones_left: int
        def __init__(self, seat: _Optional[int] = ..., site: _Optional[int] = ..., stones_left: _Optional[int] = ...) -> None: ...
    class StoneDeclined(_message.Message):
        __slots__ = ("seat", "site")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        SITE_FIELD_NUMBER: _ClassVar[int]
        seat: int
        site: int
        def __init__(self, seat: _Optional[int] = ..., site: _Optional[int] = ...) -> None: ...
    class LeaderChanged(_message.Message):
        __slots__ = ("circle", "leader")
        CIRCLE_FIELD_NUMBER: _ClassVar[int]
        LEADER_FIELD_NUMBER: _ClassVar[int]
        circle: int
        leader: int
        def __init__(self, circle: _Optional[int] = ..., leader: _Optional[int] = ...) -> None: ...
    class DolmenPlaced(_message.Message):
        __slots__ = ("seat", "circle", "on_top", "value", "dolmens_left")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        CIRCLE_FIELD_NUMBER: _ClassVar[int]
        ON_TOP_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        DOLMENS_LEFT_FIELD_NUMBER: _ClassVar[int]
        seat: int
        circle: int
        on_top: bool
        value: int
        dolmens_left: int
        def __init__(self, seat: _Optional[int] = ..., circle: _Optional[int] = ..., on_top: _Optional[bool] = ..., value: _Optional[int] = ..., dolmens_left: _Optional[int] = ...) -> None: ...
    class DolmenPassed(_message.Message):
        __slots__ = ("seat", "circle")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        CIRCLE_FIELD_NUMBER: _ClassVar[int]
        seat: int
        circle: int
        def __init__(self, seat: _Optional[int] = ..., circle: _Optional[int] = ...) -> None: ...
    class CircleCompleted(_message.Message):
        __slots__ = ("circle",)
        CIRCLE_FIELD_NUMBER: _ClassVar[int]
        circle: int
        def __init__(self, circle: _Optional[int] = ...) -> None: ...
    class DolmenScored(_message.Message):
        __slots__ = ("seat", "circle", "value", "multiplier")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        CIRCLE_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
        seat: int
        circle: int
        value: int
        multiplier: int
        def __init__(self, seat: _Optional[int] = ..., circle: _Optional[int] = ..., value: _Optional[int] = ..., multiplier: _Optional[int] = ...) -> None: ...
    class Scored(_message.Message):
        __slots__ = ("seat", "delta", "total", "reason")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        DELTA_FIELD_NUMBER: _ClassVar[int]
        TOTAL_FIELD_NUMBER: _ClassVar[int]
        REASON_FIELD_NUMBER: _ClassVar[int]
        seat: int
        delta: int
        total: int
        reason: DolmenScoreReason
        def __init__(self, seat: _Optional[int] = ..., delta: _Optional[int] = ..., total: _Optional[int] = ..., reason: _Optional[_Union[DolmenScoreReason, str]] = ...) -> None: ...
    class LastTurnsBegin(_message.Message):
        __slots__ = ("seat",)
        SEAT_FIELD_NUMBER: _ClassVar[int]
        seat: int
        def __init__(self, seat: _Optional[int] = ...) -> None: ...
    class GameEnded(_message.Message):
        __slots__ = ("reason",)
        REASON_FIELD_NUMBER: _ClassVar[int]
        reason: DolmenEndReason
        def __init__(self, reason: _Optional[_Union[DolmenEndReason, str]] = ...) -> None: ...
    class GameOver(_message.Message):
        __slots__ = ("scores", "winners")
        SCORES_FIELD_NUMBER: _ClassVar[int]
        WINNERS_FIELD_NUMBER: _ClassVar[int]
        scores: _containers.RepeatedScalarFieldContainer[int]
        winners: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, scores: _Optional[_Iterable[int]] = ..., winners: _Optional[_Iterable[int]] = ...) -> None: ...
    DRUID_PLACED_FIELD_NUMBER: _ClassVar[int]
    TURN_STARTED_FIELD_NUMBER: _ClassVar[int]
    TURN_PASSED_FIELD_NUMBER: _ClassVar[int]
    WALKED_FIELD_NUMBER: _ClassVar[int]
    HERBS_COLLECTED_FIELD_NUMBER: _ClassVar[int]
    FLEW_FIELD_NUMBER: _ClassVar[int]
    STONE_PLACED_FIELD_NUMBER: _ClassVar[int]
    STONE_DECLINED_FIELD_NUMBER: _ClassVar[int]
    LEADER_CHANGED_FIELD_NUMBER: _ClassVar[int]
    DOLMEN_PLACED_FIELD_NUMBER: _ClassVar[int]
    DOLMEN_PASSED_FIELD_NUMBER: _ClassVar[int]
    CIRCLE_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    DOLMEN_SCORED_FIELD_NUMBER: _ClassVar[int]
    SCORED_FIELD_NUMBER: _ClassVar[int]
    LAST_TURNS_BEGIN_FIELD_NUMBER: _ClassVar[int]
    GAME_ENDED_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    druid_placed: DolmenEvent.DruidPlaced
    turn_started: DolmenEvent.TurnStarted
    turn_passed: DolmenEvent.TurnPassed
    walked: DolmenEvent.Walked
    herbs_collected: DolmenEvent.HerbsCollected
    flew: DolmenEvent.Flew
    stone_placed: DolmenEvent.StonePlaced
    stone_declined: DolmenEvent.StoneDeclined
    leader_changed: DolmenEvent.LeaderChanged
    dolmen_placed: DolmenEvent.DolmenPlaced
    dolmen_passed: DolmenEvent.DolmenPassed
    circle_completed: DolmenEvent.CircleCompleted
    dolmen_scored: DolmenEvent.DolmenScored
    scored: DolmenEvent.Scored
    last_turns_begin: DolmenEvent.LastTurnsBegin
    game_ended: DolmenEvent.GameEnded
    game_over: DolmenEvent.GameOver
    def __init__(self, druid_placed: _Optional[_Union[DolmenEvent.DruidPlaced, _Mapping]] = ..., turn_started: _Optional[_Union[DolmenEvent.TurnStarted, _Mapping]] = ..., turn_passed: _Optional[_Union[DolmenEvent.TurnPassed, _Mapping]] = ..., walked: _Optional[_Union[DolmenEvent.Walked, _Mapping]] = ..., herbs_collected: _Optional[_Union[DolmenEvent.HerbsCollected, _Mapping]] = ..., flew: _Optional[_Union[DolmenEvent.Flew, _Mapping]] = ..., stone_placed: _Optional[_Union[DolmenEvent.StonePlaced, _Mapping]] = ..., stone_declined: _Optional[_Union[DolmenEvent.StoneDeclined, _Mapping]] = ..., leader_changed: _Optional[_Union[DolmenEvent.LeaderChanged, _Mapping]] = ..., dolmen_placed: _Optional[_Union[DolmenEvent.DolmenPlaced, _Mapping]] = ..., dolmen_passed: _Optional[_Union[DolmenEvent.DolmenPassed, _Mapping]] = ..., circle_completed: _Optional[_Union[DolmenEvent.CircleCompleted, _Mapping]] = ..., dolmen_scored: _Optional[_Union[DolmenEvent.DolmenScored, _Mapping]] = ..., scored: _Optional[_Union[DolmenEvent.Scored, _Mapping]] = ..., last_turns_begin: _Optional[_Union[DolmenEvent.LastTurnsBegin, _Mapping]] = ..., game_ended: _Optional[_Union[DolmenEvent.GameEnded, _Mapping]] = ..., game_over: _Optional[_Union[DolmenEvent.GameOver, _Mapping]] = ...) -> None: ...

class DolmenSite(_message.Message):
    __slots__ = ("site", "x", "y", "circles", "druid", "stone")
    class Druid(_message.Message):
        __slots__ = ("seat", "lying")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        LYING_FIELD_NUMBER: _ClassVar[int]
        seat: int
        lying: bool
        def __init__(self, seat: _Optional[int] = ..., lying: _Optional[bool] = ...) -> None: ...
    SITE_FIELD_NUMBER: _ClassVar[int]
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    CIRCLES_FIELD_NUMBER: _ClassVar[int]
    DRUID_FIELD_NUMBER: _ClassVar[int]
    STONE_FIELD_NUMBER: _ClassVar[int]
    site: int
    x: int
    y: int
    circles: _containers.RepeatedScalarFieldContainer[int]
    druid: DolmenSite.Druid
    stone: int
    def __init__(self, site: _Optional[int] = ..., x: _Optional[int] = ..., y: _Optional[int] = ..., circles: _Optional[_Iterable[int]] = ..., druid: _Optional[_Union[DolmenSite.Druid, _Mapping]] = ..., stone: _Optional[int] = ...) -> None: ...

class DolmenPiece(_message.Message):
    __slots__ = ("seat", "value")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    value: int
    def __init__(self, seat: _Optional[int] = ..., value: _Optional[int] = ...) -> None: ...

class DolmenCircle(_message.Message):
    __slots__ = ("circle", "letter", "shape", "sites", "leader", "stones", "stack", "complete")
    CIRCLE_FIELD_NUMBER: _ClassVar[int]
    LETTER_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    SITES_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    STONES_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    circle: int
    letter: str
    shape: DolmenShape
    sites: _containers.RepeatedScalarFieldContainer[int]
    leader: int
    stones: _containers.RepeatedScalarFieldContainer[int]
    stack: _containers.RepeatedCompositeFieldContainer[DolmenPiece]
    complete: bool
    def __init__(self, circle: _Optional[int] = ..., letter: _Optional[str] = ..., shape: _Optional[_Union[DolmenShape, str]] = ..., sites: _Optional[_Iterable[int]] = ..., leader: _Optional[int] = ..., stones: _Optional[_Iterable[int]] = ..., stack: _Optional[_Iterable[_Union[DolmenPiece, _Mapping]]] = ..., complete: _Optional[bool] = ...) -> None: ...

class DolmenSeat(_message.Message):
    __slots__ = ("seat", "colour", "score", "stones_left", "dolmens_left", "dolmens_placed", "druids_to_place", "hand", "scored")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    STONES_LEFT_FIELD_NUMBER: _ClassVar[int]
    DOLMENS_LEFT_FIELD_NUMBER: _ClassVar[int]
    DOLMENS_PLACED_FIELD_NUMBER: _ClassVar[int]
    DRUIDS_TO_PLACE_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    SCORED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    colour: DolmenColour
    score: int
    stones_left: int
    dolmens_left: int
    dolmens_placed: int
    druids_to_place: int
    hand: DolmenValues
    scored: DolmenValues
    def __init__(self, seat: _Optional[int] = ..., colour: _Optional[_Union[DolmenColour, str]] = ..., score: _Optional[int] = ..., stones_left: _Optional[int] = ..., dolmens_left: _Optional[int] = ..., dolmens_placed: _Optional[int] = ..., druids_to_place: _Optional[int] = ..., hand: _Optional[_Union[DolmenValues, _Mapping]] = ..., scored: _Optional[_Union[DolmenValues, _Mapping]] = ...) -> None: ...

class DolmenValues(_message.Message):
    __slots__ = ("ones", "twos", "threes", "fours")
    ONES_FIELD_NUMBER: _ClassVar[int]
    TWOS_FIELD_NUMBER: _ClassVar[int]
    THREES_FIELD_NUMBER: _ClassVar[int]
    FOURS_FIELD_NUMBER: _ClassVar[int]
    ones: int
    twos: int
    threes: int
    fours: int
    def __init__(self, ones: _Optional[int] = ..., twos: _Optional[int] = ..., threes: _Optional[int] = ..., fours: _Optional[int] = ...) -> None: ...

class DolmenView(_message.Message):
    __slots__ = ("sites", "circles", "seats", "active", "turn", "end_triggered_by", "last_turns_left", "max_turns", "queued_dolmens")
    SITES_FIELD_NUMBER: _ClassVar[int]
    CIRCLES_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    END_TRIGGERED_BY_FIELD_NUMBER: _ClassVar[int]
    LAST_TURNS_LEFT_FIELD_NUMBER: _ClassVar[int]
    MAX_TURNS_FIELD_NUMBER: _ClassVar[int]
    QUEUED_DOLMENS_FIELD_NUMBER: _ClassVar[int]
    sites: _containers.RepeatedCompositeFieldContainer[DolmenSite]
    circles: _containers.RepeatedCompositeFieldContainer[DolmenCircle]
    seats: _containers.RepeatedCompositeFieldContainer[DolmenSeat]
    active: int
    turn: int
    end_triggered_by: int
    last_turns_left: int
    max_turns: int
    queued_dolmens: _containers.RepeatedCompositeFieldContainer[DolmenQueued]
    def __init__(self, sites: _Optional[_Iterable[_Union[DolmenSite, _Mapping]]] = ..., circles: _Optional[_Iterable[_Union[DolmenCircle, _Mapping]]] = ..., seats: _Optional[_Iterable[_Union[DolmenSeat, _Mapping]]] = ..., active: _Optional[int] = ..., turn: _Optional[int] = ..., end_triggered_by: _Optional[int] = ..., last_turns_left: _Optional[int] = ..., max_turns: _Optional[int] = ..., queued_dolmens: _Optional[_Iterable[_Union[DolmenQueued, _Mapping]]] = ...) -> None: ...

class DolmenQueued(_message.Message):
    __slots__ = ("circle", "seat", "on_top")
    CIRCLE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ON_TOP_FIELD_NUMBER: _ClassVar[int]
    circle: int
    seat: int
    on_top: bool
    def __init__(self, circle: _Optional[int] = ..., seat: _Optional[int] = ..., on_top: _Optional[bool] = ...) -> None: ...
