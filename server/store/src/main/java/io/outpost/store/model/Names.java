package io.outpost.store.model;

import io.outpost.store.StoreException;
import java.util.regex.Pattern;

/**
 * The one rule for names, the same on every backend and at every entry: folder and folderset paths, tag and
 * global-tag names, channel names. A name is stored and compared exactly as written, byte for byte, so a name
 * that could be read two ways is never created: white space at either end, a control character anywhere, or a
 * character that is no valid Unicode (a lone surrogate, which a database driver would turn into '?') is refused
 * with a message naming the name and what is wrong. Paths and tag names then have their own syntax, channel names
 * only a length. Lookups are not checked: a spelling that was never created simply finds nothing.
 */
public final class Names {
    /** The longest name: the name columns are 255 characters wide. */
    public static final int MAX_LENGTH = 255;

    private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9_][A-Za-z0-9_.-]{0,63})+");
    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}");

    /** The kinds of name, as messages call them. */
    public enum Kind {
        PATH("node path"),
        TAG("tag name"),
        GLOBAL_TAG("global tag name"),
        CHANNEL("channel name");

        private final String words;

        Kind(String words) {
            this.words = words;
        }

        @Override
        public String toString() {
            return words;
        }
    }

    private Names() {
    }

    /** A new folder or folderset path: /A/B/C, segments of letters, digits, '_', '.', '-'. */
    public static void checkPath(String path) {
        checkExact(Kind.PATH, path);
        if (!PATH.matcher(path).matches()) {
            throw StoreException.badArgument("node path '" + path + "' must look like /A/B/C: segments of letters,"
                    + " digits, '_', '.', '-' starting with a letter, digit or '_'");
        }
    }

    /** A new tag name (a global tag's too): letters, digits, '_', '.', '-'. HEAD is the tag writer's to refuse. */
    public static void checkTagName(Kind kind, String name) {
        checkExact(kind, name);
        if (!TAG.matcher(name).matches()) {
            throw StoreException.badArgument(kind + " '" + name + "' must be letters, digits, '_', '.', '-'"
                    + " (HEAD is reserved)");
        }
    }

    /** A new channel name: any text of 1 to 255 characters that passes the common rule. */
    public static void checkChannelName(String name) {
        checkExact(Kind.CHANNEL, name);
    }

    /**
     * The common rule: present, 1 to 255 characters, no white space at either end, no control character, only
     * valid Unicode.
     */
    public static void checkExact(Kind kind, String name) {
        if (name == null || name.isEmpty()) {
            throw StoreException.badArgument(kind + " must not be empty");
        }
        if (name.length() > MAX_LENGTH) {
            throw StoreException.badArgument(kind + " '" + printable(name.substring(0, 40)) + "…' is " + name.length()
                    + " characters long; at most " + MAX_LENGTH + " are allowed");
        }
        int first = name.codePointAt(0);
        int last = name.codePointBefore(name.length());
        if (isBlank(first)) {
            throw refused(kind, name, "starts with white space (" + describe(first) + ")");
        }
        if (isBlank(last)) {
            throw refused(kind, name, "ends with white space (" + describe(last) + ")");
        }
        for (int i = 0; i < name.length(); ) {
            int cp = name.codePointAt(i);
            if (Character.getType(cp) == Character.CONTROL) {
                throw refused(kind, name, "contains the control character " + describe(cp) + " at position " + (i + 1));
            }
            if (isLoneSurrogate(cp)) {
                throw refused(kind, name, "contains a lone surrogate " + describe(cp) + " at position " + (i + 1)
                        + ", which is no valid Unicode");
            }
            i += Character.charCount(cp);
        }
    }

    /**
     * Whether a name could be stored at all: false if it holds NUL (PostgreSQL refuses it in text) or a lone
     * surrogate (a driver would send '?' in its place and so reach another name). Lookups of such a name find
     * nothing without asking the database.
     */
    public static boolean couldBeStored(String name) {
        if (name == null) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (ch == 0) {
                return false;
            }
            if (Character.isHighSurrogate(ch)) {
                if (i + 1 == name.length() || !Character.isLowSurrogate(name.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(ch)) {
                return false;
            }
        }
        return true;
    }

    /** White space as Java and Unicode know it: also the no-break and ideographic spaces. */
    private static boolean isBlank(int cp) {
        return Character.isWhitespace(cp) || Character.isSpaceChar(cp);
    }

    /** A code point of a lone surrogate: codePointAt gives the surrogate itself when its partner is missing. */
    private static boolean isLoneSurrogate(int cp) {
        return cp < Character.MIN_SUPPLEMENTARY_CODE_POINT && Character.isSurrogate((char) cp);
    }

    private static String describe(int cp) {
        return String.format("U+%04X", cp);
    }

    private static StoreException refused(Kind kind, String name, String what) {
        return StoreException.badArgument(kind + " '" + printable(name) + "' " + what
                + ": names are stored and compared exactly as written, so one that could be read two ways is refused");
    }

    /** The name with its control characters shown as \\uXXXX, so a message never carries them. */
    private static String printable(String name) {
        StringBuilder out = new StringBuilder(name.length());
        name.codePoints().forEach(cp -> {
            if (Character.getType(cp) == Character.CONTROL || isLoneSurrogate(cp)) {
                out.append(String.format("\\u%04X", cp));
            } else {
                out.appendCodePoint(cp);
            }
        });
        return out.toString();
    }
}
