"""The one guarded reader of every spreadsheet MotoDesk reads (issue 31).

The register import (:mod:`motodesk.exports.importer`), the tender candidates' import
(:func:`motodesk.services.tenders.read_candidates_xlsx`) and any future reader open a workbook
with :func:`open_workbook` and nothing else. Before openpyxl parses one byte the file passes
:func:`check_spreadsheet`:

1. **What the file is** (:func:`_sniff`): empty, too big, an old .xls, a password-protected
   workbook (an OLE2 file holding ``EncryptedPackage``), a PDF, text (a CSV renamed), an .ods or an
   .xlsb each get their own pt_BR sentence.
2. **What the zip declares**, member by member: the compression method, the inflated size against the
   cap of its kind (:data:`MAX_SHEET_INFLATED`, :data:`MAX_SHARED_STRINGS_BYTES`,
   :data:`MAX_STYLES_BYTES`, :data:`MAX_PART_INFLATED`, :data:`MAX_MEDIA_INFLATED`), the compression
   ratio of **every** member whatever its size (:data:`MAX_COMPRESSION_RATIO`), and the total
   (:data:`MAX_TOTAL_INFLATED`).
3. **What the zip really holds**: every member is inflated once in bounded chunks, counting the bytes
   that come out (a zip may lie in its headers) and the ratio of bytes out to bytes in; the shared
   strings (``<si>`` elements) are counted while streaming, in every XML part (a part may be named
   anything in the content types), never trusting the ``count`` attributes, against
   :data:`MAX_SHARED_STRINGS`; a part that holds shared strings may not exceed
   :data:`MAX_SHARED_STRINGS_BYTES` whatever its name; an XML part with a DTD (``<!DOCTYPE``,
   ``<!ENTITY``: entity expansion) is refused.

Why these caps: openpyxl streams worksheets but loads ``styles.xml`` and the shared strings whole.
Measured on this machine: a 4 MB ``styles.xml`` of conditional formats costs 10 s and +145 MB, 1
million shared strings +45 MB with the lean reader below (openpyxl's own keeps every parsed element:
4 million cost 709 MB). A real register of 50,000 lines is a sheet of ~54 MB that deflates ~9 times,
a ``styles.xml`` of a few KB (Excel: tens of KB), at most ~10 distinct texts a line (500,000 shared
strings, ~20 MB) — each cap is at least twice that. The guard judges any file up to the size limit
in well under 5 s (a 50,000-line register: 0.4 s of CPU; 4 million shared strings: 0.3 s); a file
that meets every cap at once (990,000 shared strings and a 1 MB ``styles.xml`` of formats) is then
read in 191 MB of RSS and ~6 s of CPU, most of it openpyxl parsing the styles and the strings.

Only visible sheets are read (:func:`visible_sheets`): a hidden or "very hidden" sheet never is.
"""

from __future__ import annotations

import io
import os
import re
import struct
import warnings
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from openpyxl import load_workbook
from openpyxl.reader.excel import ExcelReader
from openpyxl.worksheet._read_only import ReadOnlyWorksheet
from openpyxl.xml.functions import iterparse  # defusedxml's when it is installed, as openpyxl's own

from motodesk.rules.text import format_int

__all__ = [
    "MAX_COMPRESSION_RATIO",
    "MAX_FILE_BYTES",
    "MAX_MEDIA_INFLATED",
    "MAX_PART_INFLATED",
    "MAX_SHARED_STRINGS",
    "MAX_SHARED_STRINGS_BYTES",
    "MAX_SHEET_INFLATED",
    "MAX_STYLES_BYTES",
    "MAX_TOTAL_INFLATED",
    "SpreadsheetRefused",
    "check_spreadsheet",
    "open_workbook",
    "visible_sheets",
]

MIB = 1024 * 1024

