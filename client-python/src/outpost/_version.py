"""Internal: the client's version, its one source. pyproject.toml reads it (``[tool.setuptools.dynamic]``);
``outpost.__version__`` and the default ``X-Outpost-Client`` header are this."""

__version__ = "0.1.0"
