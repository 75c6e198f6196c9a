"""The applicant's 3x4 photo (Lei nº 4.883/2017, Art. 5º, IX): pure image work, no Qt, no database.

Flow::

    data (bytes) ──load_photo──► LoadedPhoto ──propose_crop──► CropProposal ──render_3x4──► JPEG bytes
                                      │                            │  ▲
                                      │               move_crop / zoom_crop (GUI)
                                      └────────── check_quality ───┴──► [QualityWarning]

``process_upload`` does the whole chain for "import from file".

Coordinates. Every :class:`Box` is ``(left, top, width, height)`` in pixels of
``LoadedPhoto.image``: the photo turned upright by its EXIF orientation and, when the file
is very large, reduced (never below 1500 px on the short side; ``LoadedPhoto.scale`` says
by how much). A crop is always ``3k × 4k`` whole pixels, exactly 3:4, inside the image.

Crop geometry around a face. OpenCV's Haar box (height ``h``) runs from the forehead to
just under the mouth. From it::

          ┌───────────────┐  ─┬─ crop top
          │               │   │ 45 % of the crop height
          │    crown      │   │          head (chin to crown) = 1.5 h
          │   ┌─────┐     │ ─ ┼ ─ eye line = Haar top + 0.36 h
          │   │ o o │     │   │          crop height = 1.5 h / 0.65 ≈ 2.31 h
          │   │  ‿  │     │   │          (head fills ~65 % of the height, ICAO-like)
          │   └─────┘ chin│   │          crop width = 3/4 of the height
          │  shoulders    │   │
          └───────────────┘  ─┴─ crop bottom

The face is centred horizontally. If that crop does not fit, it is shrunk (still 3:4)
to the largest that fits and slid inside the image. Without a face the proposal is the
largest centred 3:4 crop and asks the clerk to adjust it.

The output is 354 × 472 px (3 × 4 cm at 300 dpi), baseline sRGB JPEG, quality 90, with the
sRGB ICC profile, dpi = (300, 300) and no EXIF.
"""

from .cropping import CropProposal, crop_for_face, propose_crop
from .faces import FaceDetector, detect_faces
from .geometry import Box, centred_crop, clamp_crop, move_crop, zoom_crop
from .loading import LoadedPhoto, PhotoError, load_photo, photo_from_image
from .quality import QualityCode, QualityMeasures, QualityWarning, check_quality, measure_quality
from .rendering import OUTPUT_DPI, OUTPUT_SIZE, preview, render_3x4
from .upload import ProcessedPhoto, process_upload

__all__ = [
    "OUTPUT_DPI",
    "OUTPUT_SIZE",
    "Box",
    "CropProposal",
    "FaceDetector",
    "LoadedPhoto",
    "PhotoError",
    "ProcessedPhoto",
    "QualityCode",
    "QualityMeasures",
    "QualityWarning",
    "centred_crop",
    "check_quality",
    "clamp_crop",
    "crop_for_face",
    "detect_faces",
    "load_photo",
    "measure_quality",
    "move_crop",
    "photo_from_image",
    "preview",
    "process_upload",
    "propose_crop",
    "render_3x4",
    "zoom_crop",
]
