package io.outpost.store.model;

import io.outpost.store.StoreException;

/**
 * Validity keys are COOL's UInt63: 0 … 2^63−1, so a Java {@code long} holds every key and signed
 * 64-bit database columns compare them correctly. Intervals are half-open [since, until).
 */
public final class ValidityKey {
    public static final long MIN = 0L;
    public static final long MAX = Long.MAX_VALUE;

    private ValidityKey() {
    }

    /** Run-lumi keys as ATLAS builds them: run in the high 32 bits, lumiblock in the low ones. */
    public static long fromRunLumi(long run, long lumi) {
        if (run < 0 || run > 0x7FFF_FFFFL) {
            throw StoreException.badKey("run " + run + " is outside 0 … 2147483647");
        }
        if (lumi < 0 || lumi > 0xFFFF_FFFFL) {
            throw StoreException.badKey("lumiblock " + lumi + " is outside 0 … 4294967295");
        }
        return (run << 32) | lumi;
    }

    public static long run(long key) {
        return key >>> 32;
    }

    public static long lumi(long key) {
        return key & 0xFFFF_FFFFL;
    }

    public static void checkKey(String what, long key) {
        if (key < MIN) {
            throw StoreException.badKey(what + " " + key + " is negative; keys run from 0 to 2^63-1");
        }
    }

    /** Rejects since ≥ until and keys outside the range, as COOL's client does before any write or read. */
    public static void checkInterval(long since, long until) {
        checkKey("since", since);
        checkKey("until", until);
        if (since >= until) {
            throw StoreException.badKey("since " + since + " must be lower than until " + until);
        }
    }
}
