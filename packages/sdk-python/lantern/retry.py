"""When to try a failed batch again: exponential backoff with full jitter, or the server's Retry-After."""

from __future__ import annotations

import email.utils
import random
import re
import time
from typing import Callable, Optional


def is_retryable_status(status: int) -> bool:
    """Whether a status is worth another attempt: 408, 429 and every 5xx."""
    return status == 408 or status == 429 or 500 <= status <= 599


def backoff(failures: int, base: float, maximum: float, rand: Callable[[], float] = random.random) -> float:
    """Full jitter: a random delay in [0, min(maximum, base x 2^(failures-1))) seconds; `failures` counts from 1."""
    exponent = min(max(failures - 1, 0), 30)
    return float(rand() * min(maximum, base * 2**exponent))


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """`Retry-After` as seconds from now: delay-seconds or an HTTP-date; None when absent or unreadable."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if re.fullmatch(r"\d+", text):
        return float(int(text))
    if not re.search(r"[A-Za-z]", text):
        return None
    try:
        at = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if at is None:
        return None
    return max(0.0, at.timestamp() - (time.time() if now is None else now))


def retry_delay(failures: int, retry_after: Optional[float], base: float, maximum: float, retry_after_max: float,
                rand: Callable[[], float] = random.random) -> float:
    """The delay before the next attempt: the server's Retry-After (capped) when given, else the backoff."""
    if retry_after is not None:
        return min(retry_after, retry_after_max)
    return backoff(failures, base, maximum, rand)
