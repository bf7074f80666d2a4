package io.outpost.frontier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.outpost.frontier.answers.FrontierAnswers;
import io.outpost.frontier.answers.TableTimes;
import io.outpost.frontier.encode.BlobEncoder;
import io.outpost.frontier.encode.RecordBytes;
import io.outpost.frontier.protocol.CacheHeaders;
import io.outpost.frontier.sql.CoolRead;
import io.outpost.store.read.RowRanges;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers COOL's IOV reads recognised in the statement ({@link CoolRead}) from the folder's held rows, without
 * running the query: the column header as the database describes the statement (learnt once per table and columns),
 * then the selected rows' records. A layer's rows are encoded as records once per column choice (each value as the
 * database's text of it) and an answer copies its rows' slices, so a new key costs a copy, not an encoding. A read
 * that is not held goes on to the database. Runs before {@link LastModifiedStep}: the Last-Modified of a held answer
 * comes from the stamp its rows are at (the same sequence row), with no further read.
 */
final class HeldStep implements StepChain.Step<PayloadWork, PayloadOutcome> {
    private static final Logger LOG = LoggerFactory.getLogger(HeldStep.class);
    /** Headers learnt; a bound far above any catalog's folders times COOL's column choices. */
    private static final int MAX_HEADERS = 10_000;
    /** Encoded layers kept, in bytes: the hot folders' (likeLuis1iov's 10,000 rows take ~1.1 MB). */
    static final long ENCODED_LAYER_BYTES = 64L << 20;

    /**
     * One layer's rows as records for one column choice: row i is {@code bytes[start[i], start[i + 1])}; with the
     * latest finished answer made of them, sent again as it is for the same rows at the same zip level (another
     * key inside the same IOVs).
     */
    private static final class LayerRecords {
        final byte[] bytes;
        final int[] start;
        volatile Finished finished;

        LayerRecords(byte[] bytes, int[] start) {
            this.bytes = bytes;
            this.start = start;
        }
    }

    /** An answer's text, made of the row slices {@code slices} at zip level {@code level}. */
    private record Finished(int level, int[] slices, byte[] text, String md5, long fullSize, int rows) {
    }

    private record LayerKey(Object layer, String columns) {
    }

    private final HeldFolderReads held;
    private final TableTimes times;
    private final DatabaseReads reads;
    private final FrontierAnswers answers;
    private final PayloadEnds ends;
    /** Per {@link CoolRead#headerKey}: column names and types, alternating, as the database gives them. */
    private final Map<String, List<String>> headers = new ConcurrentHashMap<>();
    private final Cache<LayerKey, LayerRecords> layers = Caffeine.newBuilder()
            .maximumWeight(ENCODED_LAYER_BYTES)
            .weigher((LayerKey k, LayerRecords r) -> 2 * r.bytes.length + 4 * r.start.length) // and a finished answer
            .build();

    HeldStep(HeldFolderReads held, TableTimes times, DatabaseReads reads, FrontierAnswers answers, PayloadEnds ends) {
        this.held = held;
        this.times = times;
        this.reads = reads;
        this.answers = answers;
        this.ends = ends;
    }

    @Override
    public PayloadOutcome handle(PayloadWork w, StepChain<PayloadWork, PayloadOutcome> next) throws IOException {
        CoolRead read = w.payload().coolRead();
        if (held == null || read == null) {
            return next.proceed(w);
        }
        Connection c = w.connection();
        HeldFolderReads.Rows rows;
        List<String> header;
        try {
            rows = held.read(c, read);
            header = rows == null ? null : header(c, w.payload(), read);
        } catch (SQLException | RuntimeException e) {
            // the database path meets the same fault (an outage, a folder list that cannot be read) and reports it
            // as usual
            LOG.debug("held rows not used: {}", e.toString());
            rows = null;
            header = null;
        } finally {
            DatabaseReads.rollback(c); // the stamp's transaction ends; a query after this one starts afresh
            w.exchange().transactionFresh(true);
        }
        if (rows == null || header == null) {
            return next.proceed(w);
        }
        if (lastModifiedDue(w)) {
            // the folder's time is the stamp's LASTMOD_DATE, the same sequence row LastModifiedStep would read, and it
            // is cached for ValidateLastModifiedSeconds as that step caches it
            String stamp = rows.stamp();
            long lm = times.remember(w.payload().sources(), List.of(stamp.substring(stamp.indexOf('@') + 1)));
            FrontierExchange x = w.exchange();
            if (x.ifModifiedSince() > 0 && x.ifModifiedSince() == lm) {
                return new PayloadOutcome.NotModified();
            }
            if (lm > 0) {
                x.response.setHeader("Last-Modified", CacheHeaders.httpDate(lm));
            }
        }
        LayerRecords records = records(rows, read, header);
        RowRanges slices = new RowRanges();
        int n = rows.select(slices::add);
        int[] s = slices.toArray();
        Finished kept = records.finished;
        if (kept != null && kept.level() == w.level() && Arrays.equals(kept.slices(), s)) {
            w.out().writeShared(kept.text());
            ends.answeredFrom(FrontierMetrics.HELD);
            return ends.sent(w, kept.rows(), kept.md5(), kept.fullSize(), null);
        }
        // the text is kept also when the records are too many to compress in one call (COOL's whole IOV row of 10,000
        // channels): another key inside the same IOVs is sent the same text again, not compressed again
        BlobEncoder enc = new BlobEncoder(w.out(), w.level(), answers.byContent(), true);
        try {
            for (String h : header) {
                enc.writeString(h);
            }
            enc.writeEOR();
            for (int i = 0; i < s.length; i += 2) {
                int from = records.start[s[i]];
                enc.writeRecords(records.bytes, from, records.start[s[i + 1]] - from);
            }
            enc.close();
        } catch (IOException | RuntimeException e) {
            try {
                enc.close();
            } catch (IOException | RuntimeException ignored) {
                // already failing
            }
            throw e;
        }
        if (enc.encodedText() != null && enc.encodedText().length <= records.bytes.length) { // the layer's weight
            records.finished = new Finished(w.level(), s, enc.encodedText(), enc.md5Hex(), enc.fullSize(), n);
        }
        ends.answeredFrom(FrontierMetrics.HELD);
        return ends.sent(w, n, enc.md5Hex(), enc.fullSize(), null);
    }

    /** Whether the request's Last-Modified is still to be learnt (as {@link LastModifiedStep} decides it). */
    private static boolean lastModifiedDue(PayloadWork w) {
        FrontierExchange x = w.exchange();
        return x.payloads().size() == 1 && x.lastModified() == 0 && w.payload().sources() != null
                && !x.out.isCommitted();
    }

    /** The layer's records for the read's columns, encoded the first time they are asked. */
    private LayerRecords records(HeldFolderReads.Rows rows, CoolRead read, List<String> header) throws IOException {
        try {
            return layers.get(new LayerKey(rows.layer(), read.headerKey()), k -> encode(rows, header));
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private static LayerRecords encode(HeldFolderReads.Rows rows, List<String> header) {
        boolean[] binary = new boolean[header.size() / 2];
        for (int i = 1; i < header.size(); i += 2) {
            binary[i / 2] = header.get(i).equals("BLOB");
        }
        RecordBytes out = new RecordBytes(1 << 16);
        int[][] start = {new int[1024]};
        int[] count = {0};
        try {
            rows.writeLayer((index, values) -> {
                if (index != count[0]) {
                    throw new IllegalStateException("layer rows out of order: " + index + " after " + count[0]);
                }
                if (count[0] + 1 >= start[0].length) {
                    start[0] = Arrays.copyOf(start[0], start[0].length * 2);
                }
                start[0][count[0]++] = out.length();
                for (int i = 0; i < values.length; i++) {
                    value(out, values[i], binary[i]);
                }
                out.endOfRecord();
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        start[0][count[0]] = out.length();
        return new LayerRecords(out.toArray(), Arrays.copyOf(start[0], count[0] + 1));
    }

    /** The statement's column header, read from the database the first time its table and columns are seen. */
    private List<String> header(Connection c, Payload p, CoolRead read) throws SQLException {
        List<String> h = headers.get(read.headerKey());
        if (h == null) {
            h = reads.header(c, p);
            if (h.size() != 2 * read.columns().size()) {
                return null;
            }
            if (headers.size() >= MAX_HEADERS) {
                headers.clear();
            }
            headers.put(read.headerKey(), h);
        }
        return h;
    }

    /** One value as the database's text: integers in decimal, booleans as 1 or 0, strings and BLOBs as they are. */
    private static void value(RecordBytes out, Object v, boolean binary) {
        switch (v) {
            case null -> out.string(null);
            case byte[] b when binary -> out.bytes(b);
            case String s -> out.string(s);
            case Long l -> out.string(Long.toString(l));
            case Integer i -> out.string(Integer.toString(i));
            case Short s -> out.string(Short.toString(s));
            case Boolean b -> out.string(b ? "1" : "0");
            default -> throw new IllegalStateException("no database text for a held " + v.getClass().getSimpleName());
        }
    }
}
