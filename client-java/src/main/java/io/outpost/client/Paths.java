package io.outpost.client;

import java.util.regex.Pattern;

/**
 * Canonical URL paths of the native API (binary format), exactly as docs/api.md spells them, so that every client asking the same
 * question produces byte-identical URLs and a cache holds one copy (never a 301 round trip).
 */
public final class Paths {
    static final String PREFIX = "/v1/bin";
    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_.\\-]+");

    private Paths() {
    }

    public static String nodes() {
        return PREFIX + "/nodes";
    }

    /** Every global tag: name, lock, description, insertion time. */
    public static String globalTags() {
        return PREFIX + "/globaltags";
    }

    public static String channels(String folder) {
        return PREFIX + "/channels" + encodePath(folder);
    }

    public static String tags(String node) {
        return PREFIX + "/tags" + encodePath(node);
    }

    public static String tag(String tag, String folder) {
        return PREFIX + "/tag/" + checkTag(tag) + encodePath(folder);
    }

    public static String at(String tag, long t, ChannelSelection channels, String folder) {
        return PREFIX + "/at/" + checkTag(tag) + "/" + checkKey(t) + "/" + channels.pathSegment() + encodePath(folder);
    }

    public static String browse(String tag, long t1, long t2, ChannelSelection channels, Order order, String folder) {
        checkRange(t1, t2);
        return PREFIX + "/browse/" + checkTag(tag) + "/" + t1 + "/" + t2 + "/" + channels.pathSegment() + "/"
                + order.code() + encodePath(folder);
    }

    public static String count(String tag, long t1, long t2, ChannelSelection channels, String folder) {
        checkRange(t1, t2);
        return PREFIX + "/count/" + checkTag(tag) + "/" + t1 + "/" + t2 + "/" + channels.pathSegment()
                + encodePath(folder);
    }

    /** Checks a folder or node path: starts with '/', no empty segment, no trailing '/'. Returns it. */
    public static String checkPath(String path) {
        if (path == null || !path.startsWith("/") || path.length() < 2 || path.endsWith("/") || path.contains("//")) {
            throw new IllegalArgumentException("a folder or node is a full path such as /DEMO/Calo/Pedestals, not '"
                    + path + "'");
        }
        return path;
    }

    public static String checkTag(String tag) {
        if (tag == null || !TAG.matcher(tag).matches()) {
            throw new IllegalArgumentException("a tag is HEAD or letters, digits, '_', '.', '-', not '" + tag + "'");
        }
        return tag;
    }

    public static long checkKey(long t) {
        if (t < 0) {
            throw new IllegalArgumentException("keys are 0.." + Keys.MAX + ", not " + t);
        }
        return t;
    }

    private static void checkRange(long t1, long t2) {
        checkKey(t1);
        checkKey(t2);
        if (t1 > t2) {
            throw new IllegalArgumentException("t1 > t2: " + t1 + " > " + t2);
        }
    }

    private static String encodePath(String path) {
        checkPath(path);
        StringBuilder sb = new StringBuilder();
        for (String seg : path.substring(1).split("/")) {
            sb.append('/').append(ChannelSelection.percentEncode(seg));
        }
        return sb.toString();
    }
}
