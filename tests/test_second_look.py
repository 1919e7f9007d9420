"""The second look: two pictures that differ in a small part told apart there, whatever the light."""

from __future__ import annotations

import numpy as np

from companion.vision.second_look import differing, nearer, residual


def pictures() -> tuple[np.ndarray, np.ndarray]:
    """Two (3, 48, 48) pictures alike but for a small badge in one corner."""
    rng = np.random.default_rng(7)
    ground = rng.normal(120, 30, (3, 48, 48)).astype(np.float32)
    other = ground.copy()
    other[:, 4:10, 4:10] += 60  # the badge: 36 of 2304 pixels
    return ground, other


def test_the_pixels_where_two_pictures_differ_are_the_badge() -> None:
    plain, badged = pictures()
    where = differing(plain, badged, share=36 / (48 * 48))
    assert where[4:10, 4:10].all() and where.sum() == 36


def test_a_gain_and_offset_of_the_picture_itself_leaves_nothing() -> None:
    plain, _ = pictures()
    seen = 0.6 * plain + 25
    assert np.abs(residual(plain, seen)).max() < 1e-3
    assert np.abs(residual(plain, plain[::-1].copy())).mean() > 10  # another picture leaves much


def test_the_window_is_nearer_the_picture_it_shows_under_other_light() -> None:
    plain, badged = pictures()
    noise = np.random.default_rng(8).normal(0, 4, plain.shape).astype(np.float32)
    for shown, sign in ((plain, 1), (badged, -1)):
        seen = 0.7 * shown + 30 + noise  # darker, washed out, noisy
        verdict = nearer((plain, seen), (badged, seen))
        assert sign * verdict > 0.05, (sign, verdict)
        assert -1.0 <= verdict <= 1.0
    # a window that is neither: as near to both
    assert abs(nearer((plain, plain), (plain, plain))) < 1e-6
