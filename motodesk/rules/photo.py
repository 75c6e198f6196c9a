"""The 3x4 photo of Art. 5º, IX ("duas fotos 3 x 4 coloridas, recentes"), judged when it is stored.

Whatever its source — the camera, a file, the import of the old register — a photo is kept only
when :func:`check_photo` finds nothing against it.  What it finds is of two kinds:

* **refusals**, which nothing overrides: the proportion is not 3:4; a photo made by the photo
  screen (camera or file) is not the finished badge photo of 354 × 472 pixels (3 × 4 cm at
  300 dpi); it is not a colour image; it is older than :attr:`LawSettings.photo_max_age_days`
  on the day it is stored (an imported photo carries the date it was taken);
* **warnings** from the quality checks of :mod:`motodesk.imaging.quality` (no face, more than
  one face, too dark, too bright, blurred, low resolution, black and white): the photo screen
  shows them and lets the clerk "use it anyway"; the service stores such a photo only with that
  override and a written reason, which the audit trail keeps with the photo.

The measures come in as plain data (:class:`PhotoFacts`); the service takes them from the
image with :mod:`motodesk.imaging`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from motodesk.rules.common import Status, Verdict, not_met
from motodesk.rules.settings import LawSettings
from motodesk.rules.text import format_date, plural

ARTICLE = "Art. 5º, IX"
#: 3 × 4 cm at 300 dpi: the finished badge photo the photo screen renders.
BADGE_PHOTO_SIZE = (354, 472)


@dataclass(frozen=True)
class PhotoFacts:
    """What the service measured on the photo it is asked to store."""

    width: int
    height: int
    colour: bool  # an RGB image (not greyscale, not CMYK)
    mode: str  # the image mode as decoded ("RGB", "L", "CMYK"…), for the sentence
    taken_on: date  # the day it was taken (today for the camera and a file)
    rendered: bool  # made by the photo screen (camera or file): must be the finished badge photo
    quality_warnings: tuple[str, ...] = ()  # pt_BR sentences of the quality checks


@dataclass(frozen=True)
class PhotoJudgement:
    """Refusals block the photo; warnings block it unless overridden with a reason."""

    refusals: tuple[Verdict, ...]
    warnings: tuple[Verdict, ...]

    @property
    def acceptable(self) -> bool:
        """No refusal and no warning: stored without an override."""
        return not self.refusals and not self.warnings


def _refuse(rule_id: str, sentence: str) -> Verdict:
    return not_met(rule_id, ARTICLE, f"{sentence}.")


def check_photo(facts: PhotoFacts, on: date, settings: LawSettings) -> PhotoJudgement:
    """Judge a photo about to be stored on ``on`` (see the module docstring)."""
    refusals: list[Verdict] = []
    width, height = facts.width, facts.height
    if facts.rendered and (width, height) != BADGE_PHOTO_SIZE:
        refusals.append(_refuse(
            "art5_ix_photo_size",
            f"a foto 3x4 deve ter {BADGE_PHOTO_SIZE[0]}×{BADGE_PHOTO_SIZE[1]} pixels (3×4 cm a 300 dpi); esta tem "
            f"{width}×{height}. Use o recorte da tela de foto"))
    elif width * 4 != height * 3:
        refusals.append(_refuse(
            "art5_ix_photo_proportion",
            f"a foto deve ter a proporção 3x4 (largura × 4 = altura × 3); esta tem {width}×{height} pixels. "
            "Use o recorte da tela de foto"))
    if not facts.colour:
        shade = "tons de cinza" if facts.mode in ("L", "1", "LA", "I", "I;16") else facts.mode
        refusals.append(_refuse(
            "art5_ix_photo_colour",
            f"a foto 3x4 deve ser colorida (RGB); esta está em {shade}. Use o recorte da tela de foto"))
    if facts.taken_on > on:
        refusals.append(_refuse(
            "art5_ix_photo_recent",
            f"dado impossível — a foto ({format_date(facts.taken_on)}) é posterior a hoje ({format_date(on)})"))
    elif (on - facts.taken_on).days > settings.photo_max_age_days:
        age = (on - facts.taken_on).days
        refusals.append(_refuse(
            "art5_ix_photo_recent",
            f"a foto é de {format_date(facts.taken_on)}, há {plural(age, 'dia', 'dias')}; a foto deve ser recente "
            f"(no máximo {plural(settings.photo_max_age_days, 'dia', 'dias')})"))
    warnings = tuple(
        Verdict("art5_ix_photo_quality", ARTICLE, Status.NOT_MET, f"{ARTICLE}: {sentence.rstrip('.')}.")
        for sentence in facts.quality_warnings
    )
    return PhotoJudgement(tuple(refusals), warnings)
