"""Boxes and the 3:4 crop arithmetic shared by the proposal and the manual adjustment.

A crop is always ``3k × 4k`` whole pixels (``k`` is the crop's *unit*), so its aspect is
exactly 3:4 with integer coordinates, and it always lies inside the image. Every function
here returns a new :class:`Box`; none of them reads pixels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Smallest crop the manual adjustment allows: 60 × 80 px (unit 20). Anything that small
# is far below the 354 × 472 output and is flagged by the quality checks anyway; the
# limit only keeps the GUI from collapsing the box to nothing.
MIN_CROP_UNIT = 20


@dataclass(frozen=True)
class Box:
    """An axis-aligned rectangle in image pixels: ``(left, top, width, height)``."""

    left: int
    top: int
    width: int
    height: int

    @property
    def right(self) -> int:
        return self.left + self.width

    @property
    def bottom(self) -> int:
        return self.top + self.height

    @property
    def center(self) -> tuple[float, float]:
        return (self.left + self.width / 2, self.top + self.height / 2)

    @property
    def area(self) -> int:
        return self.width * self.height

    def as_tuple(self) -> tuple[int, int, int, int]:
        """``(left, top, width, height)``."""
        return (self.left, self.top, self.width, self.height)

    def as_ltrb(self) -> tuple[int, int, int, int]:
        """``(left, top, right, bottom)``, the form Pillow's ``crop`` and ``resize(box=)`` take."""
        return (self.left, self.top, self.right, self.bottom)

    def scaled(self, factor: float) -> Box:
        """The same rectangle in an image scaled by ``factor`` (rounded to whole pixels)."""
        return Box(
            round(self.left * factor),
            round(self.top * factor),
            max(1, round(self.width * factor)),
            max(1, round(self.height * factor)),
        )

    def intersection(self, other: Box) -> int:
        """Area shared with ``other``."""
        w = min(self.right, other.right) - max(self.left, other.left)
        h = min(self.bottom, other.bottom) - max(self.top, other.top)
        return max(0, w) * max(0, h)

    def contains(self, other: Box) -> bool:
        return (
            self.left <= other.left
            and self.top <= other.top
            and self.right >= other.right
            and self.bottom >= other.bottom
        )


def max_crop_unit(image_size: tuple[int, int]) -> int:
    """Unit of the largest 3:4 crop that fits in an image of ``(width, height)``."""
    width, height = image_size
    return max(1, min(width // 3, height // 4))


def _unit_limits(image_size: tuple[int, int]) -> tuple[int, int]:
    largest = max_crop_unit(image_size)
    return min(MIN_CROP_UNIT, largest), largest


def crop_at(center_x: float, top: float, unit: float, image_size: tuple[int, int]) -> Box:
    """A ``3u × 4u`` crop centred horizontally on ``center_x`` with its top edge at ``top``.

    The unit is rounded and limited to what fits (shrinking keeps 3:4), then the box is
    slid, not shrunk further, until it lies inside the image.
    """
    low, high = _unit_limits(image_size)
    k = min(high, max(low, round(unit)))
    width, height = 3 * k, 4 * k
    left = round(center_x - width / 2)
    return _slide_inside(left, round(top), width, height, image_size)


def centred_crop(image_size: tuple[int, int]) -> Box:
    """The largest 3:4 crop, centred in the image."""
    k = max_crop_unit(image_size)
    w, h = 3 * k, 4 * k
    return _slide_inside((image_size[0] - w) // 2, (image_size[1] - h) // 2, w, h, image_size)


def clamp_crop(box: Box, image_size: tuple[int, int]) -> Box:
    """Turn any rectangle (e.g. one dragged in the GUI) into a valid 3:4 crop inside the image.

    The result keeps the rectangle's centre and height (width follows from 3:4) as far as
    the image allows.
    """
    cx, cy = box.center
    low, high = _unit_limits(image_size)
    k = min(high, max(low, round(box.height / 4)))
    return _slide_inside(round(cx - 1.5 * k), round(cy - 2 * k), 3 * k, 4 * k, image_size)


def move_crop(box: Box, dx: int, dy: int, image_size: tuple[int, int]) -> Box:
    """Shift a crop by ``(dx, dy)`` pixels, stopping at the image edges; size is kept."""
    valid = clamp_crop(box, image_size)
    return _slide_inside(valid.left + dx, valid.top + dy, valid.width, valid.height, image_size)


def zoom_crop(
    box: Box,
    factor: float,
    image_size: tuple[int, int],
    center: tuple[float, float] | None = None,
) -> Box:
    """Zoom the crop like a camera: ``factor > 1`` zooms *in* (smaller box, bigger face).

    ``center`` is the image point that should stay put on screen (a mouse-wheel position);
    by default the box centre. The box stays 3:4, at least ``60 × 80`` px (or the whole
    image, if that is smaller), at most the largest crop that fits, and inside the image.
    """
    if not math.isfinite(factor) or factor <= 0:
        raise ValueError(f"zoom factor must be a positive number, got {factor!r}")
    valid = clamp_crop(box, image_size)
    cx, cy = center if center is not None else valid.center
    # Where the anchor sits inside the box, as a fraction; keep it there.
    fx = min(1.0, max(0.0, (cx - valid.left) / valid.width))
    fy = min(1.0, max(0.0, (cy - valid.top) / valid.height))
    low, high = _unit_limits(image_size)
    k = min(high, max(low, round(valid.width / 3 / factor)))
    width, height = 3 * k, 4 * k
    return _slide_inside(round(cx - fx * width), round(cy - fy * height), width, height, image_size)


def _slide_inside(left: int, top: int, width: int, height: int, image_size: tuple[int, int]) -> Box:
    img_w, img_h = image_size
    left = min(max(0, left), max(0, img_w - width))
    top = min(max(0, top), max(0, img_h - height))
    return Box(left, top, width, height)
