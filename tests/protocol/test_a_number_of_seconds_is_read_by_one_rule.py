"""Every setting or wait given in seconds is read by one rule (``protocol.seconds.seconds_of``): any real
number, a bool or a string none, and one past a float's range infinite with its sign (review r21 N1: the
executors' ``poll_interval`` let ``float()``'s OverflowError escape for ``Fraction(10**400)``, where
``Retry-After`` caught it)."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from nanohubmcp.protocol.seconds import seconds_of


@pytest.mark.parametrize(("value", "seconds"), [
    (2, 2.0), (2.5, 2.5), (Fraction(3, 2), 1.5), (np.int64(5), 5.0), (np.float32(0.5), 0.5), (-1, -1.0),
    (10**400, math.inf), (Fraction(10**400), math.inf), (-(10**400), -math.inf), (-Fraction(10**400), -math.inf),
    (math.inf, math.inf),
])
def test_a_real_number_is_its_float(value: object, seconds: float) -> None:
    assert seconds_of(value) == seconds


@pytest.mark.parametrize("value", [True, False, np.bool_(True), "5", None, Decimal(5), 1j, [1]])
def test_anything_else_is_none(value: object) -> None:
    assert seconds_of(value) is None


def test_nan_stays_nan() -> None:
    assert math.isnan(seconds_of(math.nan))  # type: ignore[arg-type]
