from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Good(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GOOD_UNSPECIFIED: _ClassVar[Good]
    GOOD_WOOD: _ClassVar[Good]
    GOOD_WOOL: _ClassVar[Good]
    GOOD_COPPER: _ClassVar[Good]
    GOOD_STONE: _ClassVar[Good]

class Chip(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHIP_UNSPECIFIED: _ClassVar[Chip]
    CHIP_PLUS_TWO: _ClassVar[Chip]
    CHIP_FREE_HUT: _ClassVar[Chip]
    CHIP_DRUID_OFFERING: _ClassVar[Chip]

class Area(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AREA_UNSPECIFIED: _ClassVar[Area]
    AREA_SERPENT: _ClassVar[Area]
    AREA_STAR: _ClassVar[Area]
    AREA_SPLASH: _ClassVar[Area]
    AREA_SCALES: _ClassVar[Area]
    AREA_SPIRAL: _ClassVar[Area]
    AREA_WAVE: _ClassVar[Area]
    AREA_FIRE: _ClassVar[Area]
    AREA_MOON: _ClassVar[Area]
    AREA_ARROW: _ClassVar[Area]

class MedurisColour(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MEDURIS_COLOUR_UNSPECIFIED: _ClassVar[MedurisColour]
    MEDURIS_COLOUR_PURPLE: _ClassVar[MedurisColour]
    MEDURIS_COLOUR_BLUE: _ClassVar[MedurisColour]
    MEDURIS_COLOUR_LIGHT_GREEN: _ClassVar[MedurisColour]
    MEDURIS_COLOUR_RED: _ClassVar[MedurisColour]

class MedurisBoard(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MEDURIS_BOARD_UNSPECIFIED: _ClassVar[MedurisBoard]
    MEDURIS_BOARD_SMALL: _ClassVar[MedurisBoard]
    MEDURIS_BOARD_LARGE: _ClassVar[MedurisBoard]

class ScoreReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SCORE_REASON_UNSPECIFIED: _ClassVar[ScoreReason]
    SCORE_REASON_CHIP: _ClassVar[ScoreReason]
    SCORE_REASON_OFFERING: _ClassVar[ScoreReason]
    SCORE_REASON_RIVER_CROSSING: _ClassVar[ScoreReason]
    SCORE_REASON_TEMPLE: _ClassVar[ScoreReason]
    SCORE_REASON_RUNES: _ClassVar[ScoreReason]

class OfferingKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OFFERING_KIND_UNSPECIFIED: _ClassVar[OfferingKind]
    OFFERING_KIND_BOTH: _ClassVar[OfferingKind]
    OFFERING_KIND_ONE: _ClassVar[OfferingKind]
    OFFERING_KIND_NOTHING: _ClassVar[OfferingKind]
    OFFERING_KIND_CHIP: _ClassVar[OfferingKind]
GOOD_UNSPECIFIED: Good
GOOD_WOOD: Good
GOOD_WOOL: Good
GOOD_COPPER: Good
GOOD_STONE: Good
CHIP_UNSPECIFIED: Chip
CHIP_PLUS_TWO: Chip
CHIP_FREE_HUT: Chip
CHIP_DRUID_OFFERING: Chip
AREA_UNSPECIFIED: Area
AREA_SERPENT: Area
AREA_STAR: Area
AREA_SPLASH: Area
AREA_SCALES: Area
AREA_SPIRAL: Area
AREA_WAVE: Area
AREA_FIRE: Area
AREA_MOON: Area
AREA_ARROW: Area
MEDURIS_COLOUR_UNSPECIFIED: MedurisColour
MEDURIS_COLOUR_PURPLE: MedurisColour
MEDURIS_COLOUR_BLUE: MedurisColour
MEDURIS_COLOUR_LIGHT_GREEN: MedurisColour
MEDURIS_COLOUR_RED: MedurisColour
MEDURIS_BOARD_UNSPECIFIED: MedurisBoard
MEDURIS_BOARD_SMALL: MedurisBoard
MEDURIS_BOARD_LARGE: MedurisBoard
SCORE_REASON_UNSPECIFIED: ScoreReason
SCORE_REASON_CHIP: ScoreReason
SCORE_REASON_OFFERING: ScoreReason
SCORE_REASON_RIVER_CROSSING: ScoreReason
SCORE_REASON_TEMPLE: ScoreReason
SCORE_REASON_RUNES: ScoreReason
OFFERING_KIND_UNSPECIFIED: OfferingKind
OFFERING_KIND_BOTH: OfferingKind
OFFERING_KIND_ONE: OfferingKind
OFFERING_KIND_NOTHING: OfferingKind
OFFERING_KIND_CHIP: OfferingKind

class Goods(_message.Message):
    __slots__ = ("wood", "wool", "copper", "stone")
    WOOD_FIELD_NUMBER: _ClassVar[int]
    WOOL_FIELD_NUMBER: _ClassVar[int]
    COPPER_FIELD_NUMBER: _ClassVar[int]
    STONE_FIELD_NUMBER: _ClassVar[int]
    wood: int
    wool: int
    copper: int
    stone: int
    def __init__(self, wood: _Optional[int] = ..., wool: _Optional[int] = ..., copper: _Optional[int] = ..., stone: _Optional[int] = ...) -> None: ...

class DruidPosition(_message.Message):
    __slots__ = ("temple", "stone_field", "field")
    TEMPLE_FIELD_NUMBER: _ClassVar[int]
    STONE_FIELD_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    temple: bool
    stone_field: int
    field: int
    def __init__(self, temple: _Optional[bool] = ..., stone_field: _Optional[int] = ..., field: _Optional[int] = ...) -> None: ...

class MedurisAction(_message.Message):
    __slots__ = ("place_worker", "take_good", "return_good", "big_yield", "build_hut", "build_temple", "offer", "offer_chip")
    class PlaceWorker(_message.Message):
        __slots__ = ("plateau",)
        PLATEAU_FIELD_NUMBER: _ClassVar[int]
        plateau: Good
        def __init__(self, plateau: _Optional[_Union[Good, str]] = ...) -> None: ...
    class TakeGood(_message.Message):
        __slots__ = ("good",)
        GOOD_FIELD_NUMBER: _ClassVar[int]
        good: Good
        def __init__(self, good: _Optional[_Union[Good, str]] = ...) -> None: ...
    class ReturnGood(_message.Message):
        __slots__ = ("good",)
        GOOD_FIELD_NUMBER: _ClassVar[int]
        good: Good
        def __init__(self, good: _Optional[_Union[Good, str]] = ...) -> None: ...
    class BigYield(_message.Message):
        __slots__ = ("height", "to")
        FROM_FIELD_NUMBER: _ClassVar[int]
        HEIGHT_FIELD_NUMBER: _ClassVar[int]
        TO_FIELD_NUMBER: _ClassVar[int]
        height: int
        to: Good
        def __init__(self, height: _Optional[int] = ..., to: _Optional[_Union[Good, str]] = ..., **kwargs) -> None: ...
    class BuildHut(_message.Message):
        __slots__ = ("field", "payment")
        FIELD_FIELD_NUMBER: _ClassVar[int]
        PAYMENT_FIELD_NUMBER: _ClassVar[int]
        field: int
        payment: Goods
        def __init__(self, field: _Optional[int] = ..., payment: _Optional[_Union[Goods, _Mapping]] = ...) -> None: ...
    class BuildTemple(_message.Message):
        __slots__ = ("field", "payment")
        FIELD_FIELD_NUMBER: _ClassVar[int]
        PAYMENT_FIELD_NUMBER: _ClassVar[int]
        field: int
        payment: Goods
        def __init__(self, field: _Optional[int] = ..., payment: _Optional[_Union[Goods, _Mapping]] = ...) -> None: ...
    class Offer(_message.Message):
        __slots__ = ("payment",)
        PAYMENT_FIELD_NUMBER: _ClassVar[int]
        payment: Goods
        def __init__(self, payment: _Optional[_Union[Goods, _Mapping]] = ...) -> None: ...
    class OfferChip(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    PLACE_WORKER_FIELD_NUMBER: _ClassVar[int]
    TAKE_GOOD_FIELD_NUMBER: _ClassVar[int]
    RETURN_GOOD_FIELD_NUMBER: _ClassVar[int]
    BIG_YIELD_FIELD_NUMBER: _ClassVar[int]
    BUILD_HUT_FIELD_NUMBER: _ClassVar[int]
    BUILD_TEMPLE_FIELD_NUMBER: _ClassVar[int]
    OFFER_FIELD_NUMBER: _ClassVar[int]
    OFFER_CHIP_FIELD_NUMBER: _ClassVar[int]
    place_worker: MedurisAction.PlaceWorker
    take_good: MedurisAction.TakeGood
    return_good: MedurisAction.ReturnGood
    big_yield: MedurisAction.BigYield
    build_hut: MedurisAction.BuildHut
    build_temple: MedurisAction.BuildTemple
    offer: MedurisAction.Offer
    offer_chip: MedurisAction.OfferChip
    def __init__(self, place_worker: _Optional[_Union[MedurisAction.PlaceWorker, _Mapping]] = ..., take_good: _Optional[_Union[MedurisAction.TakeGood, _Mapping]] = ..., return_good: _Optional[_Union[MedurisAction.ReturnGood, _Mapping]] = ..., big_yield: _Optional[_Union[MedurisAction.BigYield, _Mapping]] = ..., build_hut: _Optional[_Union[MedurisAction.BuildHut, _Mapping]] = ..., build_temple: _Optional[_Union[MedurisAction.BuildTemple, _Mapping]] = ..., offer: _Optional[_Union[MedurisAction.Offer, _Mapping]] = ..., offer_chip: _Optional[_Union[MedurisAction.OfferChip, _Mapping]] = ...) -> None: ...

class MedurisDecision(_message.Message):
    __slots__ = ("kind", "field", "last_round")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        KIND_UNSPECIFIED: _ClassVar[MedurisDecision.Kind]
        KIND_PLACE_WORKER: _ClassVar[MedurisDecision.Kind]
        KIND_TAKE_GOOD: _ClassVar[MedurisDecision.Kind]
        KIND_RETURN_GOOD: _ClassVar[MedurisDecision.Kind]
        KIND_TURN: _ClassVar[MedurisDecision.Kind]
        KIND_OFFERING: _ClassVar[MedurisDecision.Kind]
    KIND_UNSPECIFIED: MedurisDecision.Kind
    KIND_PLACE_WORKER: MedurisDecision.Kind
    KIND_TAKE_GOOD: MedurisDecision.Kind
    KIND_RETURN_GOOD: MedurisDecision.Kind
    KIND_TURN: MedurisDecision.Kind
    KIND_OFFERING: MedurisDecision.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    LAST_ROUND_FIELD_NUMBER: _ClassVar[int]
    kind: MedurisDecision.Kind
    field: int
    last_round: bool
    def __init__(self, kind: _Optional[_Union[MedurisDecision.Kind, str]] = ..., field: _Optional[int] = ..., last_round: _Optional[bool] = ...) -> None: ...

class MedurisEvent(_message.Message):
    __slots__ = ("chip_placed", "worker_placed", "turn_started", "die_rolled", "goods_gained", "good_returned", "worker_moved", "hut_built", "temple_built", "chip_used", "rune_taken", "druid_moved", "river_crossed", "offering", "scored", "end_triggered", "safeguard_reached", "last_round_started", "game_over")
    class ChipPlaced(_message.Message):
        __slots__ = ("field", "chip")
        FIELD_FIELD_NUMBER: _ClassVar[int]
        CHIP_FIELD_NUMBER: _ClassVar[int]
        field: int
        chip: Chip
        def __init__(self, field: _Optional[int] = ..., chip: _Optional[_Union[Chip, str]] = ...) -> None: ...
    class WorkerPlaced(_message.Message):
        __slots__ = ("seat", "plateau")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        PLATEAU_FIELD_NUMBER: _ClassVar[int]
        seat: int
        plateau: Good
        def __init__(self, seat: _Optional[int] = ..., plateau: _Optional[_Union[Good, str]] = ...) -> None: ...
    class TurnStarted(_message.Message):
        __slots__ = ("seat", "turn")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        TURN_FIELD_NUMBER: _ClassVar[int]
        seat: int
        turn: int
        def __init__(self, seat: _Optional[int] = ..., turn: _Optional[int] = ...) -> None: ...
    class DieRolled(_message.Message):
        __slots__ = ("plus_one", "minus_one")
        YIELD_FIELD_NUMBER: _ClassVar[int]
        PLUS_ONE_FIELD_NUMBER: _ClassVar[int]
        MINUS_ONE_FIELD_NUMBER: _ClassVar[int]
        plus_one: bool
        minus_one: bool
        def __init__(self, plus_one: _Optional[bool] = ..., minus_one: _Optional[bool] = ..., **kwargs) -> None: ...
    class GoodsGained(_message.Message):
        __slots__ = ("seat", "good", "count")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        GOOD_FIELD_NUMBER: _ClassVar[int]
        COUNT_FIELD_NUMBER: _ClassVar[int]
        seat: int
        good: Good
        count: int
        def __init__(self, seat: _Optional[int] = ..., good: _Optional[_Union[Good, str]] = ..., count: _Optional[int] = ...) -> None: ...
    class GoodReturned(_message.Message):
        __slots__ = ("seat", "good")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        GOOD_FIELD_NUMBER: _ClassVar[int]
        seat: int
        good: Good
        def __init__(self, seat: _Optional[int] = ..., good: _Optional[_Union[Good, str]] = ...) -> None: ...
    class WorkerMoved(_message.Message):
        __slots__ = ("seat", "height", "to")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        FROM_FIELD_NUMBER: _ClassVar[int]
        HEIGHT_FIELD_NUMBER: _ClassVar[int]
        TO_FIELD_NUMBER: _ClassVar[int]
        seat: int
        height: int
        to: Good
        def __init__(self, seat: _Optional[int] = ..., height: _Optional[int] = ..., to: _Optional[_Union[Good, str]] = ..., **kwargs) -> None: ...
    class HutBuilt(_message.Message):
        __slots__ = ("seat", "field", "paid", "settlement")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        FIELD_FIELD_NUMBER: _ClassVar[int]
        PAID_FIELD_NUMBER: _ClassVar[int]
        SETTLEMENT_FIELD_NUMBER: _ClassVar[int]
        seat: int
        field: int
        paid: Goods
        settlement: int
        def __init__(self, seat: _Optional[int] = ..., field: _Optional[int] = ..., paid: _Optional[_Union[Goods, _Mapping]] = ..., settlement: _Optional[int] = ...) -> None: ...
    class TempleBuilt(_message.Message):
        __slots__ = ("seat", "field", "paid")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        FIELD_FIELD_NUMBER: _ClassVar[int]
        PAID_FIELD_NUMBER: _ClassVar[int]
        seat: int
        field: int
        paid: Goods
        def __init__(self, seat: _Optional[int] = ..., field: _Optional[int] = ..., paid: _Optional[_Union[Goods, _Mapping]] = ...) -> None: ...
    class ChipUsed(_message.Message):
        __slots__ = ("field", "chip")
        FIELD_FIELD_NUMBER: _ClassVar[int]
        CHIP_FIELD_NUMBER: _ClassVar[int]
        field: int
        chip: Chip
        def __init__(self, field: _Optional[int] = ..., chip: _Optional[_Union[Chip, str]] = ...) -> None: ...
    class RuneTaken(_message.Message):
        __slots__ = ("area", "to")
        AREA_FIELD_NUMBER: _ClassVar[int]
        FROM_FIELD_NUMBER: _ClassVar[int]
        TO_FIELD_NUMBER: _ClassVar[int]
        area: Area
        to: int
        def __init__(self, area: _Optional[_Union[Area, str]] = ..., to: _Optional[int] = ..., **kwargs) -> None: ...
    class DruidMoved(_message.Message):
        __slots__ = ("to",)
        TO_FIELD_NUMBER: _ClassVar[int]
        to: DruidPosition
        def __init__(self, to: _Optional[_Union[DruidPosition, _Mapping]] = ...) -> None: ...
    class RiverCrossed(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Offering(_message.Message):
        __slots__ = ("seat", "field", "kind", "paid")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        FIELD_FIELD_NUMBER: _ClassVar[int]
        KIND_FIELD_NUMBER: _ClassVar[int]
        PAID_FIELD_NUMBER: _ClassVar[int]
        seat: int
        field: int
        kind: OfferingKind
        paid: Goods
        def __init__(self, seat: _Optional[int] = ..., field: _Optional[int] = ..., kind: _Optional[_Union[OfferingKind, str]] = ..., paid: _Optional[_Union[Goods, _Mapping]] = ...) -> None: ...
    class Scored(_message.Message):
        __slots__ = ("seat", "delta", "total", "reason")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        DELTA_FIELD_NUMBER: _ClassVar[int]
        TOTAL_FIELD_NUMBER: _ClassVar[int]
        REASON_FIELD_NUMBER: _ClassVar[int]
        seat: int
        delta: int
        total: int
        reason: ScoreReason
        def __init__(self, seat: _Optional[int] = ..., delta: _Optional[int] = ..., total: _Optional[int] = ..., reason: _Optional[_Union[ScoreReason, str]] = ...) -> None: ...
    class EndTriggered(_message.Message):
        __slots__ = ("seat",)
        SEAT_FIELD_NUMBER: _ClassVar[int]
        seat: int
        def __init__(self, seat: _Optional[int] = ...) -> None: ...
    class SafeguardReached(_message.Message):
        __slots__ = ("turns",)
        TURNS_FIELD_NUMBER: _ClassVar[int]
        turns: int
        def __init__(self, turns: _Optional[int] = ...) -> None: ...
    class LastRoundStarted(_message.Message):
        __slots__ = ("marked",)
        MARKED_FIELD_NUMBER: _ClassVar[int]
        marked: DruidPosition
        def __init__(self, marked: _Optional[_Union[DruidPosition, _Mapping]] = ...) -> None: ...
    class GameOver(_message.Message):
        __slots__ = ("scores", "goods_left", "winners")
        SCORES_FIELD_NUMBER: _ClassVar[int]
        GOODS_LEFT_FIELD_NUMBER: _ClassVar[int]
        WINNERS_FIELD_NUMBER: _ClassVar[int]
        scores: _containers.RepeatedScalarFieldContainer[int]
        goods_left: _containers.RepeatedCompositeFieldContainer[MedurisEvent.SeatGoods]
        winners: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, scores: _Optional[_Iterable[int]] = ..., goods_left: _Optional[_Iterable[_Union[MedurisEvent.SeatGoods, _Mapping]]] = ..., winners: _Optional[_Iterable[int]] = ...) -> None: ...
    class SeatGoods(_message.Message):
        __slots__ = ("seat", "goods")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        GOODS_FIELD_NUMBER: _ClassVar[int]
        seat: int
        goods: Goods
        def __init__(self, seat: _Optional[int] = ..., goods: _Optional[_Union[Goods, _Mapping]] = ...) -> None: ...
    CHIP_PLACED_FIELD_NUMBER: _ClassVar[int]
    WORKER_PLACED_FIELD_NUMBER: _ClassVar[int]
    TURN_STARTED_FIELD_NUMBER: _ClassVar[int]
    DIE_ROLLED_FIELD_NUMBER: _ClassVar[int]
    GOODS_GAINED_FIELD_NUMBER: _ClassVar[int]
    GOOD_RETURNED_FIELD_NUMBER: _ClassVar[int]
    WORKER_MOVED_FIELD_NUMBER: _ClassVar[int]
    HUT_BUILT_FIELD_NUMBER: _ClassVar[int]
    TEMPLE_BUILT_FIELD_NUMBER: _ClassVar[int]
    CHIP_USED_FIELD_NUMBER: _ClassVar[int]
    RUNE_TAKEN_FIELD_NUMBER: _ClassVar[int]
    DRUID_MOVED_FIELD_NUMBER: _ClassVar[int]
    RIVER_CROSSED_FIELD_NUMBER: _ClassVar[int]
    OFFERING_FIELD_NUMBER: _ClassVar[int]
    SCORED_FIELD_NUMBER: _ClassVar[int]
    END_TRIGGERED_FIELD_NUMBER: _ClassVar[int]
    SAFEGUARD_REACHED_FIELD_NUMBER: _ClassVar[int]
    LAST_ROUND_STARTED_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    chip_placed: MedurisEvent.ChipPlaced
    worker_placed: MedurisEvent.WorkerPlaced
    turn_started: MedurisEvent.TurnStarted
    die_rolled: MedurisEvent.DieRolled
    goods_gained: MedurisEvent.GoodsGained
    good_returned: MedurisEvent.GoodReturned
    worker_moved: MedurisEvent.WorkerMoved
    hut_built: MedurisEvent.HutBuilt
    temple_built: MedurisEvent.TempleBuilt
    chip_used: MedurisEvent.ChipUsed
    rune_taken: MedurisEvent.RuneTaken
    druid_moved: MedurisEvent.DruidMoved
    river_crossed: MedurisEvent.RiverCrossed
    offering: MedurisEvent.Offering
    scored: MedurisEvent.Scored
    end_triggered: MedurisEvent.EndTriggered
    safeguard_reached: MedurisEvent.SafeguardReached
    last_round_started: MedurisEvent.LastRoundStarted
    game_over: MedurisEvent.GameOver
    def __init__(self, chip_placed: _Optional[_Union[MedurisEvent.ChipPlaced, _Mapping]] = ..., worker_placed: _Optional[_Union[MedurisEvent.WorkerPlaced, _Mapping]] = ..., turn_started: _Optional[_Union[MedurisEvent.TurnStarted, _Mapping]] = ..., die_rolled: _Optional[_Union[MedurisEvent.DieRolled, _Mapping]] = ..., goods_gained: _Optional[_Union[MedurisEvent.GoodsGained, _Mapping]] = ..., good_returned: _Optional[_Union[MedurisEvent.GoodReturned, _Mapping]] = ..., worker_moved: _Optional[_Union[MedurisEvent.WorkerMoved, _Mapping]] = ..., hut_built: _Optional[_Union[MedurisEvent.HutBuilt, _Mapping]] = ..., temple_built: _Optional[_Union[MedurisEvent.TempleBuilt, _Mapping]] = ..., chip_used: _Optional[_Union[MedurisEvent.ChipUsed, _Mapping]] = ..., rune_taken: _Optional[_Union[MedurisEvent.RuneTaken, _Mapping]] = ..., druid_moved: _Optional[_Union[MedurisEvent.DruidMoved, _Mapping]] = ..., river_crossed: _Optional[_Union[MedurisEvent.RiverCrossed, _Mapping]] = ..., offering: _Optional[_Union[MedurisEvent.Offering, _Mapping]] = ..., scored: _Optional[_Union[MedurisEvent.Scored, _Mapping]] = ..., end_triggered: _Optional[_Union[MedurisEvent.EndTriggered, _Mapping]] = ..., safeguard_reached: _Optional[_Union[MedurisEvent.SafeguardReached, _Mapping]] = ..., last_round_started: _Optional[_Union[MedurisEvent.LastRoundStarted, _Mapping]] = ..., game_over: _Optional[_Union[MedurisEvent.GameOver, _Mapping]] = ...) -> None: ...

class MedurisField(_message.Message):
    __slots__ = ("field", "area", "first_good", "second_good", "building", "chip")
    class Building(_message.Message):
        __slots__ = ("owner", "temple")
        OWNER_FIELD_NUMBER: _ClassVar[int]
        TEMPLE_FIELD_NUMBER: _ClassVar[int]
        owner: int
        temple: bool
        def __init__(self, owner: _Optional[int] = ..., temple: _Optional[bool] = ...) -> None: ...
    FIELD_FIELD_NUMBER: _ClassVar[int]
    AREA_FIELD_NUMBER: _ClassVar[int]
    FIRST_GOOD_FIELD_NUMBER: _ClassVar[int]
    SECOND_GOOD_FIELD_NUMBER: _ClassVar[int]
    BUILDING_FIELD_NUMBER: _ClassVar[int]
    CHIP_FIELD_NUMBER: _ClassVar[int]
    field: int
    area: Area
    first_good: Good
    second_good: Good
    building: MedurisField.Building
    chip: Chip
    def __init__(self, field: _Optional[int] = ..., area: _Optional[_Union[Area, str]] = ..., first_good: _Optional[_Union[Good, str]] = ..., second_good: _Optional[_Union[Good, str]] = ..., building: _Optional[_Union[MedurisField.Building, _Mapping]] = ..., chip: _Optional[_Union[Chip, str]] = ...) -> None: ...

class Plateau(_message.Message):
    __slots__ = ("good", "workers")
    GOOD_FIELD_NUMBER: _ClassVar[int]
    WORKERS_FIELD_NUMBER: _ClassVar[int]
    good: Good
    workers: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, good: _Optional[_Union[Good, str]] = ..., workers: _Optional[_Iterable[int]] = ...) -> None: ...

class MedurisSeat(_message.Message):
    __slots__ = ("seat", "colour", "score", "huts_left", "temples_left", "buildings_placed", "runes", "workers_to_place", "goods")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    HUTS_LEFT_FIELD_NUMBER: _ClassVar[int]
    TEMPLES_LEFT_FIELD_NUMBER: _ClassVar[int]
    BUILDINGS_PLACED_FIELD_NUMBER: _ClassVar[int]
    RUNES_FIELD_NUMBER: _ClassVar[int]
    WORKERS_TO_PLACE_FIELD_NUMBER: _ClassVar[int]
    GOODS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    colour: MedurisColour
    score: int
    huts_left: int
    temples_left: int
    buildings_placed: int
    runes: int
    workers_to_place: int
    goods: Goods
    def __init__(self, seat: _Optional[int] = ..., colour: _Optional[_Union[MedurisColour, str]] = ..., score: _Optional[int] = ..., huts_left: _Optional[int] = ..., temples_left: _Optional[int] = ..., buildings_placed: _Optional[int] = ..., runes: _Optional[int] = ..., workers_to_place: _Optional[int] = ..., goods: _Optional[_Union[Goods, _Mapping]] = ...) -> None: ...

class RuneHolder(_message.Message):
    __slots__ = ("area", "seat")
    AREA_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    area: Area
    seat: int
    def __init__(self, area: _Optional[_Union[Area, str]] = ..., seat: _Optional[int] = ...) -> None: ...

class MedurisView(_message.Message):
    __slots__ = ("board", "fields", "plateaus", "supply", "seats", "runes", "druid", "active", "turn", "end_triggered_by", "last_turns_left", "max_turns", "ritual_start", "last_round_end")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    PLATEAUS_FIELD_NUMBER: _ClassVar[int]
    SUPPLY_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RUNES_FIELD_NUMBER: _ClassVar[int]
    DRUID_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    END_TRIGGERED_BY_FIELD_NUMBER: _ClassVar[int]
    LAST_TURNS_LEFT_FIELD_NUMBER: _ClassVar[int]
    MAX_TURNS_FIELD_NUMBER: _ClassVar[int]
    RITUAL_START_FIELD_NUMBER: _ClassVar[int]
    LAST_ROUND_END_FIELD_NUMBER: _ClassVar[int]
    board: MedurisBoard
    fields: _containers.RepeatedCompositeFieldContainer[MedurisField]
    plateaus: _containers.RepeatedCompositeFieldContainer[Plateau]
    supply: Goods
    seats: _containers.RepeatedCompositeFieldContainer[MedurisSeat]
    runes: _containers.RepeatedCompositeFieldContainer[RuneHolder]
    druid: DruidPosition
    active: int
    turn: int
    end_triggered_by: int
    last_turns_left: int
    max_turns: int
    ritual_start: int
    last_round_end: int
    def __init__(self, board: _Optional[_Union[MedurisBoard, str]] = ..., fields: _Optional[_Iterable[_Union[MedurisField, _Mapping]]] = ..., plateaus: _Optional[_Iterable[_Union[Plateau, _Mapping]]] = ..., supply: _Optional[_Union[Goods, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[MedurisSeat, _Mapping]]] = ..., runes: _Optional[_Iterable[_Union[RuneHolder, _Mapping]]] = ..., druid: _Optional[_Union[DruidPosition, _Mapping]] = ..., active: _Optional[int] = ..., turn: _Optional[int] = ..., end_triggered_by: _Optional[int] = ..., last_turns_left: _Optional[int] = ..., max_turns: _Optional[int] = ..., ritual_start: _Optional[int] = ..., last_round_end: _Optional[int] = ...) -> None: ...
