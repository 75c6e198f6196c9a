"""The proposed 3x4 crop: passport proportions around the detected face.

Geometry (all lengths in units of the Haar face box height ``h``; see the package
docstring for the picture):

* the eye line sits ``EYE_LINE_IN_FACE_BOX`` = 0.36 h below the top of the Haar box
  (measured 0.35 on the NASA astronaut photograph; 0.35-0.40 is usual for OpenCV's
  frontal cascades);
* the head, chin to crown, is ``HEAD_PER_FACE_BOX`` = 1.5 h (the Haar box runs from the
  forehead to just under the mouth; chin at ~1.13 h, crown ~0.37 h above the box);
* the head fills ``HEAD_FRACTION`` = 65 % of the crop height (ICAO-like, 60-70 %), so the
  crop is 1.5 / 0.65 ≈ 2.31 h tall and 3/4 of that wide;
* the eye line is ``EYE_LINE_FROM_TOP`` = 45 % of the crop height from its top, and the
  face is centred horizontally.

The ideal crop is then limited to the image: shrunk (keeping 3:4) if it is larger than
the image can give, and slid inside otherwise, so the face may end up off-centre near an
edge but is never cut by our own arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass

from .faces import FaceDetector, detect_faces
from .geometry import Box, centred_crop, crop_at
from .loading import LoadedPhoto

EYE_LINE_IN_FACE_BOX = 0.36
HEAD_PER_FACE_BOX = 1.5
HEAD_FRACTION = 0.65
EYE_LINE_FROM_TOP = 0.45
# Faces less than half as tall as the largest are ignored: at a counter the applicant is
# the closest face, and the cascade's rare false positives on clutter are small.
SECONDARY_FACE_MIN_RATIO = 0.5

MSG_NO_FACE = "Nenhum rosto encontrado: o recorte foi centralizado; ajuste manualmente."
MSG_MANY_FACES = "Mais de um rosto encontrado: o recorte usou o maior; confira o enquadramento."


@dataclass(frozen=True)
class CropProposal:
    """A 3:4 crop of a :class:`LoadedPhoto`.

    ``box`` is ``(left, top, width, height)`` in ``photo.image`` pixels with
    ``width * 4 == height * 3``. ``face_boxes`` are the detected faces at least half as
    tall as the largest, largest first (``faces`` counts them); the first placed the crop. ``message`` (pt_BR) tells the clerk why the proposal needs a
    look, or is ``None``. A GUI adjustment is ``dataclasses.replace(proposal, box=new_box)``.
    """

    box: Box
    face_found: bool
    faces: int
    message: str | None = None
    face_boxes: tuple[Box, ...] = ()

    @property
    def face(self) -> Box | None:
        """The face the crop was built around, if any."""
        return self.face_boxes[0] if self.face_boxes else None


def crop_for_face(face: Box, image_size: tuple[int, int]) -> Box:
    """The passport-proportioned 3:4 crop for one face box (see the module docstring)."""
    crop_height = HEAD_PER_FACE_BOX / HEAD_FRACTION * face.height
    eye_y = face.top + EYE_LINE_IN_FACE_BOX * face.height
    top = eye_y - EYE_LINE_FROM_TOP * crop_height
    center_x = face.left + face.width / 2
    return crop_at(center_x, top, crop_height / 4, image_size)


def propose_crop(photo: LoadedPhoto, detector: FaceDetector = detect_faces) -> CropProposal:
    """Detect faces and propose the crop around the largest one, or a centred crop."""
    found = sorted(detector(photo.image), key=lambda b: b.area, reverse=True)
    faces = tuple(f for f in found if f.height >= SECONDARY_FACE_MIN_RATIO * found[0].height)
    if not faces:
        return CropProposal(
            box=centred_crop(photo.size),
            face_found=False,
            faces=0,
            message=MSG_NO_FACE,
        )
    return CropProposal(
        box=crop_for_face(faces[0], photo.size),
        face_found=True,
        faces=len(faces),
        message=MSG_MANY_FACES if len(faces) > 1 else None,
        face_boxes=faces,
    )
