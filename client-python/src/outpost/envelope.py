"""The envelope of a native binary document (docs/wire-format.md): the 16-byte header, the body (the content, raw,
zlib or zstd) and the 16-byte trailer. Decompression is bounded: a small body may stand for gigabytes, so no more
than ``max_content`` bytes are ever produced. What the content holds is read by ``wire``."""

from __future__ import annotations

import struct
import zlib

import zstandard

from .errors import CorruptAnswer

HEADER_SIZE = 16
TRAILER_SIZE = 16
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def check_header(header: bytes) -> tuple[int, int]:
    """(codec, body_len) of a 16-byte header."""
    magic, version, codec, flags, body_len = struct.unpack(">4sBBHQ", header)
    if magic != b"OUTP":
        raise CorruptAnswer("header magic is not OUTP")
    if version != 1:
        raise CorruptAnswer(f"format version {version}, this client reads version 1")
    if codec > 2:
        raise CorruptAnswer(f"unknown codec {codec}")
    if flags != 0:
        raise CorruptAnswer(f"flags {flags:#x}, expected 0")
    if body_len == 0 or body_len > 1 << 62:
        raise CorruptAnswer(f"body_len {body_len} is impossible")
    return codec, body_len


def parse_trailer(trailer: bytes) -> tuple[int, int]:
    """(row_count, crc32) of a 16-byte trailer."""
    rows, crc, magic = struct.unpack(">QI4s", trailer)
    if magic != b"PTUO":
        raise CorruptAnswer("trailer magic is not PTUO")
    return rows, crc


def decompress(codec: int, body: bytes | memoryview, max_content: int = 1 << 62) -> bytes:
    """The content of a body: exactly one zlib stream or zstd frame ending at its last byte, at most
    ``max_content`` bytes (a small body may decompress to gigabytes)."""
    if codec == 0:
        return bytes(body)
    if codec == 1:
        d = zlib.decompressobj()
        try:
            out = d.decompress(body, max_content + 1)
        except zlib.error as e:
            raise CorruptAnswer(f"zlib: {e}") from None
        if len(out) > max_content:
            raise _too_large(max_content)
        if not d.eof:
            raise CorruptAnswer(f"deflate stream does not end at body_len {len(body)}")
        if d.unused_data:
            raise CorruptAnswer(f"deflate stream ends {len(d.unused_data)} bytes before body_len {len(body)}")
        return out
    if bytes(body[:4]) != ZSTD_MAGIC:  # a skippable frame would otherwise be accepted
        raise CorruptAnswer("the body does not start with a zstd frame")
    try:
        declared = zstandard.frame_content_size(bytes(body[:18]))  # -1 when the frame does not say
    except zstandard.ZstdError:
        declared = -1  # the decompressor says what is wrong
    if declared > max_content:
        raise _too_large(max_content)
    z = zstandard.ZstdDecompressor().decompressobj()
    # fed in slices small enough that none can expand past twice the limit, whatever size the frame declares
    parts: list[bytes] = []
    produced = fed = 0
    try:
        while fed < len(body) and not z.eof:
            step = zstd_slice(max_content - produced)
            part = z.decompress(body[fed:fed + step])
            fed += min(step, len(body) - fed)
            produced += len(part)
            if produced > max_content:
                raise _too_large(max_content)
            parts.append(part)
    except zstandard.ZstdError as e:
        raise CorruptAnswer(f"zstd: {e}") from None
    out = parts[0] if len(parts) == 1 else b"".join(parts)
    del parts
    if not z.eof:
        raise CorruptAnswer(f"zstd frame does not end at body_len {len(body)} (truncated frame)")
    extra = len(z.unused_data) + len(body) - fed
    if extra:
        raise CorruptAnswer(f"{extra} bytes after the zstd frame")
    return out


ZLIB_SLICE = 4096  # per zlib call, where its exact max_length cannot be used (deflate expands at most ~1032 times)


def zstd_slice(room: int) -> int:
    """Body bytes for the next zstd call when ``room`` more content bytes are allowed: a 4-byte block can stand for
    128 KiB, so a slice of room / 32768 bytes cannot expand past the room (at least 256 bytes: 8 MiB)."""
    return max(256, min(1 << 20, room >> 15))


def _too_large(max_content: int) -> CorruptAnswer:
    return CorruptAnswer(f"answer too large: its content is over maxanswerbytes={max_content} bytes decompressed")
