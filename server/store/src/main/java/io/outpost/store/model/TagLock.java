package io.outpost.store.model;

/** COOL's tag lock status: a locked tag never changes; a partially locked one may be appended to, not overlapped. */
public enum TagLock {
    UNLOCKED(0),
    LOCKED(1),
    PARTIALLY_LOCKED(2);

    private final int code;

    TagLock(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static TagLock fromCode(int code) {
        for (TagLock l : values()) {
            if (l.code == code) {
                return l;
            }
        }
        throw new IllegalArgumentException("unknown tag lock status " + code);
    }

    public static TagLock parse(String s) {
        return switch (s.toLowerCase(java.util.Locale.ROOT)) {
            case "unlocked" -> UNLOCKED;
            case "locked" -> LOCKED;
            case "partial", "partially-locked", "partially_locked" -> PARTIALLY_LOCKED;
            default -> throw new IllegalArgumentException("lock status must be unlocked, locked or partial, not '" + s + "'");
        };
    }
}
