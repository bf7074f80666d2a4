package io.outpost.frontier;

import io.outpost.frontier.answers.FrontierAnswers;
import io.outpost.frontier.encode.BlobEncoder;
import io.outpost.frontier.sql.CoolRead;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers COOL's IOV reads recognised in the statement ({@link CoolRead}) from the folder's held rows, without
 * running the query: the column header as the database describes the statement (learnt once per table and columns),
 * then each row's values as the database's text of them. A read that is not held goes on to the database.
 */
final class HeldStep implements StepChain.Step<PayloadWork, PayloadOutcome> {
    private static final Logger LOG = LoggerFactory.getLogger(HeldStep.class);
    /** Headers learnt; a bound far above any catalog's folders times COOL's column choices. */
    private static final int MAX_HEADERS = 10_000;

    private final HeldFolderReads held;
    private final DatabaseReads reads;
    private final FrontierAnswers answers;
    private final PayloadEnds ends;
    /** Per {@link CoolRead#headerKey}: column names and types, alternating, as the database gives them. */
    private final Map<String, List<String>> headers = new ConcurrentHashMap<>();

    HeldStep(HeldFolderReads held, DatabaseReads reads, FrontierAnswers answers, PayloadEnds ends) {
        this.held = held;
        this.reads = reads;
        this.answers = answers;
        this.ends = ends;
    }

    @Override
    public PayloadOutcome handle(PayloadWork w, StepChain<PayloadWork, PayloadOutcome> next) throws IOException {
        CoolRead read = w.payload.coolRead();
        if (held == null || read == null) {
            return next.proceed(w);
        }
        Connection c = w.connection();
        HeldFolderReads.Rows rows;
        List<String> header;
        try {
            rows = held.read(c, read);
            header = rows == null ? null : header(c, w.payload, read);
        } catch (SQLException e) {
            // the database path meets the same fault and reports it as usual
            LOG.debug("held rows not used: {}", e.toString());
            rows = null;
            header = null;
        } finally {
            DatabaseReads.rollback(c); // the stamp's transaction ends; a query after this one starts afresh
        }
        if (rows == null || header == null) {
            return next.proceed(w);
        }
        BlobEncoder enc = new BlobEncoder(w.out(), w.level, answers.byContent());
        int n;
        try {
            boolean[] binary = new boolean[header.size() / 2];
            for (int i = 0; i < header.size(); i += 2) {
                enc.writeString(header.get(i));
                enc.writeString(header.get(i + 1));
                binary[i / 2] = header.get(i + 1).equals("BLOB");
            }
            enc.writeEOR();
            n = rows.write(values -> {
                for (int i = 0; i < values.length; i++) {
                    value(enc, values[i], binary[i]);
                }
                enc.writeEOR();
            });
            enc.close();
        } catch (IOException | RuntimeException e) {
            try {
                enc.close();
            } catch (IOException | RuntimeException ignored) {
                // already failing
            }
            throw e;
        }
        ends.answeredFrom(FrontierMetrics.HELD);
        return ends.sent(w, n, enc.md5Hex(), enc.fullSize());
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
    private static void value(BlobEncoder enc, Object v, boolean binary) throws IOException {
        switch (v) {
            case null -> enc.writeString(null);
            case byte[] b when binary -> enc.writeBytes(b);
            case String s -> enc.writeString(s);
            case Long l -> enc.writeString(Long.toString(l));
            case Integer i -> enc.writeString(Integer.toString(i));
            case Short s -> enc.writeString(Short.toString(s));
            case Boolean b -> enc.writeString(b ? "1" : "0");
            default -> throw new IllegalStateException("no database text for a held " + v.getClass().getSimpleName());
        }
    }
}
