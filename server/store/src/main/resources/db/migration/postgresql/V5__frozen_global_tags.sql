-- What a locked global tag serves (docs/schema.md, "Frozen global tags"): one row per folder the global tag
-- served when it was locked, with the folder's own tag it resolved to (NULL: a single-version folder, which has
-- no tags and is read at its HEAD). Folders without a row are not part of the locked global tag. The rows are
-- written by locking and removed by unlocking, both recorded in WRITE_AUDIT.
CREATE TABLE ${prefix}FROZEN_GLOBAL_TAGS (
  GLOBAL_TAG VARCHAR(255) NOT NULL,
  NODE_ID BIGINT NOT NULL,
  FOLDER_PATH VARCHAR(255) NOT NULL,
  FOLDER_TAG VARCHAR(255),
  LOCKED_AT VARCHAR(255) NOT NULL,
  CONSTRAINT ${prefix}FROZEN_GLOBAL_TAGS_PK PRIMARY KEY (GLOBAL_TAG, NODE_ID)
);
CREATE INDEX ${prefix}FROZEN_GT_TAG_IDX ON ${prefix}FROZEN_GLOBAL_TAGS (FOLDER_TAG);
