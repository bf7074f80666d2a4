"""Outpost conditions-data client: ``outpost.Client`` (docs/client-failover.md)."""

from .errors import ErrorKind, InvalidArgument, OutpostError
from .wire import Answer, AnswerKind, Column, ColumnType, decode

__version__ = "0.1.0"

__all__ = ["Answer", "AnswerKind", "Column", "ColumnType", "ErrorKind", "InvalidArgument", "OutpostError",
           "decode", "__version__"]
