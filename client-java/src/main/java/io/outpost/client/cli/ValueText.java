package io.outpost.client.cli;

import java.math.BigDecimal;
import java.util.Base64;

/**
 * Values as text, as docs/cli.md defines them for the command-line tools: floating point as the shortest decimal
 * that reads back to the same value, fixed or scientific whichever is shorter (the C++ tool's std::to_chars), blobs
 * in base64.
 */
final class ValueText {
    private ValueText() {
    }

    /** Plain text of a non-null value. */
    static String of(Object v) {
        if (v instanceof byte[] b) {
            return Base64.getEncoder().encodeToString(b);
        }
        if (v instanceof Double d) {
            return floating(d, Double.toString(d));
        }
        if (v instanceof Float f) {
            return floating(f, Float.toString(f));
        }
        return v.toString();
    }

    static boolean notFinite(Object v) {
        return (v instanceof Double d && !Double.isFinite(d)) || (v instanceof Float f && !Float.isFinite(f));
    }

    /** {@code javaText} is Java's shortest round-trip text of the value (Double/Float.toString, JDK 19+). */
    private static String floating(double x, String javaText) {
        if (Double.isNaN(x)) {
            return "NaN";
        }
        if (Double.isInfinite(x)) {
            return x > 0 ? "Infinity" : "-Infinity";
        }
        if (x == 0) {
            return 1 / x < 0 ? "-0" : "0";
        }
        BigDecimal b = new BigDecimal(javaText).stripTrailingZeros();
        String fixed = b.toPlainString();
        String digits = b.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - b.scale();
        StringBuilder sci = new StringBuilder();
        if (b.signum() < 0) {
            sci.append('-');
        }
        sci.append(digits.charAt(0));
        if (digits.length() > 1) {
            sci.append('.').append(digits, 1, digits.length());
        }
        sci.append('e').append(exponent < 0 ? '-' : '+');
        int e = Math.abs(exponent);
        sci.append(e < 10 ? "0" : "").append(e);
        return fixed.length() <= sci.length() ? fixed : sci.toString();
    }
}
