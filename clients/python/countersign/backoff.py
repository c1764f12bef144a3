"""Pauses between reads: capped exponential backoff with jitter, and ``Retry-After``."""

from __future__ import annotations

import random
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Callable, Optional


class Backoff:
    """Pauses that start at ``initial_s`` and double up to ``max_s``.

    Each pause is drawn uniformly from the upper half of the current step (``[step/2, step]``), so
    clients that started together drift apart instead of asking in lockstep, and no pause is ever
    shorter than ``initial_s / 2``.
    """

    def __init__(self, initial_s: float = 0.5, max_s: float = 10.0, *, rand: Callable[[], float] = random.random) -> None:
        if not initial_s > 0:
            raise ValueError("initial_s must be more than 0")
        if max_s < initial_s:
            raise ValueError("max_s must be at least initial_s")
        self._step = initial_s
        self._max = max_s
        self._rand = rand

    def next(self) -> float:
        """The next pause in seconds; the step after it doubles (up to the cap)."""
        step = self._step
        self._step = min(step * 2, self._max)
        return step / 2 + self._rand() * (step / 2)


def parse_retry_after(value: Optional[str], *, now: Optional[datetime] = None) -> Optional[float]:
    """Seconds to wait from a ``Retry-After`` header: delay-seconds or an HTTP date.

    ``None`` when the header is missing or unreadable. A date in the past is 0.
    """
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if text.isdigit():
        return float(int(text))
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:  # Python < 3.10 answers None instead of raising
        return None
    if when.tzinfo is None:
        # RFC 9110 dates are GMT; an unzoned one is read as UTC.
        when = when.replace(tzinfo=timezone.utc)
    seconds = (when - (now or datetime.now(timezone.utc))).total_seconds()
    return max(0.0, seconds)
