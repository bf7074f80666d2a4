package io.outpost.client;

import io.outpost.wire.AnswerKind;

/** Checks that an answer is the one asked for: of the kind asked, and under security=sig about the keys asked. */
final class AnswerChecks {
    private AnswerChecks() {
    }

    /**
     * With security=sig: refuses an iovs answer that is not the one asked for, as a bad signature is refused: another
     * folder, a channel outside the selection, or a row whose validity does not meet the keys {@code lo..hi}
     * (an at-time read: lo = hi = the key asked; a browse or a cache-aligned window: its range).
     */
    static void asked(boolean signedAnswers, Answer a, String folder, ChannelSelection channels, long lo, long hi,
                      String what) throws OutpostException {
        if (!signedAnswers || a.kind() != AnswerKind.IOVS || a.schema().size() < 3) {
            return;
        }
        if (!strip(a.folder()).equals(strip(folder))) {
            throw new OutpostException(OutpostException.Kind.UNSIGNED, what + ": the answer is about folder '"
                    + a.folder() + "', not the one asked for");
        }
        for (Row r : a.rows()) {
            long channel = (Long) r.get(0);
            long since = (Long) r.get(1);
            long until = (Long) r.get(2);
            if (!channels.contains(channel) || since > hi || until <= lo) {
                throw new OutpostException(OutpostException.Kind.UNSIGNED, what + ": the answer holds channel "
                        + channel + " [" + since + ", " + until + "), not valid at the key"
                        + (lo == hi ? " " + lo : "s " + lo + ".." + hi) + " and channels asked for");
            }
        }
    }

    private static String strip(String path) {
        String p = path == null ? "" : path;
        while (p.startsWith("/")) {
            p = p.substring(1);
        }
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p;
    }

    /** The answer if it is of the kind asked for (an iovs answer with its channel, since and until columns). */
    static Answer kind(Answer a, AnswerKind expected, String path) throws OutpostException {
        if (a.kind() != expected) {
            throw new OutpostException(OutpostException.Kind.PROTOCOL, "GET " + path + " answered a "
                    + a.kind().jsonName() + " answer, expected " + expected.jsonName());
        }
        if (expected == AnswerKind.IOVS && (a.schema().size() < 3 || !a.schema().column(0).name().equals("channel"))) {
            throw new OutpostException(OutpostException.Kind.PROTOCOL, "GET " + path
                    + ": iovs answer without channel, since, until columns: " + a.schema());
        }
        return a;
    }
}