# --- the caps, all in one place -------------------------------------------------------------------
#: The file itself (the register import; the tender import passes its own, smaller, limit).
MAX_FILE_BYTES = 100 * MIB
#: All members inflated together (a full register inflates to ~60 MB).
MAX_TOTAL_INFLATED = 256 * MIB
#: One worksheet inflated (streamed by openpyxl; a 50,000-line register's sheet is ~54 MB).
MAX_SHEET_INFLATED = 128 * MIB
#: The shared strings part inflated (loaded whole; a full register's is ~20 MB).
MAX_SHARED_STRINGS_BYTES = 40 * MIB
#: Shared strings counted (``<si>``) in the whole file (a full register has ~500,000).
MAX_SHARED_STRINGS = 1_000_000
#: ``xl/styles.xml`` inflated (parsed whole, ~15x its size in memory; MotoDesk's are 3 KB, Excel's
#: tens of KB, one with 15,000 distinct cell formats ~1 MB).
MAX_STYLES_BYTES = 1 * MIB
#: Any other XML part openpyxl may parse whole (workbook, relationships, content types, properties,
#: theme; drawings and comments are never read but held to it too).
MAX_PART_INFLATED = 4 * MIB
#: A part that is not XML (an image, printer settings): never parsed, only counted.
MAX_MEDIA_INFLATED = 32 * MIB
#: Inflated / compressed, for every member whatever its size. Real sheets deflate 5 to 30 times (a
#: 1,000,000-row column format: 28); a bomb of spaces 1,000 times.
MAX_COMPRESSION_RATIO = 100
_INFLATE_CHUNK = 1024 * 1024

# --- messages ---------------------------------------------------------------------------------------
MSG_NOT_FOUND = "Arquivo não encontrado: {name}."
MSG_UNREADABLE = "Não foi possível ler o arquivo {name}: {reason}."
MSG_EMPTY = "O arquivo está vazio."
MSG_TOO_BIG = "O arquivo tem {size} MB; o limite é {limit} MB. Divida a planilha em arquivos menores."
MSG_PASSWORD = "A planilha está protegida por senha; salve-a sem senha e tente novamente."
MSG_XLS = (
    "O arquivo está no formato antigo do Excel (.xls). Abra-o no Excel ou no LibreOffice e use "
    '"Salvar como" no formato .xlsx.'
)
MSG_OLE_OTHER = "O arquivo é um documento do Office antigo, não uma planilha .xlsx."
MSG_PDF = "O arquivo é um PDF, não uma planilha. Use a planilha .xlsx do cadastro (ou o modelo do MotoDesk)."
MSG_TEXT = (
    "O arquivo é texto (CSV ou TXT), não uma planilha .xlsx. Abra-o no Excel ou no LibreOffice e use "
    '"Salvar como" no formato .xlsx.'
)
MSG_NOT_XLSX = "O arquivo não é uma planilha do Excel (.xlsx)."
MSG_ODS = (
    "O arquivo é uma planilha do LibreOffice (.ods). Abra-o no LibreOffice e use "
    '"Salvar como" no formato .xlsx.'
)
MSG_XLSB = 'O formato .xlsb não é aceito. Abra-o no Excel e use "Salvar como" no formato .xlsx.'
MSG_CORRUPT = "O arquivo parece corrompido e não pôde ser lido como planilha .xlsx."
MSG_MEMBER_TOO_BIG = (
    'O arquivo "{name}" foi recusado antes de ser aberto: a parte "{member}" se descompacta em {size} MB, '
    "acima do limite de {limit} MB {what}. Uma planilha do cadastro não chega a esse tamanho; "
    "salve-a de novo no Excel ou divida-a em arquivos menores."
)
MSG_TOTAL_TOO_BIG = (
    'O arquivo "{name}" foi recusado antes de ser aberto: descompactado, ele teria {size} MB, '
    "acima do limite de {limit} MB. Divida a planilha em arquivos menores."
)
MSG_RATIO = (
    'O arquivo "{name}" foi recusado antes de ser aberto: a parte "{member}" se descompacta {ratio} vezes '
    "o seu tamanho (o limite é {limit} vezes), o que uma planilha de verdade não faz. "
    "Salve-a de novo no Excel e tente novamente."
)
MSG_LYING_SIZE = (
    'O arquivo "{name}" foi recusado: a parte "{member}" se descompacta em mais bytes do que o arquivo '
    "declara ({declared} bytes). O arquivo foi adulterado ou está corrompido; salve a planilha de novo no Excel."
)
MSG_ZIP_METHOD = (
    'O arquivo "{name}" usa uma compressão ou criptografia que uma planilha .xlsx não usa '
    '(parte "{member}"); salve-a de novo no Excel.'
)
MSG_TOO_MANY_STRINGS = (
    'O arquivo "{name}" foi recusado antes de ser aberto: ele tem mais de {limit} textos diferentes '
    "(a tabela de textos compartilhados), mais do que cabe numa planilha do cadastro. "
    "Divida a planilha em arquivos menores."
)
MSG_DTD = (
    'O arquivo "{name}" foi recusado antes de ser aberto: a parte "{member}" declara entidades XML '
    "(<!DOCTYPE>), o que uma planilha do Excel não faz. Salve-a de novo no Excel."
)
_WHAT = {
    "sheet": "por aba",
    "strings": "para a tabela de textos compartilhados",
    "styles": "para os estilos (formatação); copie os dados para uma planilha nova, só com os valores",
    "part": "por parte",
    "media": "por parte",
}
_CAPS = {"sheet": MAX_SHEET_INFLATED, "strings": MAX_SHARED_STRINGS_BYTES, "styles": MAX_STYLES_BYTES,
         "part": MAX_PART_INFLATED, "media": MAX_MEDIA_INFLATED}


