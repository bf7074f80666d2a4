package io.outpost.server.pin;

import io.outpost.server.query.BadQueryException;
import io.outpost.store.db.SysTime;
import java.time.Instant;
import java.util.regex.Pattern;

/**
 * A folder's generation as it appears in a pinned URL: {@code MICROS.SEQ}, the folder's last modification time in
 * microseconds since the epoch and its last object id, both decimal. Both grow with every write, so two tokens of
 * one folder can be ordered: a token newer than the service's view means this replica has not seen a write yet.
 */
public record GenerationToken(long micros, long seq) implements Comparable<GenerationToken> {
    private static final Pattern FORM = Pattern.compile("(0|[1-9][0-9]{0,17})\\.(0|[1-9][0-9]{0,17})");

    /** From the catalog's generation stamp ({@code SEQ@SYSTIME}, see Metadata.modificationStamp). */
    public static GenerationToken ofStamp(String stamp) {
        int at = stamp.indexOf('@');
        long seq = at > 0 ? Long.parseLong(stamp.substring(0, at)) : 0;
        long micros = 0;
        if (at > 0 && !stamp.substring(at + 1).equals("none")) {
            try {
                Instant t = SysTime.parse(stamp.substring(at + 1));
                micros = t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
            } catch (RuntimeException e) {
                micros = 0;
            }
        }
        return new GenerationToken(micros, seq);
    }

    /** Parses a token from a URL; other spellings (leading zeros, signs) are not tokens. */
    public static GenerationToken parse(String s) {
        if (!FORM.matcher(s).matches()) {
            throw new BadQueryException("generation '" + abbreviate(s) + "' must be MICROS.SEQ as the state answer gives"
                    + " it, e.g. 1767225600000000.42");
        }
        int dot = s.indexOf('.');
        return new GenerationToken(Long.parseLong(s.substring(0, dot)), Long.parseLong(s.substring(dot + 1)));
    }

    @Override
    public int compareTo(GenerationToken o) {
        int c = Long.compare(micros, o.micros);
        return c != 0 ? c : Long.compare(seq, o.seq);
    }

    @Override
    public String toString() {
        return micros + "." + seq;
    }

    private static String abbreviate(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "…" : s;
    }
}
