-- What an offline snapshot holds (empty in an ordinary database; see docs/operations.md, "Offline snapshots").
-- One row per exported folder: the global tag and key range it was exported for, the folder's own tag the
-- global tag resolved to (NULL: the HEAD, or a single-version folder), and the source's generation of the
-- folder when it was copied, which sync compares to copy only what changed.
CREATE TABLE ${prefix}SNAPSHOT_COVERAGE (
  NODE_ID NUMBER(20) NOT NULL PRIMARY KEY,
  FOLDER_PATH VARCHAR2(255) NOT NULL,
  GLOBAL_TAG VARCHAR2(255) NOT NULL,
  FOLDER_TAG VARCHAR2(255),
  KEY_FROM NUMBER(20) NOT NULL,
  KEY_TO NUMBER(20) NOT NULL,
  FOLDER_GLOB VARCHAR2(255) NOT NULL,
  SOURCE_GENERATION VARCHAR2(255) NOT NULL,
  TAG_LOCKED NUMBER(10) NOT NULL,
  EXPORTED_AT VARCHAR2(255) NOT NULL
);
