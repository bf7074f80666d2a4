package io.outpost.frontier;

import io.outpost.frontier.sql.CoolRead;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Rows of COOL's IOV reads ({@link CoolRead}) from a folder's rows held in memory, implemented by the service that
 * holds them. A Frontier context given one answers the reads it recognises without running the query; a read of a
 * folder not held, or anything else, goes to the database as before.
 */
public interface HeldFolderReads {
    /**
     * Receives one row of the layer: its index, then the read's columns in order, each a Long, Integer, Short,
     * Boolean, String, byte[] or null.
     */
    @FunctionalInterface
    interface RowSink {
        void row(int index, Object[] values) throws IOException;
    }

    /** Receives the index of a row the read selects. */
    @FunctionalInterface
    interface IndexSink {
        void row(int index);
    }

    /** The rows of one read at one stamp of its folder's layer ({@link CoolRead#layer}). */
    interface Rows {
        /** The folder's stamp the rows are at: {@code CURRENT_VALUE@LASTMOD_DATE} of its {@code _IOVS_SEQ} row. */
        String stamp();

        /**
         * The held rows the read's rows are part of (a folder layer at one stamp): the same object as long as they
         * are the same rows, so that their encoding can be kept with it.
         */
        Object layer();

        /** Every row of the layer with the read's columns, indexes 0, 1, 2... in order. */
        void writeLayer(RowSink sink) throws IOException;

        /** The indexes of the rows the read selects, in the statement's order; returns how many. */
        int select(IndexSink sink);
    }

    /**
     * The rows of {@code read} as the database holds them now: the folder's stamp is read on {@code c} (the request's
     * read-only connection) and the rows are those held at that stamp.
     *
     * @return null when the folder's rows are not held at that stamp, the read's layer is not one the folder has (a
     *         tag id that is not one of its tags), or the read selects something not held (the database answers)
     */
    Rows read(Connection c, CoolRead read) throws SQLException;
}
