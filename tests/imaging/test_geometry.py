"""The 3:4 crop arithmetic: always exact 3:4, always inside the image, never below the minimum."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from motodesk.imaging import Box, centred_crop, clamp_crop, move_crop, zoom_crop
from motodesk.imaging.geometry import MIN_CROP_UNIT, crop_at, max_crop_unit


def assert_valid_crop(box: Box, image_size: tuple[int, int]) -> None:
    assert box.width * 4 == box.height * 3, box
    assert box.width > 0
    assert 0 <= box.left and box.right <= image_size[0], (box, image_size)
    assert 0 <= box.top and box.bottom <= image_size[1], (box, image_size)


sizes = st.tuples(st.integers(32, 5000), st.integers(32, 5000))


@st.composite
def image_and_box(draw: st.DrawFn) -> tuple[tuple[int, int], Box]:
    size = draw(sizes)
    left = draw(st.integers(-500, size[0] + 500))
    top = draw(st.integers(-500, size[1] + 500))
    width = draw(st.integers(1, 6000))
    height = draw(st.integers(1, 6000))
    return size, Box(left, top, width, height)


def test_box_basics() -> None:
    box = Box(10, 20, 30, 40)
    assert box.right == 40 and box.bottom == 60
    assert box.center == (25.0, 40.0)
    assert box.area == 1200
    assert box.as_tuple() == (10, 20, 30, 40)
    assert box.as_ltrb() == (10, 20, 40, 60)
    assert box.scaled(2) == Box(20, 40, 60, 80)
    assert box.intersection(Box(25, 30, 100, 100)) == 15 * 30
    assert box.intersection(Box(100, 100, 5, 5)) == 0
    assert box.contains(Box(11, 21, 5, 5)) and not box.contains(Box(0, 0, 5, 5))


def test_box_is_frozen() -> None:
    with pytest.raises(AttributeError):
        Box(0, 0, 3, 4).left = 5  # type: ignore[misc]


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        ((600, 400), Box(150, 0, 300, 400)),
        ((300, 800), Box(0, 200, 300, 400)),
        ((354, 472), Box(0, 0, 354, 472)),
        ((4000, 3000), Box(875, 0, 2250, 3000)),
    ],
)
def test_centred_crop_is_the_largest_centred(size: tuple[int, int], expected: Box) -> None:
    assert centred_crop(size) == expected


@given(sizes)
def test_centred_crop_is_valid_and_maximal(size: tuple[int, int]) -> None:
    box = centred_crop(size)
    assert_valid_crop(box, size)
    assert box.width + 3 > size[0] or box.height + 4 > size[1]


@given(image_and_box())
def test_clamp_always_gives_a_valid_crop(case: tuple[tuple[int, int], Box]) -> None:
    size, box = case
    out = clamp_crop(box, size)
    assert_valid_crop(out, size)
    assert out.width >= 3 * min(MIN_CROP_UNIT, max_crop_unit(size))


def test_clamp_keeps_a_valid_crop_unchanged() -> None:
    box = Box(100, 50, 300, 400)
    assert clamp_crop(box, (1000, 1000)) == box


@given(image_and_box(), st.integers(-3000, 3000), st.integers(-3000, 3000))
def test_move_stays_inside_and_keeps_size(case: tuple[tuple[int, int], Box], dx: int, dy: int) -> None:
    size, box = case
    valid = clamp_crop(box, size)
    moved = move_crop(valid, dx, dy, size)
    assert_valid_crop(moved, size)
    assert (moved.width, moved.height) == (valid.width, valid.height)


def test_move_shifts_and_stops_at_edges() -> None:
    box = Box(100, 100, 300, 400)
    assert move_crop(box, 10, -20, (1000, 800)) == Box(110, 80, 300, 400)
    assert move_crop(box, -500, 0, (1000, 800)) == Box(0, 100, 300, 400)
    assert move_crop(box, 5000, 5000, (1000, 800)) == Box(700, 400, 300, 400)


@given(image_and_box(), st.floats(0.05, 20))
def test_zoom_stays_valid(case: tuple[tuple[int, int], Box], factor: float) -> None:
    size, box = case
    out = zoom_crop(box, factor, size)
    assert_valid_crop(out, size)
    assert out.width >= 3 * min(MIN_CROP_UNIT, max_crop_unit(size))


def test_zoom_in_and_out_around_the_centre() -> None:
    box = Box(300, 200, 300, 400)
    zoomed_in = zoom_crop(box, 2.0, (1200, 1000))
    assert zoomed_in == Box(375, 300, 150, 200)
    assert zoomed_in.center == box.center
    assert zoom_crop(zoomed_in, 0.5, (1200, 1000)) == box


def test_zoom_keeps_the_anchor_point_in_place() -> None:
    box = Box(300, 200, 300, 400)
    anchor = (330.0, 240.0)  # 10 % from the box's left and top edges
    out = zoom_crop(box, 2.0, (1200, 1000), center=anchor)
    assert out == Box(315, 220, 150, 200)
    assert (anchor[0] - out.left) / out.width == pytest.approx(0.1, abs=0.01)
    assert (anchor[1] - out.top) / out.height == pytest.approx(0.1, abs=0.01)


def test_zoom_limits() -> None:
    size = (1200, 1000)
    assert zoom_crop(Box(300, 200, 300, 400), 1000, size) == Box(420, 360, 60, 80)  # minimum 60x80
    biggest = zoom_crop(Box(300, 200, 300, 400), 0.01, size)
    assert (biggest.width, biggest.height) == (750, 1000)  # largest 3:4 that fits
    assert_valid_crop(biggest, size)


@pytest.mark.parametrize("factor", [0.0, -1.0, float("nan"), float("inf")])
def test_zoom_refuses_nonsense_factors(factor: float) -> None:
    with pytest.raises(ValueError):
        zoom_crop(Box(0, 0, 300, 400), factor, (1000, 1000))


def test_crop_at_shrinks_to_fit_and_keeps_3_by_4() -> None:
    # Asked for 900 × 1200 in a 640 × 480 frame: the largest that fits is 360 × 480.
    box = crop_at(320, -100, 300, (640, 480))
    assert box == Box(140, 0, 360, 480)
