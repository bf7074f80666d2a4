package io.outpost.frontier.encode;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/**
 * Compressed answers by the content of their record stream. Jobs processing events of one run ask the same
 * conditions at many different times: every time is a distinct query (a miss in Squid and in the answer cache) yet
 * the rows are the same. The database still runs each query, but the record stream it yields is compressed,
 * digested and base64-encoded once: a later answer with byte-identical records at the same zip level reuses that
 * text. The content is the key, so an entry can never be stale; a CRC32C picks the candidate and the full record
 * bytes are compared before anything is reused. Bounded in bytes (Caffeine).
 */
public final class EncodedRecords {
    /** Smaller record streams compress in well under a millisecond: not worth their memory. */
    static final int MIN_BYTES = 16 << 10;

    record Key(int level, int length, int crc) {
    }

    /** The records ({@code length} bytes of {@code records}) and their encoded form at the key's level. */
    record Entry(byte[] records, int length, byte[] base64, String md5) {
    }

    private final Cache<Key, Entry> cache;
    private final AtomicLong reused = new AtomicLong();

    public EncodedRecords(long maxBytes) {
        this.cache = Caffeine.newBuilder()
                .maximumWeight(Math.max(0, maxBytes))
                .weigher((Key k, Entry e) -> 128 + e.records().length + e.base64().length)
                .build();
    }

    static Key key(int level, byte[] records, int length) {
        CRC32C crc = new CRC32C();
        crc.update(records, 0, length);
        return new Key(level, length, (int) crc.getValue());
    }

    /** The entry holding exactly these records at the key's level, or null. */
    Entry find(Key key, byte[] records, int length) {
        Entry e = cache.getIfPresent(key);
        if (e == null || e.length() != length || !Arrays.equals(e.records(), 0, length, records, 0, length)) {
            return null;
        }
        reused.incrementAndGet();
        return e;
    }

    /** Keeps an encoded answer; the records array is kept as is and must not change afterwards. */
    void keep(Key key, byte[] records, int length, byte[] base64, String md5) {
        cache.put(key, new Entry(records, length, base64, md5));
    }

    /** Answers whose compressed text was reused. */
    public long reused() {
        return reused.get();
    }

    public void clear() {
        cache.invalidateAll();
    }
}
