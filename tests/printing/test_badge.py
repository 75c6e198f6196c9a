"""Badges read back as a user and a scanner would: page sizes, texts, photo, QR."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest
import segno
import zxingcpp
from tests_helpers import names_in  # type: ignore[import-not-found]

from motodesk.printing.badge import (
    A4_GRID,
    CARD_HEIGHT_MM,
    CARD_WIDTH_MM,
    CROP_MARK_LENGTH_MM,
    CROP_MARK_OFFSET_MM,
    BadgeData,
    card_origin_mm,
    render_badges,
)
from motodesk.printing.token import verify_token
from motodesk.rules.common import ServiceType

VERIFIER = "https://verificar.patrocinio.mg.gov.br/cracha/"


@pytest.fixture
def badge(make_token, photo) -> BadgeData:
    return BadgeData(
        permit_number="MT-0007/2026",
        service=ServiceType.MOTOTAXI,
        holder_name="João Conceição Araújo",
        cpf_masked="***.982.247-**",
        plate="ABC1D23",
        valid_until=date(2027, 3, 15),
        photo_jpeg=photo,
        token=make_token("MT-0007/2026", issue_no=2),
        issue_no=2,
        qr_base_url=VERIFIER,
    )


def squash(text: str) -> str:
    return " ".join(text.split())


def _qr_texts(image) -> list[str]:
    return [b.text for b in zxingcpp.read_barcodes(image) if b.format == zxingcpp.BarcodeFormat.QRCode]


def _dark(pixel: tuple[int, int, int]) -> bool:
    return sum(pixel) < 3 * 100


def test_card_layout_is_cr80_front_then_back(badge, pdf):
    other = replace(badge, permit_number="MB-0123/2026", service=ServiceType.MOTOBOY)
    reader = pdf.read(render_badges([badge, other]))
    assert len(reader.pages) == 4
    for page in reader.pages:
        width, height = pdf.size_mm(page)
        assert width == pytest.approx(85.60, abs=0.1)
        assert height == pytest.approx(53.98, abs=0.1)
    front, back = pdf.texts(render_badges([badge]))
    assert "João Conceição Araújo" in front and "aponte a câmera do celular" not in front
    assert "aponte a câmera do celular" in squash(back)


def test_front_shows_who_what_and_until_when(badge, pdf):
    front = pdf.texts(render_badges([badge]))[0]
    for expected in (
        "PREFEITURA MUNICIPAL DE PATROCÍNIO - MG",
        "SESTRAN – Secretaria Municipal de Segurança Pública, Trânsito e Transportes",
        "MOTOTÁXI",
        "João Conceição Araújo",
        "***.982.247-**",
        "MT-0007/2026",
        "ABC1D23",
        "Válido até 15/03/2027",
        "PERMISSÃO Nº",
    ):
        assert expected in front, expected
    assert "PREPOSTO" not in front


@pytest.mark.parametrize(
    ("service", "label", "instrument"),
    [
        (ServiceType.MOTOTAXI, "MOTOTÁXI", "PERMISSÃO Nº"),
        (ServiceType.MOTOBOY, "MOTOBOY", "AUTORIZAÇÃO Nº"),
        (ServiceType.MOTOFRETE, "MOTO-FRETE", "AUTORIZAÇÃO Nº"),
    ],
)
def test_service_band_has_the_colours_of_the_law(badge, service, label, instrument, pdf):
    """Art. 5º §1º IV and Art. 13 IX–X: mototáxi yellow topázio with black; the others black with yellow."""
    data = render_badges([replace(badge, service=service)])
    assert label in pdf.texts(data)[0] and instrument in pdf.texts(data)[0]
    image = pdf.render(data, 1, dpi=100)
    px = 100 / 25.4
    # A point of the band away from the centred text: the band's background colour.
    band = image.getpixel((int(4 * px), int((10.5 + 4) * px)))
    yellow = band[0] > 230 and 180 < band[1] < 220 and band[2] < 90
    black = max(band) < 30
    assert yellow if service is ServiceType.MOTOTAXI else black, band
    # Across the band, the text's colour is the other one.
    row = [image.getpixel((x, int((10.5 + 4) * px))) for x in range(image.width)]
    if service is ServiceType.MOTOTAXI:
        assert any(max(p) < 40 for p in row)
    else:
        assert any(p[0] > 230 and 180 < p[1] < 220 and p[2] < 90 for p in row)


def test_accented_names_print_exactly(badge, pdf):
    name = "ÇÃÉÍÓÚÂÊÔÀ çãéíóúâêôàü Ñ"
    front = pdf.texts(render_badges([replace(badge, holder_name=name)]))[0]
    assert name in front


def test_names_are_printed_literally(badge, pdf):
    name = "Maria D'Ávila-Souza <script>&amp;"
    front = pdf.texts(render_badges([replace(badge, holder_name=name)]))[0]
    assert name in squash(front)


def test_characters_outside_the_font_are_folded_not_boxes(badge, pdf):
    front = pdf.texts(render_badges([replace(badge, holder_name="Gőz Łukasz Nguyễn")]))[0]
    assert "Goz ?ukasz Nguyen" in front
    assert "\u25a0" not in front


def test_photo_is_embedded_as_the_original_jpeg(badge, photo, pdf):
    reader = pdf.read(render_badges([badge]))
    images = reader.pages[0].images
    assert len(images) == 1
    assert images[0].image.size == (354, 472)
    # The JPEG is embedded as is (DCTDecode), not decoded and re-compressed.
    (xobject,) = reader.pages[0]["/Resources"]["/XObject"].values()
    stream = xobject.get_object()
    assert stream["/Filter"] in ("/DCTDecode", ["/DCTDecode"])
    assert stream.get_data() == photo
    assert len(reader.pages[1].images) == 0


def test_photo_is_where_the_photo_frame_is(badge, pdf, make_photo):
    """The 3x4 photo sits left in the body; its colour shows there (not the placeholder grey)."""
    image = pdf.render(render_badges([replace(badge, photo_jpeg=make_photo(seed=3))]), 1, dpi=100)
    px = 100 / 25.4
    r, g, b = image.getpixel((int(5 * px), int(24 * px)))  # background of the generated photo
    assert b > 150 and abs(r - g) > 5


def test_without_photo_a_placeholder_frame(badge, pdf):
    data = render_badges([replace(badge, photo_jpeg=None)])
    assert "SEM FOTO" in pdf.texts(data)[0]
    assert len(pdf.read(data).pages[0].images) == 0


def test_unreadable_photo_is_an_error_naming_the_permit(badge):
    with pytest.raises(ValueError) as raised:
        render_badges([replace(badge, photo_jpeg=b"\xff\xd8 not really a jpeg")])
    names_in(raised.value, badge.permit_number)


def test_png_photo_is_accepted_too(badge, pdf):
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (300, 400), (10, 200, 10)).save(buffer, "PNG")
    reader = pdf.read(render_badges([replace(badge, photo_jpeg=buffer.getvalue())]))
    assert reader.pages[0].images[0].image.size == (300, 400)


def test_deputy_badge_is_marked_with_the_holder(badge, make_token, pdf):
    deputy = replace(
        badge,
        holder_name="Ana Preposta da Silva",
        is_deputy=True,
        holder_of_deputy="João Conceição Araújo",
        token=make_token(kind="preposto"),
    )
    front, back = pdf.texts(render_badges([deputy]))
    assert "PREPOSTO" in front and "PREPOSTO" in back
    assert "Titular: João Conceição Araújo" in front
    assert "Ana Preposta da Silva" in front


def test_back_has_verification_copy_number_and_law(badge, pdf):
    back = squash(pdf.texts(render_badges([badge]))[1])
    # The QR opens the public verifier page: the badge tells a passenger to use the phone's camera.
    assert "Confira este crachá: aponte a câmera do celular para o código" in back
    assert "2ª via" in back
    assert "PREPOSTO" not in back
    assert "Lei Municipal nº 4.883/2017" in back
    assert "MT-0007/2026" in back


def test_qr_on_the_back_scans_at_300_dpi_and_verifies(badge, keypair, pdf):
    data = render_badges([badge])
    image = pdf.render(data, 2, dpi=300)
    results = zxingcpp.read_barcodes(image)
    assert [r.text for r in results] == [VERIFIER + "#" + badge.token] == [badge.qr_text]
    assert results[0].ec_level == "M"
    claim = verify_token(results[0].text, keypair[1])
    assert claim.permit_number == "MT-0007/2026" and claim.issue_no == 2
    assert claim.holder_name == "João Conceição Araújo" and claim.plate == "ABC1D23"


def test_the_address_is_byte_mode_and_the_token_alphanumeric(badge):
    """Two segments keep the code two versions smaller than the whole address in byte mode."""
    two = segno.make_qr([VERIFIER + "#", badge.token], error="m", boost_error=False)
    one = segno.make_qr(badge.qr_text, error="m", boost_error=False, mode="byte")
    assert two.version < one.version
    assert two.version <= 10


def test_the_longest_claim_still_scans_at_300_dpi(badge, make_token, keypair, pdf):
    """An 80-character name (the claim's limit) and a long verifier address: a bigger code, still readable."""
    name = "Maria Aparecida Conceição dos Santos de Oliveira Rodrigues Gonçalves Albuquerque Xavier Filho"
    long = replace(badge, holder_name=name, token=make_token(name=name, kind="preposto"),
                   qr_base_url="https://www.patrocinio.mg.gov.br/secretarias/sestran/verificar-cracha/")
    image = pdf.render(render_badges([long]), 2, dpi=300)
    (result,) = zxingcpp.read_barcodes(image)
    assert result.text == long.qr_text
    claim = verify_token(result.text, keypair[1])
    assert claim.holder_name is not None and len(claim.holder_name) == 80 and claim.holder_name.endswith("…")
    side_px = result.position.top_right.x - result.position.top_left.x
    version = segno.make_qr([long.qr_text.split("#")[0] + "#", long.token], error="m", boost_error=False).version
    assert side_px / (17 + 4 * version) >= 5  # still 5 printer dots a module


def test_without_a_verifier_address_the_qr_is_the_bare_token(badge, pdf):
    bare = replace(badge, qr_base_url="")
    assert _qr_texts(pdf.render(render_badges([bare]), 2, dpi=300)) == [badge.token]


def test_qr_modules_are_large_enough_for_a_300_dpi_printer(badge, pdf):
    """At least 5 printer dots per module, so ink spread and wear do not merge them."""
    image = pdf.render(render_badges([badge]), 2, dpi=300)
    (result,) = zxingcpp.read_barcodes(image)
    position = result.position
    side_px = position.top_right.x - position.top_left.x
    version = segno.make_qr([VERIFIER + "#", badge.token], error="m", boost_error=False).version
    version_modules = 17 + 4 * version  # the address and a token of about 240 characters: version 10
    assert side_px / version_modules >= 5


def test_long_name_shrinks_and_stays_inside_the_card(badge, pdf):
    long_name = "Maria Aparecida Conceição dos Santos de Oliveira Rodrigues Gonçalves Albuquerque"
    data = render_badges([replace(badge, holder_name=long_name)])
    assert long_name in squash(pdf.texts(data)[0])
    # Nothing printed in the right margin of the body (where overflowing text would land).
    image = pdf.render(data, 1, dpi=150)
    px = 150 / 25.4
    top, bottom = int((10.5 + 8 + 0.5) * px), image.height - 1
    for x in range(image.width - int(1.2 * px), image.width):
        for y in range(top, bottom):
            assert not _dark(image.getpixel((x, y))), (x, y)


@pytest.mark.parametrize("length", [1, 20, 45, 90, 140])
def test_names_of_any_length_are_extracted_whole(badge, length, pdf):
    name = ("Ana Beatriz " * 20)[:length].strip() or "A"
    front = pdf.texts(render_badges([replace(badge, holder_name=name)]))[0]
    assert name in squash(front)


def test_a4_layout_eight_cards_a_sheet_backs_follow(badge, make_token, pdf):
    badges = [
        replace(badge, permit_number=f"MB-{i:04d}/2026", token=make_token(f"MB-{i:04d}/2026"))
        for i in range(1, 10)
    ]
    data = render_badges(badges, layout="a4")
    reader = pdf.read(data)
    assert A4_GRID == (2, 4)
    assert len(reader.pages) == 4  # 9 cards: fronts, backs, fronts, backs
    for page in reader.pages:
        width, height = pdf.size_mm(page)
        assert width == pytest.approx(210, abs=0.1) and height == pytest.approx(297, abs=0.1)
    texts = pdf.texts(data)
    assert "MB-0008/2026" in texts[0] and "MB-0009/2026" not in texts[0]
    assert "aponte a câmera do celular" in squash(texts[1])
    assert "MB-0009/2026" in texts[2] and texts[2].count("Válido até") == 1
    assert texts[3].count("Lei Municipal nº 4.883/2017") == 1


def test_a4_cards_fit_the_sheet_with_room_for_marks():
    for slot in range(8):
        for back in (False, True):
            x, y = card_origin_mm(slot, back=back)
            assert x - CROP_MARK_OFFSET_MM - CROP_MARK_LENGTH_MM >= 5
            assert y - CROP_MARK_OFFSET_MM - CROP_MARK_LENGTH_MM >= 5
            assert x + CARD_WIDTH_MM + CROP_MARK_OFFSET_MM + CROP_MARK_LENGTH_MM <= 205
            assert y + CARD_HEIGHT_MM + CROP_MARK_OFFSET_MM + CROP_MARK_LENGTH_MM <= 292


def test_a4_layout_draws_crop_marks_at_every_corner(badge, pdf):
    data = render_badges([badge] * 3, layout="a4")
    dpi = 150
    px = dpi / 25.4
    for page_number in (1, 2):
        image = pdf.render(data, page_number, dpi=dpi)
        for slot in range(3):
            x, y = card_origin_mm(slot, back=page_number == 2)
            for cx in (x, x + CARD_WIDTH_MM):
                for cy in (y, y + CARD_HEIGHT_MM):
                    # Vertical mark below/above the corner, horizontal mark left/right of it.
                    sy = -1 if cy == y else 1
                    sx = -1 if cx == x else 1
                    mid = CROP_MARK_OFFSET_MM + CROP_MARK_LENGTH_MM / 2
                    vertical = (cx * px, (297 - (cy + sy * mid)) * px)
                    horizontal = ((cx + sx * mid) * px, (297 - cy) * px)
                    for point in (vertical, horizontal):
                        assert _has_dark_near(image, point), (page_number, slot, point)
        # No mark where there is no card.
        x, y = card_origin_mm(5, back=page_number == 2)
        assert not _has_dark_near(image, (x * px, (297 - y + 3) * px))


def _has_dark_near(image, point, radius: int = 2) -> bool:
    px, py = int(round(point[0])), int(round(point[1]))
    return any(
        _dark(image.getpixel((x, y)))
        for x in range(px - radius, px + radius + 1)
        for y in range(py - radius, py + radius + 1)
    )


def test_a4_backs_are_mirrored_for_long_edge_duplex(badge, make_token, pdf):
    left = replace(badge, permit_number="MT-0001/2026", token=make_token("MT-0001/2026"))
    right = replace(badge, permit_number="MT-0002/2026", token=make_token("MT-0002/2026"))
    data = render_badges([left, right], layout="a4")
    backs = pdf.render(data, 2, dpi=200)
    found = {r.text: r.position.top_left.x for r in zxingcpp.read_barcodes(backs)}
    assert set(found) == {left.qr_text, right.qr_text}
    # The first card's front is on the left; its back must be on the right of the back sheet.
    assert found[left.qr_text] > backs.width / 2 > found[right.qr_text]


def test_a4_every_qr_scans(badge, make_token, pdf):
    badges = [
        replace(badge, permit_number=f"MF-{i:04d}/2026", token=make_token(f"MF-{i:04d}/2026"))
        for i in range(8)
    ]
    data = render_badges(badges, layout="a4")
    assert sorted(_qr_texts(pdf.render(data, 2, dpi=300))) == sorted(b.qr_text for b in badges)


def test_offset_moves_the_print_for_calibration(badge, pdf):
    dpi = 100
    px = dpi / 25.4
    plain = pdf.render(render_badges([badge]), 1, dpi=dpi)
    moved = pdf.render(render_badges([badge], offset_mm=(2, 1.5)), 1, dpi=dpi)
    # The navy header starts at the very top; moved 1.5 mm down, the top rows are blank.
    assert _dark(plain.getpixel((plain.width // 2, 1)))
    assert not _dark(moved.getpixel((moved.width // 2, 1)))
    assert _dark(moved.getpixel((moved.width // 2, int(2.5 * px))))
    # And 2 mm right: the left edge is blank.
    assert _dark(plain.getpixel((1, int(5 * px))))
    assert not _dark(moved.getpixel((1, int(5 * px))))
    assert _dark(moved.getpixel((int(3 * px), int(5 * px))))


def test_nothing_to_print_or_a_wrong_layout_is_an_error(badge):
    with pytest.raises(ValueError):
        render_badges([])
    with pytest.raises(ValueError):
        render_badges([badge], layout="letter")  # type: ignore[arg-type]


def test_a_generator_of_badges_is_enough(badge, pdf):
    data = render_badges(replace(badge, issue_no=n) for n in range(1, 4))
    assert len(pdf.read(data).pages) == 6
    assert "3ª via" in squash(pdf.texts(data)[5])