class SpreadsheetRefused(Exception):
    """The file was refused by the guard (or openpyxl could not open it): ``message`` is pt_BR."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _mb(size: int) -> str:
    return format_int(size // MIB) if size >= MIB else f"{size / MIB:.1f}".replace(".", ",")


# --- 1. what the file is ------------------------------------------------------------------------------

_OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
_ENCRYPTED_STREAMS = ("EncryptedPackage".encode("utf-16-le"), "EncryptionInfo".encode("utf-16-le"))


def _sniff(fh: IO[bytes], size: int, max_bytes: int) -> str | None:
    """A file-level error message, or None when the file looks like a zip (xlsx) container."""
    if size == 0:
        return MSG_EMPTY
    if size > max_bytes:
        return MSG_TOO_BIG.format(size=max(1, size // MIB), limit=max_bytes // MIB)
    fh.seek(0)
    head = fh.read(8)
    if head == _OLE2_MAGIC:
        # An encrypted OOXML workbook is an OLE2 compound file whose directory
        # names the EncryptionInfo / EncryptedPackage streams (MS-OFFCRYPTO 2.3.4).
        fh.seek(0)
        data = fh.read()
        if any(name in data for name in _ENCRYPTED_STREAMS):
            return MSG_PASSWORD
        if "Workbook".encode("utf-16-le") in data or "Book".encode("utf-16-le") in data:
            return MSG_XLS
        return MSG_OLE_OTHER
    if head.startswith(b"%PDF"):
        return MSG_PDF
    if head.startswith(_ZIP_MAGICS):
        return None
    fh.seek(0)
    if _looks_like_text(fh.read(4096)):
        return MSG_TEXT
    return MSG_NOT_XLSX


def _looks_like_text(sample: bytes) -> bool:
    if b"\x00" in sample:
        return sample.startswith((b"\xff\xfe", b"\xfe\xff"))  # UTF-16 text
    for encoding in ("utf-8", "cp1252"):
        try:
            text = sample.decode(encoding)
        except UnicodeDecodeError:
            continue
        printable = sum(ch.isprintable() or ch in "\r\n\t" for ch in text)
        return printable >= 0.95 * max(1, len(text))
    return False


# --- 2. what the zip declares -------------------------------------------------------------------------


def _kind(member: str) -> str:
    """Which cap a member answers to, by its name (openpyxl finds styles by this very name)."""
    lower = member.lower()
    base = lower.rsplit("/", 1)[-1]
    xml = base.endswith((".xml", ".rels", ".vml"))
    if lower.startswith("xl/worksheets/") and "/_rels/" not in lower and base.endswith(".xml"):
        return "sheet"
    if base == "sharedstrings.xml":
        return "strings"
    if lower == "xl/styles.xml":
        return "styles"
    return "part" if xml or "." not in base else "media"


def _is_xml(member: str) -> bool:
    return _kind(member) != "media"


def _check_sizes(name: str, members: Sequence[zipfile.ZipInfo]) -> str | None:
    """Refuse by what the zip's directory declares, before anything is inflated."""
    total = 0
    for info in members:
        if info.flag_bits & 0x1 or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            return MSG_ZIP_METHOD.format(name=name, member=info.filename)
        problem = _size_problem(name, info.filename, info.file_size) or _ratio_problem(
            name, info.filename, info.file_size, info.compress_size)
        if problem:
            return problem
        total += info.file_size
    if total > MAX_TOTAL_INFLATED:
        return MSG_TOTAL_TOO_BIG.format(name=name, size=_mb(total), limit=_mb(MAX_TOTAL_INFLATED))
    return None


