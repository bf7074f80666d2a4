package io.outpost.client.internal;

import io.outpost.client.Answer;
import io.outpost.client.Ticker;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The in-process cache of whole answers, keyed by canonical path, each kept as long as the server's
 * {@code Cache-Control: max-age} (less {@code Age}) allows. At-time answers are also indexed by what they are about
 * (folder, tag, channels) with their validity range ({@code X-Outpost-Valid-Since/Until}), so a later query at any
 * key in that range is answered without a request. Bounded by the encoded size of the answers (LRU). Thread-safe.
 */
public abstract sealed class AnswerCache {

    /** A cache of this many bytes; 0 gives the no-op cache. */
    public static AnswerCache create(long maxBytes, Ticker ticker) {
        return maxBytes == 0 ? Disabled.INSTANCE : new Lru(maxBytes, ticker);
    }

    /** The fresh answer stored under {@code key}, or null. */
    public abstract Answer get(String key);

    /** The fresh at-time answer about {@code subject} valid at {@code t}, or null. */
    public abstract Answer getValidAt(String subject, long t);

    /** Stores an answer fresh for {@code freshSeconds} (nothing is stored if that is not positive). */
    public abstract void put(String key, Answer answer, long freshSeconds);

    /** Stores an at-time answer valid for keys in [since, until). */
    public abstract void putValid(String subject, long since, long until, Answer answer, long freshSeconds);

    private static final class Disabled extends AnswerCache {
        static final Disabled INSTANCE = new Disabled();

        @Override
        public Answer get(String key) {
            return null;
        }

        @Override
        public Answer getValidAt(String subject, long t) {
            return null;
        }

        @Override
        public void put(String key, Answer answer, long freshSeconds) {
        }

        @Override
        public void putValid(String subject, long since, long until, Answer answer, long freshSeconds) {
        }
    }

    private static final class Lru extends AnswerCache {
        private record Entry(Answer answer, long since, long until, long expiresAt, long bytes) {
        }

        private final long maxBytes;
        private final Ticker ticker;
        private final LinkedHashMap<String, Entry> map = new LinkedHashMap<>(64, 0.75f, true);
        private long bytes;

        Lru(long maxBytes, Ticker ticker) {
            this.maxBytes = maxBytes;
            this.ticker = ticker;
        }

        @Override
        public Answer get(String key) {
            Entry e = live("p:" + key);
            return e == null ? null : e.answer;
        }

        @Override
        public Answer getValidAt(String subject, long t) {
            Entry e = live("v:" + subject);
            return e != null && e.since <= t && t < e.until ? e.answer : null;
        }

        @Override
        public void put(String key, Answer answer, long freshSeconds) {
            store("p:" + key, new Entry(answer, 0, 0, 0, 0), freshSeconds);
        }

        @Override
        public void putValid(String subject, long since, long until, Answer answer, long freshSeconds) {
            if (since < until) {
                store("v:" + subject, new Entry(answer, since, until, 0, 0), freshSeconds);
            }
        }

        private synchronized Entry live(String key) {
            Entry e = map.get(key);
            if (e != null && ticker.read() - e.expiresAt >= 0) {
                remove(key);
                return null;
            }
            return e;
        }

        private synchronized void store(String key, Entry proto, long freshSeconds) {
            long size = proto.answer.encodedBytes() + 256;
            // One answer may not take more than a quarter of the cache.
            if (freshSeconds <= 0 || size > maxBytes / 4) {
                return;
            }
            remove(key);
            long expires = ticker.read() + Math.min(freshSeconds, 365L * 86400) * 1_000_000_000L;
            map.put(key, new Entry(proto.answer, proto.since, proto.until, expires, size));
            bytes += size;
            Iterator<Map.Entry<String, Entry>> it = map.entrySet().iterator();
            while (bytes > maxBytes && it.hasNext()) {
                bytes -= it.next().getValue().bytes;
                it.remove();
            }
        }

        private void remove(String key) {
            Entry old = map.remove(key);
            if (old != null) {
                bytes -= old.bytes;
            }
        }
    }
}
