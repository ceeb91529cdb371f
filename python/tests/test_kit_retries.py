"""The bot kit (installed beside the engine) paces the retries a server asks for."""

from druids_bot.retry_info import MIN_ASKED, Failures


def test_a_zero_or_negative_asked_delay_still_pauses() -> None:
    failures = Failures(limit=3, patience=60.0)
    assert failures.next(0.0, lambda n: 0.5) == MIN_ASKED > 0
    assert failures.next(-2.0, lambda n: 0.5) == MIN_ASKED
    assert failures.next(0.25, lambda n: 0.5) == 0.25


def test_retries_asked_for_stop_after_the_patience_and_others_after_the_limit() -> None:
    asked = Failures(limit=3, patience=1.0)
    assert asked.next(0.6, lambda n: 0.5) == 0.6
    assert asked.next(1.5, lambda n: 0.5) is None
    unasked = Failures(limit=2)
    assert [unasked.next(None, lambda n: n * 0.1) for _ in range(3)] == [0.1, 0.2, None]
