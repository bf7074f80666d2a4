package io.outpost.wire;

/**
 * Column types of the wire format (docs/wire-format.md, "Type codes and value encodings") and the Java type each
 * decodes to. Unsigned types decode to the next wider signed type so that no value changes sign.
 */
public enum ColumnType {
    BOOL(0, "Bool", Boolean.class),
    UCHAR(1, "UChar", Short.class),
    INT16(2, "Int16", Short.class),
    UINT16(3, "UInt16", Integer.class),
    INT32(4, "Int32", Integer.class),
    UINT32(5, "UInt32", Long.class),
    UINT63(6, "UInt63", Long.class),
    INT64(7, "Int64", Long.class),
    FLOAT(8, "Float", Float.class),
    DOUBLE(9, "Double", Double.class),
    STRING255(10, "String255", String.class),
    STRING4K(11, "String4k", String.class),
    STRING64K(12, "String64k", String.class),
    STRING16M(13, "String16M", String.class),
    BLOB64K(14, "Blob64k", byte[].class),
    BLOB16M(15, "Blob16M", byte[].class);

    private static final ColumnType[] BY_CODE = values();

    private final int code;
    private final String wireName;
    private final Class<?> javaType;

    ColumnType(int code, String wireName, Class<?> javaType) {
        this.code = code;
        this.wireName = wireName;
        this.javaType = javaType;
    }

    /** The type code on the wire. */
    public int code() {
        return code;
    }

    /** The name used in the JSON form and in COOL payload specifications, e.g. {@code UInt63}. */
    public String wireName() {
        return wireName;
    }

    /** The Java class values of this type decode to. */
    public Class<?> javaType() {
        return javaType;
    }

    public boolean isString() {
        return javaType == String.class;
    }

    public boolean isBlob() {
        return javaType == byte[].class;
    }

    /** The type with this wire code, or null for an unknown code. */
    public static ColumnType ofCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** The type with this wire name (case-sensitive as in the JSON form). */
    public static ColumnType ofWireName(String name) {
        for (ColumnType t : BY_CODE) {
            if (t.wireName.equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown column type: " + name);
    }
}
