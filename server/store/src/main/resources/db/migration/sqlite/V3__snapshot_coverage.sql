-- What an offline snapshot holds (empty in an ordinary database; see docs/operations.md, "Offline snapshots").
-- One row per exported folder: the global tag and key range it was exported for, the folder's own tag the
-- global tag resolved to (NULL: the HEAD, or a single-version folder), and the source's generation of the
-- folder when it was copied, which sync compares to copy only what changed.
CREATE TABLE ${prefix}SNAPSHOT_COVERAGE (
  NODE_ID INTEGER NOT NULL PRIMARY KEY,
  FOLDER_PATH TEXT NOT NULL,
  GLOBAL_TAG TEXT NOT NULL,
  FOLDER_TAG TEXT,
  KEY_FROM INTEGER NOT NULL,
  KEY_TO INTEGER NOT NULL,
  FOLDER_GLOB TEXT NOT NULL,
  SOURCE_GENERATION TEXT NOT NULL,
  TAG_LOCKED INTEGER NOT NULL,
  EXPORTED_AT TEXT NOT NULL
);
