"""Helpers for the ingest tests (a module of its own: conftest modules cannot be imported by name)."""

from __future__ import annotations


def make_pdf(lines: list[str], title: str | None = None) -> bytes:
    """A minimal valid one-page PDF with a Helvetica text layer (and an /Info title if given)."""
    text_ops = ["BT", "/F1 12 Tf", "72 720 Td", "14 TL"]
    for line in lines:
        escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        text_ops.append(f"({escaped}) Tj T*")
    text_ops.append("ET")
    stream = "\n".join(text_ops).encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 "
            b"5 0 R >> >> >>"
        ),
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    if title is not None:
        objects.append(b"<< /Title (" + title.encode("latin-1") + b") >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    info = f" /Info {len(objects)} 0 R" if title is not None else ""
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R{info} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def shared_page_pdf(drawing: bytes, pages: int = 1) -> bytes:
    """A PDF of `pages` pages that all draw one Flate-compressed content stream, `drawing` (text-drawing
    operators, see `text_drawing`): a few KB of file for megabytes of instructions to read, on every page."""
    kids = " ".join(f"{5 + i} 0 R" for i in range(pages))
    page = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
            b"/Contents 4 0 R >>")
    return _pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        _flate(b"", drawing),
        *[page] * pages,
    ])


def form_pdf(drawing: bytes, draws: int) -> bytes:
    """A one-page PDF that draws a form XObject holding `drawing` `draws` times: a small page of small
    instructions that reads as `draws` times the form's text."""
    return _pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [6 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        _flate(b"", b"q /Fm1 Do Q\n" * draws),
        _flate(b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> ", drawing),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> "
        b"/XObject << /Fm1 5 0 R >> >> /Contents 4 0 R >>",
    ])


def text_drawing(size: int) -> bytes:
    """About `size` bytes of operators that draw a line of text each."""
    line = b"(Lorem ipsum dolor sit amet, consectetur adipiscing.) Tj T*\n"
    return b"BT /F1 12 Tf 14 TL 72 720 Td\n" + line * (size // len(line)) + b"ET\n"


def _flate(entries: bytes, data: bytes) -> bytes:
    import zlib

    packed = zlib.compress(data, 9)
    return b"<< " + entries + b"/Length %d /Filter /FlateDecode >>\nstream\n" % len(packed) + packed + b"\nendstream"


def _pdf(objects: list[bytes]) -> bytes:
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
