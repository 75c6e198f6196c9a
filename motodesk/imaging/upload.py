"""One call for "import from file": load, propose, check and render."""

from __future__ import annotations

from dataclasses import dataclass

from .cropping import CropProposal, propose_crop
from .faces import FaceDetector, detect_faces
from .loading import LoadedPhoto, load_photo
from .quality import QualityWarning, check_quality
from .rendering import render_3x4


@dataclass(frozen=True)
class ProcessedPhoto:
    """The badge JPEG made with the proposed crop, and what the clerk should look at.

    ``width``/``height`` are the size of ``photo.image``, the pixels ``proposal.box``
    refers to (the rendered JPEG is always 354 × 472). Keep ``photo`` to let the clerk
    adjust the crop and render again.
    """

    jpeg: bytes
    proposal: CropProposal
    warnings: tuple[QualityWarning, ...]
    width: int
    height: int
    photo: LoadedPhoto


def process_upload(data: bytes, detector: FaceDetector = detect_faces) -> ProcessedPhoto:
    """Raise :class:`~motodesk.imaging.loading.PhotoError` for an unusable file."""
    photo = load_photo(data)
    proposal = propose_crop(photo, detector)
    warnings = tuple(check_quality(photo, proposal))
    width, height = photo.size
    return ProcessedPhoto(
        jpeg=render_3x4(photo, proposal.box),
        proposal=proposal,
        warnings=warnings,
        width=width,
        height=height,
        photo=photo,
    )
