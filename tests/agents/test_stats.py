"""agents/stats.py's intervals at their edges: a mean of win shares is Wilson's for 0/1
values and bounded by [0, 1] otherwise (all of it for one deal)."""

from __future__ import annotations

import pytest

from commoncause.agents.stats import mean_interval, wilson_interval


@pytest.mark.parametrize("values", [[1] * 5 + [0] * 5, [1] * 10, [0] * 3, [1]])
def test_a_mean_of_wins_is_wilsons(values):
    figure = mean_interval(values)
    assert figure["method"] == "wilson"
    assert figure["ci95"] == pytest.approx(wilson_interval(sum(values), len(values)))


def test_a_mean_of_shares_is_the_normal_interval_clipped_to_0_1():
    figure = mean_interval([0.5, 1.0])  # not clipped to the values seen, [0.5, 1.0]
    assert figure["ci95"] == [pytest.approx(0.26, abs=0.01), 1.0]
    assert mean_interval([0.5])["ci95"] == [0.0, 1.0]
    with pytest.raises(ValueError, match=r"shares in \[0, 1\]"):
        mean_interval([0.5, 2.0])
