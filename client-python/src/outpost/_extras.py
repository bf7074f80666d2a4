"""Internal: the optional dependencies, the extras of pyproject.toml. A plain ``pip install outpost-client`` brings
none of them; a configuration that needs one that is missing is a configuration error naming the extra, raised
when the client is created, never when the package is imported."""

from __future__ import annotations

import importlib

from .errors import ErrorKind, OutpostError

try:  # [fast]: ISA-L's CRC-32, about 40x the standard library's (it checks every answer's content)
    from isal.isal_zlib import crc32
except ImportError:
    from zlib import crc32  # type: ignore[assignment,unused-ignore]

__all__ = ["crc32", "require"]


def require(module: str, extra: str, feature: str) -> None:
    """Raises a CONFIG error saying which extra to install when ``module`` cannot be imported."""
    try:
        importlib.import_module(module)
    except ImportError:
        raise OutpostError(ErrorKind.CONFIG, f"{feature} needs the package {module}, which is not installed: "
                                             f"pip install 'outpost-client[{extra}]'") from None
