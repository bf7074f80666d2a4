package io.outpost.frontier.answers;

import java.util.List;

/**
 * The stamp of some folders' tables as read from their sequence rows: the text an answer is kept under
 * ({@code SEQ=CURRENT_VALUE@LASTMOD_DATE;} per table), and each table's LASTMOD_DATE, which is also its
 * Last-Modified ({@link TableTimes#remember}), so that one read of the rows serves both.
 *
 * @param text     null if a table has no sequence row
 * @param modified the LASTMOD_DATE of each table, in the order of the tables read (empty when {@code text} is null)
 */
public record TableStamp(String text, List<String> modified) {
    public TableStamp {
        modified = List.copyOf(modified);
    }

    static final TableStamp MISSING = new TableStamp(null, List.of());
}