def _size_problem(name: str, member: str, size: int) -> str | None:
    kind = _kind(member)
    if size > _CAPS[kind]:
        return MSG_MEMBER_TOO_BIG.format(name=name, member=member, size=_mb(size), limit=_mb(_CAPS[kind]),
                                         what=_WHAT[kind])
    return None


def _ratio_problem(name: str, member: str, inflated: int, compressed: int) -> str | None:
    if inflated > MAX_COMPRESSION_RATIO * max(1, compressed):
        return MSG_RATIO.format(name=name, member=member, ratio=format_int(inflated // max(1, compressed)),
                                limit=MAX_COMPRESSION_RATIO)
    return None


# --- 3. what the zip really holds -------------------------------------------------------------------

# "<si>", "<si ...>", "<si/>" and a prefixed "<x:si>": the start of a shared string item.
_SI_PLAIN = (b"<si>", b"<si ", b"<si/", b"<si\t", b"<si\n", b"<si\r")
_SI_PREFIXED = re.compile(rb"<[A-Za-z_][\w.\-]{0,40}:si[\s/>]")
_DTD = (b"<!DOCTYPE", b"<!ENTITY")
_CARRY = 64  # longer than any pattern above


class _Counter:
    """Counts shared string items and spots a DTD in a stream of chunks, across chunk edges."""

    def __init__(self) -> None:
        self.strings = 0
        self.dtd = False
        self._carry = b""

    def _count(self, buf: bytes, end: int) -> None:
        """Patterns starting before ``end`` in ``buf`` (each start is counted exactly once).

        A pattern starts with "<" and holds no other, so occurrences never overlap: ``bytes.count``
        up to ``end`` plus the pattern's length counts exactly those starting before ``end``.
        """
        for pattern in _SI_PLAIN:
            self.strings += buf.count(pattern, 0, end + len(pattern) - 1)
        if b":si" in buf:
            self.strings += len(_SI_PREFIXED.findall(buf)) - len(_SI_PREFIXED.findall(buf, end))
        if not self.dtd and any(0 <= buf.find(p) < end for p in _DTD):
            self.dtd = True

    def feed(self, chunk: bytes) -> None:
        buf = self._carry + chunk
        if len(buf) <= _CARRY:
            self._carry = buf
            return
        end = len(buf) - _CARRY
        self._count(buf, end)
        self._carry = buf[end:]

    def close(self) -> None:
        if self._carry:
            self._count(self._carry, len(self._carry))
            self._carry = b""


def _check_inflation(name: str, fh: IO[bytes], zf: zipfile.ZipFile, file_size: int) -> str | None:
    """Inflate every member once, in bounded chunks, counting the bytes (and shared strings) that come out.

    A zip may lie in its headers (a member declared 1 KB that inflates to 1 GB). Each member's raw
    deflate stream is read from its local header and inflated at most ``_INFLATE_CHUNK`` bytes at a
    time; the file is refused as soon as a member gives more than it declared (which
    :func:`_check_sizes` already held under the caps), more than the caps, or more shared strings.
    """
    total = 0
    strings = 0
    for info in zf.infolist():
        fh.seek(info.header_offset)
        local = fh.read(30)
        if len(local) < 30 or local[:4] != b"PK\x03\x04":
            return MSG_CORRUPT
        name_len, extra_len = struct.unpack("<HH", local[26:30])
        start = info.header_offset + 30 + name_len + extra_len
        fh.seek(start)
        left = max(0, min(info.compress_size, file_size - start))
        kind = _kind(info.filename)
        limit = min(info.file_size, _CAPS[kind])
        produced = consumed = 0
        counter = _Counter() if kind != "media" else None
        inflater = zlib.decompressobj(-15) if info.compress_type == zipfile.ZIP_DEFLATED else None
        lying = False
        while left > 0 and not lying:
            raw = fh.read(min(left, _INFLATE_CHUNK))
            if not raw:
                break
            left -= len(raw)
            consumed += len(raw)
            if inflater is None:
                produced += len(raw)
                if counter is not None:
                    counter.feed(raw)
                lying = produced > limit
                continue
            pending = raw
            while pending:
                out = inflater.decompress(pending, _INFLATE_CHUNK)
                produced += len(out)
                if produced > limit:
                    lying = True
                    break
                if counter is not None:
                    counter.feed(out)
                pending = inflater.unconsumed_tail
                if inflater.eof:
                    break
            if inflater.eof:
                consumed -= len(inflater.unused_data)
                break
        if lying:
            return MSG_LYING_SIZE.format(name=name, member=info.filename, declared=format_int(info.file_size))
        problem = _ratio_problem(name, info.filename, produced, consumed)
        if problem:
            return problem
        if counter is not None:
            counter.close()
            if counter.dtd:
                return MSG_DTD.format(name=name, member=info.filename)
            if counter.strings and produced > MAX_SHARED_STRINGS_BYTES:
                return MSG_MEMBER_TOO_BIG.format(name=name, member=info.filename, size=_mb(produced),
                                                 limit=_mb(MAX_SHARED_STRINGS_BYTES), what=_WHAT["strings"])
            strings += counter.strings
            if strings > MAX_SHARED_STRINGS:
                return MSG_TOO_MANY_STRINGS.format(name=name, limit=format_int(MAX_SHARED_STRINGS))
        total += produced
        if total > MAX_TOTAL_INFLATED:
            return MSG_TOTAL_TOO_BIG.format(name=name, size=_mb(total), limit=_mb(MAX_TOTAL_INFLATED))
    return None


def _check_zip(name: str, fh: IO[bytes], file_size: int) -> str | None:
    try:
        fh.seek(0)
        with zipfile.ZipFile(fh) as zf:
            names = set(zf.namelist())
            if "mimetype" in names:
                info = zf.getinfo("mimetype")
                if info.file_size > 1024:
                    return MSG_NOT_XLSX
                mimetype = zf.read("mimetype")[:100]
                if b"opendocument.spreadsheet" in mimetype:
                    return MSG_ODS
                return MSG_NOT_XLSX
            if "xl/workbook.bin" in names:
                return MSG_XLSB
            if "[Content_Types].xml" not in names or not any(n.startswith("xl/") for n in names):
                return MSG_NOT_XLSX
            problem = _check_sizes(name, zf.infolist())
            if problem:
                return problem
            return _check_inflation(name, fh, zf, file_size)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, zlib.error, struct.error):
        return MSG_CORRUPT


