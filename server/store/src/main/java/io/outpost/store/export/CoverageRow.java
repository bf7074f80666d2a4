package io.outpost.store.export;

/**
 * One row of SNAPSHOT_COVERAGE: a folder an offline snapshot holds, what it was exported for, and the source's
 * generation of the folder when it was copied.
 *
 * @param folderTag the folder's own tag the global tag resolved to, or null for the HEAD (or a single-version folder)
 * @param tagLocked the folder tag was locked in the source when copied: its rows can never change again
 */
public record CoverageRow(long nodeId, String folderPath, String globalTag, String folderTag, long keyFrom, long keyTo,
                          String folderGlob, String sourceGeneration, boolean tagLocked, String exportedAt) {
}
