"""propose_crop: passport framing around the face, a centred crop without one."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from motodesk.imaging import Box, CropProposal, load_photo, photo_from_image, propose_crop
from motodesk.imaging.cropping import (
    EYE_LINE_FROM_TOP,
    EYE_LINE_IN_FACE_BOX,
    HEAD_FRACTION,
    HEAD_PER_FACE_BOX,
    MSG_MANY_FACES,
    MSG_NO_FACE,
)

# Hand-measured on astronaut.png (512 × 512): eye line, chin, top of the hair, cheeks.
EYES_Y, CHIN_Y, HAIR_TOP_Y = 101, 173, 15
CHEEKS_X = (185, 265)


def encode(im: Image.Image, fmt: str = "JPEG", **params: object) -> bytes:
    buffer = io.BytesIO()
    im.save(buffer, format=fmt, **params)
    return buffer.getvalue()


def assert_3x4_inside(box: Box, size: tuple[int, int]) -> None:
    assert box.width * 4 == box.height * 3
    assert box.left >= 0 and box.top >= 0 and box.right <= size[0] and box.bottom <= size[1]


def test_astronaut_is_framed_like_a_passport_photo(astronaut_bytes: bytes) -> None:
    photo = load_photo(astronaut_bytes)
    proposal = propose_crop(photo)
    box, face = proposal.box, proposal.face
    assert proposal.face_found and proposal.faces == 1 and proposal.message is None
    assert face is not None
    assert_3x4_inside(box, photo.size)
    # Geometry as documented: face box centred, eye line at 45 %, head 65 % of the height.
    assert abs(box.center[0] - face.center[0]) <= 1
    eye_y = face.top + EYE_LINE_IN_FACE_BOX * face.height
    assert (eye_y - box.top) / box.height == pytest.approx(EYE_LINE_FROM_TOP, abs=0.01)
    assert face.height / box.height == pytest.approx(HEAD_FRACTION / HEAD_PER_FACE_BOX, abs=0.01)
    # Against the real face: eyes 40-50 % from the top, chin, hair and cheeks inside.
    assert 0.40 <= (EYES_Y - box.top) / box.height <= 0.50
    assert box.top <= HAIR_TOP_Y and CHIN_Y <= box.bottom - 0.15 * box.height
    assert box.left < CHEEKS_X[0] and CHEEKS_X[1] < box.right
    # Head (chin to hair top) fills 60-85 % of the height: ICAO-like, her hair is full.
    assert 0.60 <= (CHIN_Y - HAIR_TOP_Y) / box.height <= 0.85


def test_12_megapixel_photo_is_framed_the_same_way(twelve_mp_jpeg: bytes) -> None:
    photo = load_photo(twelve_mp_jpeg)
    proposal = propose_crop(photo)
    assert proposal.face_found and proposal.faces == 1
    box = proposal.box
    assert_3x4_inside(box, photo.size)

    # Landmarks of astronaut.png mapped into the 2000 × 1500 working image.
    def x(v: float) -> float:
        return (v + 85) * 4000 / 683 * photo.scale

    def y(v: float) -> float:
        return v * 3000 / 512 * photo.scale

    assert 0.40 <= (y(EYES_Y) - box.top) / box.height <= 0.50
    assert box.top <= y(HAIR_TOP_Y) and y(CHIN_Y) < box.bottom
    assert box.left < x(CHEEKS_X[0]) and x(CHEEKS_X[1]) < box.right
    assert box.height >= 472  # enough pixels: no upscaling for the badge


@pytest.mark.parametrize("name", ["coffee.png", "rocket.jpg", "chelsea.png"])
def test_no_face_gives_the_centred_crop_and_asks_for_adjustment(sample_bytes, name: str) -> None:
    photo = load_photo(sample_bytes(name))
    proposal = propose_crop(photo)
    assert not proposal.face_found and proposal.faces == 0 and proposal.face is None
    assert proposal.message == MSG_NO_FACE
    w, h = photo.size
    box = proposal.box
    assert_3x4_inside(box, photo.size)
    assert box.height + 4 > h or box.width + 3 > w  # the largest that fits
    assert abs(box.center[0] - w / 2) <= 1 and abs(box.center[1] - h / 2) <= 2


def test_gradient_without_face() -> None:
    gradient = Image.linear_gradient("L").resize((800, 600)).convert("RGB")
    proposal = propose_crop(photo_from_image(gradient))
    assert not proposal.face_found
    assert proposal.box == Box(175, 0, 450, 600)


def test_two_faces_use_the_largest_and_say_so(astronaut: Image.Image) -> None:
    canvas = Image.new("RGB", (1100, 700), (200, 200, 205))
    canvas.paste(astronaut, (0, 100))
    canvas.paste(astronaut.resize((450, 450)), (600, 150))
    proposal = propose_crop(photo_from_image(canvas))
    assert proposal.faces == 2 and proposal.message == MSG_MANY_FACES
    assert proposal.face is not None and proposal.face.left < 512  # the bigger one, on the left
    assert proposal.box.contains(proposal.face)


def photo_of_size(width: int, height: int):
    return photo_from_image(Image.new("RGB", (width, height), (128, 128, 128)))


def test_face_near_the_edge_slides_the_crop_inside() -> None:
    photo = photo_of_size(1000, 800)
    proposal = propose_crop(photo, detector=lambda img: [Box(10, 300, 120, 120)])
    assert_3x4_inside(proposal.box, photo.size)
    assert proposal.box.left == 0
    assert proposal.box.contains(Box(10, 300, 120, 120))


def test_face_too_big_for_the_frame_shrinks_the_crop() -> None:
    # A webcam close-up: the ideal crop (2.31 × 400 px tall) cannot fit in 640 × 480.
    photo = photo_of_size(640, 480)
    proposal = propose_crop(photo, detector=lambda img: [Box(220, 60, 200, 400)])
    assert proposal.box == Box(140, 0, 360, 480)


def test_small_background_faces_are_ignored() -> None:
    photo = photo_of_size(1000, 800)
    proposal = propose_crop(photo, detector=lambda img: [Box(600, 100, 60, 60), Box(300, 200, 200, 200)])
    assert proposal.faces == 1 and proposal.message is None
    assert proposal.face == Box(300, 200, 200, 200)


def test_detector_order_does_not_matter() -> None:
    photo = photo_of_size(1000, 800)
    faces = [Box(100, 100, 150, 150), Box(600, 200, 160, 160)]
    assert propose_crop(photo, lambda img: faces).face == Box(600, 200, 160, 160)
    assert propose_crop(photo, lambda img: faces[::-1]).face == Box(600, 200, 160, 160)


def test_proposal_is_frozen_and_replaceable() -> None:
    import dataclasses

    proposal = CropProposal(box=Box(0, 0, 300, 400), face_found=False, faces=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        proposal.box = Box(3, 4, 3, 4)  # type: ignore[misc]
    adjusted = dataclasses.replace(proposal, box=Box(30, 40, 300, 400))
    assert adjusted.box == Box(30, 40, 300, 400) and adjusted.faces == 0