# --- the guard and the reader ---------------------------------------------------------------------


Source = str | os.PathLike[str] | bytes


def _opened(source: Source) -> tuple[IO[bytes], str, int]:
    """(binary file, shown name, size); raises SpreadsheetRefused for a missing file."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        return io.BytesIO(data), "planilha", len(data)
    path = Path(source)
    try:
        if not path.is_file():
            raise SpreadsheetRefused(MSG_NOT_FOUND.format(name=path.name))
        fh = path.open("rb")
    except FileNotFoundError:
        raise SpreadsheetRefused(MSG_NOT_FOUND.format(name=path.name)) from None
    except OSError as exc:
        raise SpreadsheetRefused(MSG_UNREADABLE.format(name=path.name, reason=exc.strerror or exc)) from None
    return fh, path.name, os.fstat(fh.fileno()).st_size


def _judge(fh: IO[bytes], name: str, size: int, max_bytes: int) -> str | None:
    return _sniff(fh, size, max_bytes) or _check_zip(name, fh, size)


def check_spreadsheet(source: Source, *, max_bytes: int = MAX_FILE_BYTES, name: str | None = None) -> str | None:
    """The guard alone: why the file is refused (pt_BR), or None when openpyxl may open it."""
    try:
        fh, shown, size = _opened(source)
    except SpreadsheetRefused as refused:
        return refused.message
    with fh:
        return _judge(fh, name or shown, size, max_bytes)


@contextmanager
def open_workbook(source: Source, *, max_bytes: int = MAX_FILE_BYTES, name: str | None = None) -> Iterator[Any]:
    """The guarded workbook: read-only, streaming, formulas kept as formulas, external links not loaded.

    Raises :class:`SpreadsheetRefused` with the guard's pt_BR reason, or :data:`MSG_CORRUPT` when
    openpyxl cannot open what passed the guard. Read only :func:`visible_sheets`.
    """
    fh, shown, size = _opened(source)
    with fh:
        problem = _judge(fh, name or shown, size, max_bytes)
        if problem:
            raise SpreadsheetRefused(problem)
        fh.seek(0)
        try:
            with warnings.catch_warnings():
                # Excel's extensions (data validation lists, slicers...) make openpyxl warn.
                warnings.simplefilter("ignore")
                wb = _open_streaming(fh)
        except Exception as exc:  # noqa: BLE001 - a bad file must become a message, never a crash
            raise SpreadsheetRefused(MSG_CORRUPT) from exc
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield wb
        finally:
            wb.close()


def visible_sheets(wb: Any) -> list[Any]:
    """The worksheets a person sees: hidden and "very hidden" sheets are never read."""
    return [ws for ws in wb.worksheets if getattr(ws, "sheet_state", "visible") == "visible"]


class _UnsizedSheet(ReadOnlyWorksheet):
    """A read-only sheet that does not size itself on opening.

    openpyxl parses the whole sheet at load time when the file has no ``<dimension>`` element
    (write-only openpyxl files, some exporters): 13 s for a million formatted rows. The readers
    ignore stored dimensions anyway and stop at the first long run of empty lines.
    """

    def _get_size(self) -> None:
        return None


_MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_SI, _T, _R = f"{{{_MAIN_NS}}}si", f"{{{_MAIN_NS}}}t", f"{{{_MAIN_NS}}}r"


def _read_shared_strings(src: IO[bytes]) -> list[str]:
    """openpyxl's ``read_string_table`` without keeping every parsed element (the root is cleared).

    Same text: the plain ``<t>`` and the runs' ``<t>`` (phonetic runs left out), ``_x005F_`` undone.
    """
    strings: list[str] = []
    root = None
    for event, node in iterparse(src, events=("start", "end")):
        if root is None:
            root = node
            continue
        if event == "end" and node.tag == _SI:
            parts = []
            for child in node:
                if child.tag == _T:
                    parts.append(child.text or "")
                elif child.tag == _R:
                    parts.extend(grand.text or "" for grand in child if grand.tag == _T)
            strings.append("".join(parts).replace("x005F_", ""))
            root.clear()
    return strings


class _StreamingReader(ExcelReader):
    """openpyxl's reader in read-only mode: sheets as :class:`_UnsizedSheet`, lean shared strings."""

    def read_strings(self) -> None:
        from openpyxl.xml.constants import SHARED_STRINGS

        ct = self.package.find(SHARED_STRINGS)
        if ct is not None:
            with self.archive.open(ct.PartName[1:]) as src:
                self.shared_strings = _read_shared_strings(src)

    def read_worksheets(self) -> None:
        for sheet, rel in self.parser.find_sheets():
            if rel.target not in self.valid_files or "chartsheet" in rel.Type:
                continue
            ws = _UnsizedSheet(self.wb, sheet.name, rel.target, self.shared_strings)
            ws.sheet_state = sheet.state
            self.wb._sheets.append(ws)


def _open_streaming(fh: Any) -> Any:
    """A read-only workbook with formulas kept as formulas (``data_only=False``)."""
    try:
        reader = _StreamingReader(fh, read_only=True, keep_vba=False, data_only=False, keep_links=False)
    except TypeError:  # pragma: no cover - a future openpyxl with another signature
        fh.seek(0)
        return load_workbook(fh, read_only=True, data_only=False, keep_links=False)
    reader.read()
    return reader.wb
