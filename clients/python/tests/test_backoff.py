"""Pauses between reads and the reading of Retry-After, without a server."""

from __future__ import annotations

import unittest
from datetime import datetime, timezone

from countersign import Backoff, parse_retry_after

NOW = datetime(2026, 12, 2, 10, 0, 0, tzinfo=timezone.utc)


class BackoffTest(unittest.TestCase):
    def test_steps_double_up_to_the_cap(self) -> None:
        top = Backoff(0.5, 4.0, rand=lambda: 1.0)
        self.assertEqual([top.next() for _ in range(6)], [0.5, 1.0, 2.0, 4.0, 4.0, 4.0])

    def test_jitter_keeps_each_pause_in_the_upper_half_of_its_step(self) -> None:
        bottom = Backoff(0.5, 4.0, rand=lambda: 0.0)
        self.assertEqual([bottom.next() for _ in range(5)], [0.25, 0.5, 1.0, 2.0, 2.0])
        middle = Backoff(1.0, 8.0, rand=lambda: 0.5)
        self.assertEqual(middle.next(), 0.75)

    def test_refuses_pauses_that_would_spin(self) -> None:
        with self.assertRaises(ValueError):
            Backoff(0.0, 1.0)
        with self.assertRaises(ValueError):
            Backoff(2.0, 1.0)


class RetryAfterTest(unittest.TestCase):
    def test_delay_seconds(self) -> None:
        self.assertEqual(parse_retry_after("7"), 7.0)
        self.assertEqual(parse_retry_after(" 0 "), 0.0)
        self.assertEqual(parse_retry_after("120"), 120.0)

    def test_an_http_date_is_the_time_until_it(self) -> None:
        self.assertEqual(parse_retry_after("Wed, 02 Dec 2026 10:00:30 GMT", now=NOW), 30.0)

    def test_a_date_in_the_past_is_no_wait(self) -> None:
        self.assertEqual(parse_retry_after("Wed, 02 Dec 2026 09:59:00 GMT", now=NOW), 0.0)

    def test_missing_or_unreadable_is_none(self) -> None:
        for value in (None, "", "soon", "-5", "1.5e3", "Wed, 99 Foo 2026"):
            with self.subTest(value=value):
                self.assertIsNone(parse_retry_after(value, now=NOW))


if __name__ == "__main__":
    unittest.main()
