package io.outpost.store.model;

import io.outpost.wire.ColumnType;
import java.nio.charset.StandardCharsets;

/**
 * COOL's payload storage types with their value ranges and size limits. Values are held in Java as:
 * Boolean; Short (UChar, Int16); Integer (UInt16, Int32); Long (UInt32, UInt63, Int64); Float; Double;
 * String; byte[].
 */
public enum StorageType {
    BOOL("Bool", 0),
    UCHAR("UChar", 0),
    INT16("Int16", 0),
    UINT16("UInt16", 0),
    INT32("Int32", 0),
    UINT32("UInt32", 0),
    UINT63("UInt63", 0),
    INT64("Int64", 0),
    FLOAT("Float", 0),
    DOUBLE("Double", 0),
    STRING255("String255", 255),
    STRING4K("String4k", 4000),
    STRING64K("String64k", 65535),
    STRING16M("String16M", 16777215),
    BLOB64K("Blob64k", 65535),
    BLOB16M("Blob16M", 16777215);

    private final String coolName;
    private final int maxBytes;

    StorageType(String coolName, int maxBytes) {
        this.coolName = coolName;
        this.maxBytes = maxBytes;
    }

    /** The name COOL uses in payload specifications, e.g. {@code String4k}. */
    public String coolName() {
        return coolName;
    }

    /** The wire format's type of the same name: what a binary answer or IOV batch carries for this field. */
    public ColumnType columnType() {
        return ColumnType.valueOf(name());
    }

    /** Size limit in bytes (UTF-8 for strings) for strings and blobs; 0 for fixed-size types. */
    public int maxBytes() {
        return maxBytes;
    }

    public boolean isString() {
        return this == STRING255 || this == STRING4K || this == STRING64K || this == STRING16M;
    }

    public boolean isBlob() {
        return this == BLOB64K || this == BLOB16M;
    }

    public static StorageType fromCoolName(String name) {
        for (StorageType t : values()) {
            if (t.coolName.equalsIgnoreCase(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown storage type '" + name + "'; known: Bool, UChar, Int16, UInt16, "
                + "Int32, UInt32, UInt63, Int64, Float, Double, String255, String4k, String64k, String16M, Blob64k, Blob16M");
    }

    /**
     * Checks a value against this type and returns it in its canonical Java class, or throws
     * {@link IllegalArgumentException} saying what is wrong. {@code null} is allowed (a NULL field).
     */
    public Object coerce(Object value) {
        if (value == null) {
            return null;
        }
        switch (this) {
            case BOOL -> {
                if (value instanceof Boolean b) {
                    return b;
                }
                throw wrongClass(value, "true or false");
            }
            case FLOAT -> {
                if (value instanceof Number n) {
                    double d = finite(n.doubleValue());
                    float f = (float) d;
                    if (Float.isInfinite(f) && !Double.isInfinite(d)) {
                        throw new IllegalArgumentException(d + " is out of range for Float");
                    }
                    return f;
                }
                throw wrongClass(value, "a number");
            }
            case DOUBLE -> {
                if (value instanceof Number n) {
                    return finite(n.doubleValue());
                }
                throw wrongClass(value, "a number");
            }
            case STRING255, STRING4K, STRING64K, STRING16M -> {
                if (value instanceof CharSequence s) {
                    String str = s.toString();
                    int bytes = utf8Length(str);
                    if (bytes > maxBytes) {
                        throw new IllegalArgumentException("string of " + bytes + " bytes is over the " + maxBytes
                                + "-byte limit of " + coolName);
                    }
                    return str;
                }
                throw wrongClass(value, "a string");
            }
            case BLOB64K, BLOB16M -> {
                if (value instanceof byte[] b) {
                    if (b.length > maxBytes) {
                        throw new IllegalArgumentException("blob of " + b.length + " bytes is over the " + maxBytes
                                + "-byte limit of " + coolName);
                    }
                    return b;
                }
                throw wrongClass(value, "bytes");
            }
            default -> {
                return coerceInteger(value);
            }
        }
    }

    private Object coerceInteger(Object value) {
        long v;
        if (value instanceof Byte || value instanceof Short || value instanceof Integer || value instanceof Long) {
            v = ((Number) value).longValue();
        } else if (value instanceof java.math.BigInteger bi) {
            if (bi.bitLength() > 63) {
                throw new IllegalArgumentException(bi + " is out of range for " + coolName);
            }
            v = bi.longValue();
        } else if (value instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
                && Math.abs(n.doubleValue()) < 9.0e15) {
            v = n.longValue();
        } else {
            throw wrongClass(value, "an integer");
        }
        long lo;
        long hi;
        switch (this) {
            case UCHAR -> { lo = 0; hi = 255; }
            case INT16 -> { lo = Short.MIN_VALUE; hi = Short.MAX_VALUE; }
            case UINT16 -> { lo = 0; hi = 65535; }
            case INT32 -> { lo = Integer.MIN_VALUE; hi = Integer.MAX_VALUE; }
            case UINT32 -> { lo = 0; hi = 0xFFFF_FFFFL; }
            case UINT63 -> { lo = 0; hi = Long.MAX_VALUE; }
            default -> { lo = Long.MIN_VALUE; hi = Long.MAX_VALUE; }
        }
        if (v < lo || v > hi) {
            throw new IllegalArgumentException(v + " is out of range for " + coolName + " (" + lo + " … " + hi + ")");
        }
        return switch (this) {
            case UCHAR, INT16 -> (short) v;
            case UINT16, INT32 -> (int) v;
            default -> v;
        };
    }

    private IllegalArgumentException wrongClass(Object value, String expected) {
        return new IllegalArgumentException(coolName + " needs " + expected + ", got "
                + value.getClass().getSimpleName());
    }

    static int utf8Length(String s) {
        int n = s.length();
        if (n * 3 <= 255) {
            return s.getBytes(StandardCharsets.UTF_8).length;
        }
        int bytes = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    /**
     * NaN and infinities are refused: they do not survive every backend (SQLite stores NaN as NULL, MariaDB refuses
     * both), and a value must read back as it was written.
     */
    private static double finite(double d) {
        if (!Double.isFinite(d)) {
            throw new IllegalArgumentException(d + " is not stored: NaN and infinities do not survive every database");
        }
        return d;
    }
}
