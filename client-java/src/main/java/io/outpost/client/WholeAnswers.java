package io.outpost.client;

import io.outpost.client.internal.Failover;
import io.outpost.client.internal.Response;
import io.outpost.wire.AnswerDecoder;
import io.outpost.wire.AnswerHeader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Reads a whole answer into memory, with how long the server lets it be kept and the keys it is valid for. */
final class WholeAnswers {
    private WholeAnswers() {
    }

    /** An answer as it came: how many more seconds it is fresh, and the keys between which it is valid. */
    record Fetched(Answer answer, long freshSeconds, long validSince, long validUntil) {
    }

    /** The answer of a 200 response, decoded to its end (at most {@code maxAnswerBytes}). */
    static Fetched read(Response response, long maxAnswerBytes) throws IOException {
        try (AnswerDecoder d = new AnswerDecoder(response.body(), response.contentLength(), maxAnswerBytes)) {
            Answer a = rows(d);
            String cc = response.header("Cache-Control");
            long fresh = cacheable(cc) ? Failover.maxAge(cc) - age(response) : 0;
            return new Fetched(a, fresh, headerKey(response, "X-Outpost-Valid-Since", a.validSince()),
                    headerKey(response, "X-Outpost-Valid-Until", a.validUntil()));
        }
    }

    /** Decodes a whole answer held in memory (a snapshot's inline folder answer). */
    static Answer decode(byte[] encoded) throws IOException {
        try (AnswerDecoder d = new AnswerDecoder(new ByteArrayInputStream(encoded), encoded.length)) {
            return rows(d);
        }
    }

    private static Answer rows(AnswerDecoder d) throws IOException {
        AnswerHeader h = d.readHeader();
        List<Row> rows = new ArrayList<>();
        for (Object[] v; (v = d.nextRow()) != null; ) {
            rows.add(new Row(h.schema(), v));
        }
        return new Answer(h.kind(), h.folder(), h.tag(), h.validSince(), h.validUntil(), h.schema(), rows,
                h.encodedLength());
    }

    private static boolean cacheable(String cc) {
        if (cc == null) {
            return false;
        }
        String l = cc.toLowerCase(java.util.Locale.ROOT);
        return !l.contains("no-store") && !l.contains("no-cache") && !l.contains("private");
    }

    private static long age(Response r) {
        try {
            String a = r.header("Age");
            return a == null ? 0 : Long.parseLong(a.strip());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static long headerKey(Response r, String name, long fallback) {
        try {
            String v = r.header(name);
            return v == null ? fallback : Long.parseLong(v.strip());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }
}
