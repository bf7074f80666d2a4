package io.outpost.frontier;

import java.util.Locale;

/**
 * The C++ type CORAL's FrontierAccess plugin reads a column into (TypeConverter.cpp and
 * TableDescriptionProxy::readColumnDescription): from a data-dictionary row, or from the type name of a data answer's
 * column. Written out here so a test can check that both agree and that the chosen type holds every value.
 */
final class CoralTypes {
    private CoralTypes() {
    }

    /** From ALL_TAB_COLUMNS' DATA_TYPE, DATA_LENGTH, DATA_PRECISION and DATA_SCALE (null counts as 0). */
    static String fromDictionary(String dataType, String length, String precision, String scale) {
        int p = precision == null ? 0 : Integer.parseInt(precision);
        int s = scale == null ? 0 : Integer.parseInt(scale);
        return switch (dataType) {
            case "VARCHAR2", "VARCHAR", "CLOB" -> "string";
            case "DATE" -> "date";
            case "BINARY_FLOAT" -> "float";
            case "BINARY_DOUBLE" -> "double";
            case "BLOB" -> "blob";
            case "NUMBER" -> fromSqlType(p == 126 || p == 63 ? "FLOAT(" + p + ")"
                    : "NUMBER(" + (p == 0 ? 38 : p) + (s != 0 ? "," + s : "") + ")");
            default -> {
                if (dataType.contains("TIMESTAMP")) {
                    yield "timestamp";
                }
                if (dataType.contains("CHAR")) {
                    yield "1".equals(length) ? "char" : "string";
                }
                throw new AssertionError("CORAL cannot handle type " + dataType);
            }
        };
    }

    /** TypeConverter::cppTypeForSqlType: the defaults, then deduceCppType. */
    static String fromSqlType(String sqlType) {
        String t = sqlType.toUpperCase(Locale.ROOT);
        switch (t) {
            case "NUMBER", "DOUBLE PRECISION", "FLOAT(126)", "BINARY_DOUBLE" -> {
                return "double";
            }
            case "NUMBER(1)" -> {
                return "bool";
            }
            case "CHAR(1)" -> {
                return "char";
            }
            case "VARCHAR2", "VARCHAR2(4000)", "CLOB" -> {
                return "string";
            }
            case "FLOAT(63)", "BINARY_FLOAT" -> {
                return "float";
            }
            case "NUMBER(20)" -> {
                return "long long";
            }
            case "NUMBER(10)" -> {
                return "int";
            }
            case "NUMBER(5)" -> {
                return "short";
            }
            case "BLOB" -> {
                return "blob";
            }
            default -> {
            }
        }
        if (t.startsWith("CHAR")) {
            return "string";
        }
        if (t.startsWith("NUMBER(")) {
            String inner = t.substring(7, t.indexOf(')'));
            int comma = inner.indexOf(',');
            int precision = Integer.parseInt((comma < 0 ? inner : inner.substring(0, comma)).strip());
            int scale = comma < 0 ? 0 : Integer.parseInt(inner.substring(comma + 1).strip());
            if (scale > 0) {
                return precision < 10 ? "float" : "double";
            }
            return precision <= 5 ? "short" : precision < 10 ? "int" : "long long";
        }
        return "string"; // CORAL warns and reads the text
    }

    /** True if a value in the answer's text form fits the C++ type. */
    static boolean holds(String cppType, String text) {
        if (text == null) {
            return true;
        }
        try {
            return switch (cppType) {
                case "bool" -> text.equals("0") || text.equals("1");
                case "short" -> inRange(text, Short.MIN_VALUE, Short.MAX_VALUE);
                case "int" -> inRange(text, Integer.MIN_VALUE, Integer.MAX_VALUE);
                case "long long" -> inRange(text, Long.MIN_VALUE, Long.MAX_VALUE);
                case "float" -> Float.isFinite(Float.parseFloat(text))
                        && Math.abs(Float.parseFloat(text) - Double.parseDouble(text)) <= Math.ulp(Float.parseFloat(text));
                case "double" -> !Double.isNaN(Double.parseDouble(text));
                default -> true;
            };
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static boolean inRange(String text, long min, long max) {
        java.math.BigInteger v = new java.math.BigInteger(text);
        return v.compareTo(java.math.BigInteger.valueOf(min)) >= 0 && v.compareTo(java.math.BigInteger.valueOf(max)) <= 0;
    }
}
