"""detect_faces: the Haar cascade finds the one real face and nothing in face-less photos."""

from __future__ import annotations

import time

import pytest
from PIL import Image, ImageOps
from tests_helpers import wait_seconds  # type: ignore[import-not-found]

from motodesk.imaging import Box, detect_faces, load_photo
from motodesk.imaging.faces import merge_overlapping

# Where the face is in astronaut.png (hand-checked): eyes ~ y 101, mouth ~ y 145.
FACE_REGION = Box(170, 55, 110, 120)


def test_finds_the_astronauts_face(astronaut: Image.Image) -> None:
    faces = detect_faces(astronaut)
    assert len(faces) == 1
    face = faces[0]
    overlap = face.intersection(FACE_REGION) / face.area
    assert overlap > 0.8
    assert 80 <= face.height <= 110 and face.width == face.height


def test_finds_the_mirrored_face(astronaut: Image.Image) -> None:
    faces = detect_faces(ImageOps.mirror(astronaut))
    assert len(faces) == 1
    assert abs(faces[0].center[0] - (512 - FACE_REGION.center[0])) < 10


@pytest.mark.parametrize("size", [300, 700, 1500, 3000])
def test_face_box_scales_with_the_image(astronaut: Image.Image, size: int) -> None:
    scaled = astronaut.resize((size, size), Image.Resampling.LANCZOS)
    faces = detect_faces(scaled)
    assert len(faces) == 1
    expected = FACE_REGION.scaled(size / 512)
    assert faces[0].intersection(expected) / faces[0].area > 0.75


@pytest.mark.parametrize("name", ["coffee.png", "rocket.jpg", "chelsea.png"])
def test_no_faces_in_face_less_photos(sample_bytes, name: str) -> None:
    # chelsea.png is a cat looking at the camera: an animal face is not a person's.
    assert detect_faces(load_photo(sample_bytes(name)).image) == []


def test_two_faces_side_by_side(astronaut: Image.Image) -> None:
    face = astronaut.crop((120, 0, 330, 260))
    canvas = Image.new("RGB", (420, 260), (210, 210, 215))
    canvas.paste(face, (0, 0))
    canvas.paste(face, (210, 0))
    faces = detect_faces(canvas)
    assert len(faces) == 2
    assert sorted(f.left < 210 for f in faces) == [False, True]


def test_detection_on_a_12_mp_working_image_is_fast(twelve_mp_jpeg: bytes) -> None:
    image = load_photo(twelve_mp_jpeg).image
    detect_faces(image)  # warm-up: cascade loading
    start = time.perf_counter()
    faces = detect_faces(image)
    elapsed = time.perf_counter() - start
    assert len(faces) == 1
    assert elapsed < wait_seconds(0.5), f"{elapsed:.3f} s"


def test_merge_joins_nested_and_overlapping_boxes() -> None:
    merged = merge_overlapping([Box(100, 100, 100, 100), Box(110, 105, 90, 90), Box(400, 100, 100, 100)])
    assert len(merged) == 2
    assert Box(105, 102, 95, 95) in merged
    assert Box(400, 100, 100, 100) in merged


def test_merge_keeps_separate_boxes() -> None:
    boxes = [Box(0, 0, 50, 50), Box(60, 0, 50, 50)]
    assert sorted(merge_overlapping(boxes), key=lambda b: b.left) == boxes
    assert merge_overlapping([]) == []
