-- What an offline snapshot holds (empty in an ordinary database; see docs/operations.md, "Offline snapshots").
-- One row per exported folder: the global tag and key range it was exported for, the folder's own tag the
-- global tag resolved to (NULL: the HEAD, or a single-version folder), and the source's generation of the
-- folder when it was copied, which sync compares to copy only what changed.
CREATE TABLE ${prefix}SNAPSHOT_COVERAGE (
  NODE_ID BIGINT NOT NULL PRIMARY KEY,
  FOLDER_PATH VARCHAR(255) NOT NULL,
  GLOBAL_TAG VARCHAR(255) NOT NULL,
  FOLDER_TAG VARCHAR(255),
  KEY_FROM BIGINT NOT NULL,
  KEY_TO BIGINT NOT NULL,
  FOLDER_GLOB VARCHAR(255) NOT NULL,
  SOURCE_GENERATION VARCHAR(255) NOT NULL,
  TAG_LOCKED INTEGER NOT NULL,
  EXPORTED_AT VARCHAR(255) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
