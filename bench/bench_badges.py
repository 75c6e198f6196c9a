"""Benchmark: 500 badges with photos into one PDF, MotoDesk's render_badges vs plain reportlab.

Run: ``.venv/bin/python bench/bench_badges.py [count]``. Prints a table with the best
of 3 runs of each, in the same process: wall and CPU time, badges per second, PDF
size, and the ratio of our time to the plain script's (target ≤ 1.5).

The plain script draws the same elements (header and service bands, the same
strings, the same JPEG through ``ImageReader``, the same QR with reportlab's
``QrCodeWidget``) straight on a canvas, the way one would without our code. Every
badge has its own photo (as in reality): 354 × 472 JPEGs, all different.
"""

from __future__ import annotations

import gc
import io
import sys
import time
from collections.abc import Callable
from datetime import date

from PIL import Image, ImageDraw
from reportlab.graphics import renderPDF
from reportlab.graphics.barcode.qr import QrCodeWidget
from reportlab.graphics.shapes import Drawing
from reportlab.lib.colors import HexColor, white
from reportlab.lib.units import mm
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas

from motodesk.printing.badge import BadgeData, render_badges
from motodesk.printing.token import BadgeClaim, cpf_digest, generate_keypair, sign_claim, verify_token
from motodesk.rules.common import ServiceType

CARD_W, CARD_H = 85.60 * mm, 53.98 * mm
SERVICES = (ServiceType.MOTOTAXI, ServiceType.MOTOBOY, ServiceType.MOTOFRETE)


def make_photos(count: int) -> list[bytes]:
    photos = []
    for i in range(count):
        im = Image.new("RGB", (354, 472), (60 + i * 7 % 180, 90 + i * 13 % 150, 150 + i * 3 % 100))
        draw = ImageDraw.Draw(im)
        draw.ellipse((107 + i % 20, 90, 247 + i % 20, 260), fill=(224, 182 - i % 40, 150))
        draw.rectangle((70, 300, 284, 472), fill=(40 + i % 60, 60, 90))
        draw.text((10, 10), f"{i:04d}", fill=(255, 255, 255))
        buffer = io.BytesIO()
        im.save(buffer, "JPEG", quality=85, dpi=(300, 300))
        photos.append(buffer.getvalue())
    return photos


def make_badges(count: int) -> list[BadgeData]:
    private_pem, _ = generate_keypair()
    photos = make_photos(count)
    badges = []
    for i in range(count):
        service = SERVICES[i % 3]
        permit = f"{service.code}-{i + 1:04d}/2026"
        claim = BadgeClaim(
            permit, cpf_digest(f"{52998224725 + i:011d}"), date(2027, 3, 15), 1 + i % 3, "titular"
        )
        badges.append(
            BadgeData(
                permit_number=permit,
                service=service,
                holder_name=f"Titular Número {i:04d} da Conceição Araújo",
                cpf_masked="***.982.247-**",
                plate=f"ABC{i % 10}D{i % 100:02d}",
                valid_until=date(2027, 3, 15),
                photo_jpeg=photos[i],
                token=sign_claim(claim, private_pem),
                issue_no=1 + i % 3,
            )
        )
    return badges


