"""How long the server asks a client to wait before a retry.

A refusal that may be retried (``UNAVAILABLE``, ``RESOURCE_EXHAUSTED``) can
carry a ``google.rpc.RetryInfo`` in the ``grpc-status-details-bin`` trailer
(a ``google.rpc.Status``). Retrying sooner only gets the same refusal again,
and ``druids conformance`` counts it against the client. The Status message
is not part of the ``protobuf`` package, so its two fields used here are read
by hand.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import grpc
from google.protobuf import any_pb2, duration_pb2

#: How long, in seconds, retries the server asks for (its refusal carries a
#: RetryInfo) go on in a row. A game moving to another node after its owner
#: died waits for the owner's lease to lapse (10 s by default); the server
#: says to retry all along.
PATIENCE = 60.0

#: The shortest pause before a retry the server asked for, in seconds.
MIN_ASKED = 0.001

_DETAILS = "grpc-status-details-bin"
_RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"


def retry_delay(error: grpc.RpcError) -> float | None:
    """The delay of the error's ``google.rpc.RetryInfo`` in seconds, if it has one."""
    trailers = error.trailing_metadata() if isinstance(error, grpc.Call) else None
    for key, value in trailers or ():
        if key != _DETAILS or not isinstance(value, bytes):
            continue
        for detail in _length_delimited(value, 3):  # google.rpc.Status.details
            packed = any_pb2.Any.FromString(detail)
            if packed.type_url != _RETRY_INFO:
                continue
            for raw in _length_delimited(packed.value, 1):  # RetryInfo.retry_delay
                return float(duration_pb2.Duration.FromString(raw).ToTimedelta().total_seconds())
    return None


class Failures:
    """Failures in a row of one call or stream, and when to give up on it.

    A retry the server asked for waits what it asked, for at most
    ``patience`` seconds from the first such failure; any other failure
    counts, at most ``limit`` in a row.
    """

    def __init__(self, limit: int, patience: float = PATIENCE) -> None:
        self.limit = limit
        self.patience = patience
        self.unasked = 0
        self._asked_since: float | None = None

    def cleared(self) -> None:
        """The call or stream went on: the count starts again."""
        self.unasked = 0
        self._asked_since = None

    def next(self, asked: float | None, unasked_pause: Callable[[int], float]) -> float | None:
        """One more failure, ``asked`` the delay its RetryInfo asked for: the
        pause before trying again (``unasked_pause`` of the count of unasked
        failures, for one that asked nothing), or None to give up."""
        if asked is not None:
            # A zero or negative delay (a proxy's, a scripted fault's) must
            # not turn into a busy loop for the whole patience.
            asked = max(asked, MIN_ASKED)
            now = time.monotonic()
            if self._asked_since is None:
                self._asked_since = now
            return asked if now - self._asked_since + asked <= self.patience else None
        if self.unasked >= self.limit:
            return None
        self.unasked += 1
        return unasked_pause(self.unasked)


def _varint(data: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, i
        shift += 7


def _length_delimited(message: bytes, field: int) -> Iterator[bytes]:
    """The values of a length-delimited ``field`` of an encoded message."""
    i = 0
    while i < len(message):
        key, i = _varint(message, i)
        wire = key & 7
        if wire == 0:
            _, i = _varint(message, i)
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        elif wire == 2:
            size, i = _varint(message, i)
            if key >> 3 == field:
                yield message[i : i + size]
            i += size
        else:
            return
