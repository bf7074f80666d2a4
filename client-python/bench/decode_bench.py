"""Decoding a likeLuis1iov answer (10,000 channels x one IOV with a 50-character random string, as the reference
workload) with the Python client, against decompressing its body alone, and the Java client's decoder on the same
bytes in the same run. Every timed decode is checked (row count, values). Figures go to docs/benchmarks.md.

    python client-python/bench/decode_bench.py [--rounds N] [--java-jar client-java/target/outpost-client.jar]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import string
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Callable

import zstandard

from outpost import decode
from outpost.wire import decompress

ROWS = 10_000
CHARS = 50
T0 = 1767225600000000000
MAX_KEY = (1 << 63) - 1


def like_luis_1iov(codec: int) -> tuple[bytes, list[str]]:
    """The answer as the service encodes it (docs/wire-format.md): channel, since, until, s String255."""
    rnd = random.Random(42)
    strings = ["".join(rnd.choices(string.ascii_lowercase, k=CHARS)) for _ in range(ROWS)]

    def text(s: str) -> bytes:
        b = s.encode()
        return struct.pack(">I", len(b)) + b

    head = (bytes([1]) + text("/LUIS/F1") + text("HEAD") + struct.pack(">qqH", 0, 0, 4)
            + b"".join(text(n) + bytes([t]) for n, t in (("channel", 5), ("since", 6), ("until", 6), ("s", 10))))
    rows = b"".join(b"\x01\x00" + struct.pack(">Iqq", ch, T0, MAX_KEY) + text(s) for ch, s in enumerate(strings))
    content = head + rows + b"\x00"
    body = zstandard.ZstdCompressor(level=1).compress(content) if codec == 2 else zlib.compress(content, 1)
    return (b"OUTP" + bytes([1, codec, 0, 0]) + struct.pack(">Q", len(body)) + body
            + struct.pack(">QI", ROWS, zlib.crc32(content)) + b"PTUO"), strings


def best(rounds: int, f: Callable[[], object]) -> float:
    f()
    times = []
    for _ in range(rounds):
        t = time.perf_counter_ns()
        f()
        times.append(time.perf_counter_ns() - t)
    return min(times) / 1e9


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--java-jar", default=str(Path(__file__).resolve().parents[2] / "client-java" / "target"
                                                  / "outpost-client.jar"))
    args = parser.parse_args()
    java = shutil.which("java", path=os.path.join(os.environ.get("JAVA_HOME", ""), "bin")) or shutil.which("java")
    for codec, name in ((2, "zstd"), (1, "zlib")):
        data, strings = like_luis_1iov(codec)
        body = memoryview(data)[16:-16]
        content = len(decompress(codec, body))

        def checked() -> None:  # every integrity check and the value index: what every query pays
            a = decode(data)
            assert len(a) == ROWS and a.positions[3][-1] > 0

        def decode_all() -> None:  # then every column: numpy arrays, and a Python str per string value
            a = decode(data)
            assert len(a) == ROWS and a.column("s")[-1] == strings[-1] and a.column("channel")[-1] == ROWS - 1

        def frame() -> None:
            f = decode(data).to_pandas()
            assert len(f) == ROWS and f["s"].iloc[-1] == strings[-1]

        def arrow() -> None:
            t = decode(data).to_arrow()
            assert t.num_rows == ROWS and t.column("s")[-1].as_py() == strings[-1]

        unzip = best(args.rounds, lambda: decompress(codec, body))
        mb = content / 1e6
        print(f"likeLuis1iov, {ROWS} rows, {name}: {len(data) / 1e6:.2f} MB on the wire, {mb:.2f} MB content")
        print(f"  python decompress only        : {mb / unzip:7.1f} MB/s ({unzip * 1e3:.2f} ms)")
        for label, f in (("decode()", checked), ("decode() + all columns", decode_all),
                         ("decode() + to_pandas()", frame), ("decode() + to_arrow()", arrow)):
            s = best(args.rounds, f)
            print(f"  python {label:23s}: {mb / s:7.1f} MB/s ({s * 1e3:.2f} ms), ratio to decompression "
                  f"{unzip / s:.2f}")
        if java and Path(args.java_jar).exists():
            with tempfile.TemporaryDirectory() as tmp:
                answer = Path(tmp) / "answer.bin"
                answer.write_bytes(data)
                out = subprocess.run([java, "--enable-native-access=ALL-UNNAMED", "-cp", args.java_jar,
                                      str(Path(__file__).with_name("JavaDecode.java")), str(answer),
                                      str(args.rounds)], capture_output=True, text=True, check=True).stdout
            fields = dict(p.split("=") for p in out.split()[1:])
            assert int(fields["rows"]) == ROWS and int(fields["content"]) == content
            jd, jdec = int(fields["decompress_ns"]) / 1e9, int(fields["decode_ns"]) / 1e9
            print(f"  java   decompress only        : {mb / jd:7.1f} MB/s ({jd * 1e3:.2f} ms)")
            print(f"  java   decode (every row)     : {mb / jdec:7.1f} MB/s ({jdec * 1e3:.2f} ms), "
                  f"ratio to decompression "
                  f"{jd / jdec:.2f}")
        else:
            print("  java: skipped (no java, or no client-java/target/outpost-client.jar: build client-java)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
