"""Outpost conditions-data client (docs/client-failover.md): ``outpost.Client``.

The public API is what this package exports (``__all__`` below) and the command line ``outpost-cli``. The modules
under it (``outpost.client``, ``outpost.wire``, ``outpost.transport``, ``outpost.cli``, ...) are internal: they
may change in any release, so applications import from ``outpost`` only. Modules named with a leading underscore
are internal by name too.
"""

from ._version import __version__
from .client import Client, RowStream
from .config import Config
from .errors import CorruptAnswer, ErrorKind, InvalidArgument, OutpostError
from .failover import Decision, Event, EventKind, Stats
from .query import (MAX_KEY, MIN_KEY, Channels, Order, Window, key_time, run_lumi, split_run_lumi,
                    time_key)
from .snapshot import FolderSnapshot, Snapshot, SnapshotSession
from .wire import Answer, AnswerKind, Column, ColumnType, decode

__all__ = ["MAX_KEY", "MIN_KEY", "Answer", "AnswerKind", "Channels", "Client", "Column", "ColumnType", "Config",
           "CorruptAnswer", "Decision", "ErrorKind", "Event", "EventKind", "FolderSnapshot", "InvalidArgument",
           "Order", "OutpostError", "RowStream", "Snapshot", "SnapshotSession", "Stats", "Window", "__version__", "decode", "key_time",
           "run_lumi", "split_run_lumi", "time_key"]