def plain_reportlab(badges: list[BadgeData]) -> bytes:
    """The same badge drawn with reportlab alone, no MotoDesk code."""
    buffer = io.BytesIO()
    c = Canvas(buffer, pagesize=(CARD_W, CARD_H))
    navy, topaz, black = HexColor("#0B2E4F"), HexColor("#FFC82E"), HexColor("#000000")
    for b in badges:
        band_bg, band_fg = (topaz, black) if b.service is ServiceType.MOTOTAXI else (black, topaz)
        # front
        c.setFillColor(navy)
        c.rect(0, CARD_H - 10.5 * mm, CARD_W, 10.5 * mm, stroke=0, fill=1)
        c.setFillColor(white)
        c.setFont("Helvetica-Bold", 7.6)
        c.drawCentredString(
            CARD_W / 2, CARD_H - 4.6 * mm, "PREFEITURA MUNICIPAL DE " + b.municipality.upper()
        )
        c.setFont("Helvetica", 5.2)
        c.drawCentredString(CARD_W / 2, CARD_H - 8.3 * mm, b.secretariat)
        c.setFillColor(band_bg)
        c.rect(0, CARD_H - 18.5 * mm, CARD_W, 8 * mm, stroke=0, fill=1)
        c.setFillColor(band_fg)
        c.setFont("Helvetica-Bold", 14)
        c.drawCentredString(CARD_W / 2, CARD_H - 16.2 * mm, b.service.label.upper())
        c.drawImage(ImageReader(io.BytesIO(b.photo_jpeg)), 3 * mm, 2.4 * mm, 23 * mm, 30.67 * mm)
        c.setFillColor(black)
        c.setFont("Helvetica", 5)
        for label, y in (("NOME", 33), ("PERMISSÃO Nº", 25), ("PLACA", 25), ("CPF", 17)):
            c.drawString((29 if label != "PLACA" else 60) * mm, y * mm, label)
        c.setFont("Helvetica-Bold", 9)
        c.drawString(29 * mm, 29.5 * mm, b.holder_name)
        c.setFont("Helvetica-Bold", 8.5)
        c.drawString(29 * mm, 21.5 * mm, b.permit_number)
        c.drawString(60 * mm, 21.5 * mm, b.plate)
        c.setFont("Helvetica", 8)
        c.drawString(29 * mm, 13.5 * mm, b.cpf_masked)
        c.setFont("Helvetica-Bold", 8.5)
        c.drawString(29 * mm, 3 * mm, "Válido até " + b.valid_until.strftime("%d/%m/%Y"))
        c.showPage()
        # back
        c.setFillColor(band_bg)
        c.rect(0, CARD_H - 6.5 * mm, CARD_W, 6.5 * mm, stroke=0, fill=1)
        c.setFillColor(band_fg)
        c.setFont("Helvetica-Bold", 8)
        c.drawCentredString(CARD_W / 2, CARD_H - 4.4 * mm, b.service.label.upper() + "  ·  " + b.municipality)
        widget = QrCodeWidget(b.token, barLevel="M", barWidth=40 * mm, barHeight=40 * mm)
        drawing = Drawing(40 * mm, 40 * mm)
        drawing.add(widget)
        renderPDF.draw(drawing, c, 1.5 * mm, 3.7 * mm)
        c.setFillColor(black)
        c.setFont("Helvetica-Bold", 7.5)
        c.drawString(43 * mm, 42 * mm, "Verifique a autenticidade:")
        c.drawString(43 * mm, 38.8 * mm, "escaneie o código")
        c.setFont("Helvetica-Bold", 8.5)
        c.drawString(43 * mm, 31 * mm, b.permit_number)
        c.setFont("Helvetica-Bold", 9)
        c.drawString(43 * mm, 26 * mm, f"{b.issue_no}ª via")
        c.setFont("Helvetica", 5.8)
        c.drawString(43 * mm, 12 * mm, "Uso obrigatório em serviço")
        c.drawString(43 * mm, 9.3 * mm, "(Art. 5º, § 4º e Art. 13, VI)")
        c.setFont("Helvetica-Bold", 6.2)
        c.drawString(43 * mm, 6.3 * mm, "Lei Municipal nº 4.883/2017")
        c.showPage()
    c.save()
    return buffer.getvalue()


def best_of(runs: int, fn: Callable[[], bytes]) -> tuple[float, float, bytes]:
    """Best wall-clock and best CPU time of *runs* calls (CPU time is steadier on a busy machine)."""
    best_wall = best_cpu = float("inf")
    out = b""
    for _ in range(runs):
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn()
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    return best_wall, best_cpu, out


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    print(f"preparing {count} badges with distinct 354x472 JPEG photos and signed tokens...")
    badges = make_badges(count)
    public_pem = generate_keypair()[1]

    rows = []
    for name, fn in (
        ("render_badges (card)", lambda: render_badges(badges)),
        ("plain reportlab (card)", lambda: plain_reportlab(badges)),
        ("render_badges (a4)", lambda: render_badges(badges, layout="a4")),
    ):
        wall, cpu, pdf = best_of(3, fn)
        rows.append((name, wall, cpu, len(pdf)))

    print()
    print(f"{'case':<24}{'wall (s)':>10}{'CPU (s)':>10}{'badges/s (CPU)':>16}{'PDF (MB)':>10}")
    print("-" * 70)
    for name, wall, cpu, size in rows:
        print(f"{name:<24}{wall:>10.2f}{cpu:>10.2f}{count / cpu:>16.1f}{size / 1e6:>10.2f}")
    print("-" * 70)
    wall_ratio, cpu_ratio = rows[0][1] / rows[1][1], rows[0][2] / rows[1][2]
    verdict = "OK" if cpu_ratio <= 1.5 else "MISSED"
    print(
        f"ratio render_badges / plain reportlab: CPU {cpu_ratio:.2f}, wall {wall_ratio:.2f}  (target <= 1.5: {verdict})"
    )

    # Token costs, for the counter and the street.
    private_pem, public_pem = generate_keypair()
    claim = BadgeClaim("MT-0007/2026", cpf_digest("52998224725"), date(2027, 3, 15), 1, "titular")
    n = 2000
    start = time.perf_counter()
    tokens = [sign_claim(claim, private_pem) for _ in range(n)]
    sign_s = time.perf_counter() - start
    start = time.perf_counter()
    for token in tokens:
        verify_token(token, public_pem)
    verify_s = time.perf_counter() - start
    print(f"sign_claim: {n / sign_s:,.0f}/s   verify_token: {n / verify_s:,.0f}/s")


if __name__ == "__main__":
    main()
