"""Incremental decoding of one answer as its bytes arrive, for streamed browses: rows come out as soon as they
are whole; the row count, CRC-32 and the codec stream's end are checked when the last byte has arrived."""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import zstandard

from ._extras import crc32
from .envelope import HEADER_SIZE, TRAILER_SIZE, ZLIB_SLICE, ZSTD_MAGIC, check_header, parse_trailer, zstd_slice
from .errors import CorruptAnswer
from .wire import Answer, ContentHeader, Incomplete, Value, parse_content_header, walk_row


class StreamDecoder:
    def __init__(self, max_content: int = 1 << 62) -> None:
        self._max_content = max_content
        self._content_seen = 0
        self.header: ContentHeader | None = None
        self._raw = bytearray()  # header or trailer bytes not yet complete
        self._codec = -1
        self._body_len = 0
        self._body_seen = 0
        self._decompressor: Any = None
        self._content = bytearray()  # decompressed content not yet parsed
        self._crc = 0
        self._rows = 0
        self._ended = False  # the end marker was read
        self._done = False

    def feed(self, data: bytes | bytearray) -> list[tuple[Value, ...]]:
        """The rows completed by these bytes."""
        rows: list[tuple[Value, ...]] = []
        view = memoryview(data)
        while view:
            if self._done:
                raise CorruptAnswer("bytes after the trailer")
            if self._codec < 0:
                take = HEADER_SIZE - len(self._raw)
                self._raw += view[:take]
                view = view[take:]
                if len(self._raw) == HEADER_SIZE:
                    self._codec, self._body_len = check_header(bytes(self._raw))
                    self._raw.clear()
                    self._decompressor = {0: None, 1: zlib.decompressobj(),
                                          2: zstandard.ZstdDecompressor().decompressobj()}[self._codec]
            elif self._body_seen < self._body_len:
                take = min(len(view), self._body_len - self._body_seen)
                self._body(bytes(view[:take]))
                view = view[take:]
                rows += self._parse()
                if self._body_seen == self._body_len:
                    self._end_of_body()
            else:
                take = TRAILER_SIZE - len(self._raw)
                self._raw += view[:take]
                view = view[take:]
                if len(self._raw) == TRAILER_SIZE:
                    self._trailer()
        return rows

    def finish(self) -> int:
        """Checks that the whole answer arrived; returns its row count."""
        if not self._done:
            raise CorruptAnswer("truncated answer: the stream ended before the trailer")
        return self._rows

    @property
    def header_verified(self) -> bool:
        return self._codec >= 0

    def _body(self, chunk: bytes) -> None:
        if self._body_seen == 0 and self._codec == 2 and chunk[:4] != ZSTD_MAGIC:
            raise CorruptAnswer("the body does not start with a zstd frame")
        self._body_seen += len(chunk)
        if self._codec == 0:
            self._add(chunk)
            return
        # in slices small enough that none can expand far past maxanswerbytes (a small body may decompress to
        # gigabytes)
        start = 0
        while start < len(chunk):
            step = ZLIB_SLICE if self._codec == 1 else zstd_slice(self._max_content - self._content_seen)
            try:
                out = self._decompressor.decompress(chunk[start:start + step])
            except (zlib.error, zstandard.ZstdError) as e:
                raise CorruptAnswer(f"{'zlib' if self._codec == 1 else 'zstd'}: {e}") from None
            start += step
            self._add(out)

    def _add(self, out: bytes) -> None:
        self._content_seen += len(out)
        if self._content_seen > self._max_content:
            raise CorruptAnswer(f"answer too large: its content is over maxanswerbytes={self._max_content} bytes "
                                f"decompressed")
        self._crc = crc32(out, self._crc)
        self._content += out

    def _end_of_body(self) -> None:
        d = self._decompressor
        if d is not None and (not d.eof or d.unused_data):
            raise CorruptAnswer(f"the {'deflate stream' if self._codec == 1 else 'zstd frame'} does not end "
                                f"exactly at body_len {self._body_len}")
        if not self._ended or self._content:
            raise CorruptAnswer("content ends without the end marker, or goes on after it")

    def _trailer(self) -> None:
        rows, crc = parse_trailer(bytes(self._raw))
        if rows != self._rows:
            raise CorruptAnswer(f"trailer says {rows} rows, content has {self._rows}")
        if crc != self._crc:
            raise CorruptAnswer(f"CRC-32 mismatch: trailer {crc:08x}, content {self._crc:08x}")
        self._done = True

    def _parse(self) -> list[tuple[Value, ...]]:
        buf = self._content
        if self.header is None:
            try:
                self.header = parse_content_header(buf)
            except Incomplete:
                return []
            del buf[:self.header.rows_start]
        types = [c.type for c in self.header.columns]
        out: list[list[int]] = [[] for _ in types]
        lens: list[list[int]] = [[] for _ in types]
        pos = n = 0
        while pos < len(buf) and not self._ended:
            if buf[pos] == 0:
                self._ended = True
                pos += 1
                break
            if buf[pos] != 1:
                raise CorruptAnswer(f"row marker {buf[pos]}")
            try:
                nxt = walk_row(buf, pos + 1, types, out, lens)
            except Incomplete:
                for c in range(len(types)):  # forget the unfinished row
                    del out[c][n:], lens[c][n:]
                break
            pos, n = nxt, n + 1
        if self._ended and pos < len(buf):
            raise CorruptAnswer(f"{len(buf) - pos} bytes after the end marker")
        self._rows += n
        chunk = bytes(buf[:pos])
        del buf[:pos]
        if not n:
            return []
        h = self.header
        part = Answer(h.kind, h.folder, h.tag, h.valid_since, h.valid_until, h.columns, n, chunk,
                      [np.array(o, dtype=np.int64) for o in out],
                      [None if t.width else np.array(x, dtype=np.int64) for t, x in zip(types, lens)])
        return part.rows if types else [() for _ in range(n)]
