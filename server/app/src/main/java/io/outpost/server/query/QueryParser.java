package io.outpost.server.query;

import io.outpost.store.model.ChannelOrder;
import io.outpost.store.model.ChannelSelection;
import java.util.regex.Pattern;

/**
 * Parses a native API path into a {@link Query}. Lenient on spelling (the caller redirects to the canonical
 * path), strict on meaning: anything that cannot be a query is a {@link BadQueryException} saying why.
 */
public final class QueryParser {
    public static final int MAX_PATH = 16 * 1024;
    private static final Pattern NODE_PATH = Pattern.compile("(/[A-Za-z0-9_][A-Za-z0-9_.-]{0,63})+");
    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}");

    private QueryParser() {
    }

    public static Query parse(String rawPath) {
        if (rawPath.length() > MAX_PATH) {
            throw new BadQueryException(414, "the URL is " + rawPath.length() + " characters long; the limit is " + MAX_PATH);
        }
        String p = rawPath;
        while (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        if (!p.startsWith("/v1/")) {
            throw new BadQueryException(404, "native queries start with /v1/{bin|binz|json}/");
        }
        String[] s = p.substring(4).split("/", -1);
        if (s.length < 2) {
            throw new BadQueryException("expected /v1/{bin|binz|json}/{nodes|channels|tags|tag|at|browse|count}/...");
        }
        Query.Format format = Query.Format.of(s[0]);
        Op op = Op.fromWord(s[1]);
        if (op == null) {
            throw new BadQueryException("'" + s[1] + "' is not a query: use nodes, channels, tags, tag, at, browse or count");
        }
        int fixed = switch (op) {
            case NODES, CHANNELS, TAGS -> 0;
            case TAG -> 1;
            case AT -> 3;
            case COUNT -> 4;
            case BROWSE -> 5;
        };
        if (op == Op.NODES) {
            if (s.length != 2) {
                throw new BadQueryException("/v1/" + s[0] + "/nodes takes no further path");
            }
            return new Query(format, op, "", 0, 0, ChannelSelection.all(), "");
        }
        if (s.length < 2 + fixed + 1) {
            throw new BadQueryException("'" + op.word() + "' needs " + (fixed == 0 ? "" : fixed + " parameters and ")
                    + "a folder path; see docs/api.md");
        }
        StringBuilder path = new StringBuilder();
        for (int i = 2 + fixed; i < s.length; i++) {
            path.append('/').append(s[i]);
        }
        String nodePath = path.toString();
        if (!NODE_PATH.matcher(nodePath).matches()) {
            throw new BadQueryException("'" + nodePath + "' is not a folder path like /A/B/C");
        }
        String tag = "";
        long t1 = 0;
        long t2 = 0;
        ChannelSelection channels = ChannelSelection.all();
        if (fixed > 0) {
            tag = s[2];
            if (!TAG.matcher(tag).matches()) {
                throw new BadQueryException("tag '" + tag + "' must be HEAD or a tag name (letters, digits, _ . -)");
            }
        }
        switch (op) {
            case AT -> {
                t1 = Keys.parseNumber(s[3], "key");
                t2 = t1;
                channels = ChannelSpelling.parse(s[4]);
            }
            case COUNT, BROWSE -> {
                t1 = Keys.parseNumber(s[3], "first key");
                t2 = Keys.parseNumber(s[4], "last key");
                if (t1 > t2) {
                    throw new BadQueryException("first key " + t1 + " is after last key " + t2
                            + ": the range [t1, t2] is empty");
                }
                channels = ChannelSpelling.parse(s[5]);
                if (op == Op.BROWSE) {
                    ChannelOrder order = Query.order(s[6]);
                    channels = channels.withOrder(order);
                }
            }
            default -> { }
        }
        return new Query(format, op, tag, t1, t2, channels, nodePath);
    }
}
