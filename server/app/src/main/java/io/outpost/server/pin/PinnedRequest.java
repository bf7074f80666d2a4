package io.outpost.server.pin;

import io.outpost.server.query.BadQueryException;
import io.outpost.server.query.Op;
import io.outpost.server.query.Query;
import io.outpost.server.query.QueryParser;
import java.util.regex.Pattern;

/**
 * One request of the global-tag and pinned part of the native API (docs/api.md), parsed from its path:
 * {@code globaltags}, {@code resolve/{gt}}, {@code state/{tag}{subtree}}, {@code snapshot/{tag}/{t}{subtree}},
 * {@code pin/{state}/snapshot/{tag}/{t}{subtree}} and {@code pin/{generation}/{channels|at|browse|count}/…}.
 *
 * @param tag     a global tag or HEAD (GLOBALTAGS: "")
 * @param subtree the folderset or folder a state or snapshot is restricted to, "/" for all
 * @param pin     the state hash or generation token the URL is pinned to, or null
 * @param read    the pinned folder read (PINNED_READ only)
 * @param keys    the snapshot's key or keys (other types: key 0)
 */
public record PinnedRequest(Query.Format format, Type type, String tag, String subtree, SnapshotKeys keys, String pin,
                            GenerationToken token, Query read) {

    public enum Type { GLOBALTAGS, RESOLVE, STATE, SNAPSHOT, PINNED_SNAPSHOT, PINNED_READ }

    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}");
    private static final Pattern NODE_PATH = Pattern.compile("(/[A-Za-z0-9_][A-Za-z0-9_.-]{0,63})+");
    private static final Pattern STATE_HASH = Pattern.compile("[0-9a-f]{16}");
    private static final SnapshotKeys NO_KEY = SnapshotKeys.one(0);

    /** True when {@code rawPath} belongs to this part of the API (the word after the format). */

    public static PinnedRequest parse(String rawPath) {
        if (rawPath.length() > QueryParser.MAX_PATH) {
            throw new BadQueryException(414, "the URL is " + rawPath.length() + " characters long; the limit is "
                    + QueryParser.MAX_PATH);
        }
        String p = rawPath;
        while (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        String[] s = p.substring("/v1/".length()).split("/", -1);
        Query.Format format = switch (s[0]) {
            case "bin" -> Query.Format.BIN;
            case "json" -> Query.Format.JSON;
            default -> throw new BadQueryException("format '" + s[0] + "' must be bin or json");
        };
        switch (s[1]) {
            case "globaltags" -> {
                if (s.length != 2) {
                    throw new BadQueryException("/v1/" + s[0] + "/globaltags takes no further path");
                }
                return new PinnedRequest(format, Type.GLOBALTAGS, "", "/", NO_KEY, null, null, null);
            }
            case "resolve" -> {
                if (s.length != 3) {
                    throw new BadQueryException("expected /v1/" + s[0] + "/resolve/{globaltag}");
                }
                return new PinnedRequest(format, Type.RESOLVE, tag(s[2], false), "/", NO_KEY, null, null, null);
            }
            case "state" -> {
                if (s.length < 3) {
                    throw new BadQueryException("expected /v1/" + s[0] + "/state/{globaltag|HEAD}{subtree}");
                }
                return new PinnedRequest(format, Type.STATE, tag(s[2], true), subtree(s, 3), NO_KEY, null, null, null);
            }
            case "snapshot" -> {
                if (s.length < 4) {
                    throw new BadQueryException("expected /v1/" + s[0] + "/snapshot/{globaltag|HEAD}/{t}{subtree}, where {t} is a key or {time},{runlumi}");
                }
                return new PinnedRequest(format, Type.SNAPSHOT, tag(s[2], true), subtree(s, 4), keys(s[3]), null, null,
                        null);
            }
            case "pin" -> {
                if (s.length < 4) {
                    throw new BadQueryException("expected /v1/" + s[0] + "/pin/{generation}/{query} or /v1/" + s[0]
                            + "/pin/{state}/snapshot/{globaltag|HEAD}/{t}{subtree}, where {t} is a key or {time},{runlumi}");
                }
                if (s[3].equals("snapshot")) {
                    if (!STATE_HASH.matcher(s[2]).matches()) {
                        throw new BadQueryException("state '" + abbreviate(s[2]) + "' must be the 16 hexadecimal digits"
                                + " of X-Outpost-State");
                    }
                    if (s.length < 6) {
                        throw new BadQueryException("expected /v1/" + s[0] + "/pin/{state}/snapshot/{globaltag|HEAD}/{t}");
                    }
                    return new PinnedRequest(format, Type.PINNED_SNAPSHOT, tag(s[4], true), subtree(s, 6), keys(s[5]),
                            s[2], null, null);
                }
                GenerationToken token = GenerationToken.parse(s[2]);
                StringBuilder rest = new StringBuilder("/v1/").append(s[0]);
                for (int i = 3; i < s.length; i++) {
                    rest.append('/').append(s[i]);
                }
                Query q = QueryParser.parse(rest.toString());
                if (q.op() != Op.AT && q.op() != Op.BROWSE && q.op() != Op.COUNT && q.op() != Op.CHANNELS) {
                    throw new BadQueryException("a generation pins folder reads (at, browse, count, channels), not '"
                            + q.op().word() + "'; node and tag lists are covered by the state");
                }
                return new PinnedRequest(format, Type.PINNED_READ, q.tag(), q.path(), NO_KEY, s[2], token, q);
            }
            default -> throw new BadQueryException("'" + s[1] + "' is not a query");
        }
    }

    /** The single URL of this request; other spellings are redirected to it. */
    public String canonicalPath() {
        String f = "/v1/" + format.word();
        String sub = subtree.equals("/") ? "" : subtree;
        return switch (type) {
            case GLOBALTAGS -> f + "/globaltags";
            case RESOLVE -> f + "/resolve/" + tag;
            case STATE -> f + "/state/" + tag + sub;
            case SNAPSHOT -> f + "/snapshot/" + tag + "/" + keys.path() + sub;
            case PINNED_SNAPSHOT -> f + "/pin/" + pin + "/snapshot/" + tag + "/" + keys.path() + sub;
            case PINNED_READ -> PinnedReads.pinnedPath(read, token);
        };
    }

    private static String tag(String s, boolean headAllowed) {
        if (!TAG.matcher(s).matches()) {
            throw new BadQueryException("global tag '" + abbreviate(s) + "' must be a tag name (letters, digits, _ . -)"
                    + (headAllowed ? " or HEAD" : ""));
        }
        if (!headAllowed && s.equals("HEAD")) {
            throw new BadQueryException("HEAD is not a global tag: resolve a global tag, or ask /state/HEAD");
        }
        return s;
    }

    private static String subtree(String[] s, int from) {
        if (s.length <= from) {
            return "/";
        }
        StringBuilder b = new StringBuilder();
        for (int i = from; i < s.length; i++) {
            b.append('/').append(s[i]);
        }
        String path = b.toString();
        if (!NODE_PATH.matcher(path).matches()) {
            throw new BadQueryException("'" + abbreviate(path) + "' is not a folder path like /A/B/C");
        }
        return path;
    }

    /** {@code t}, or {@code time,runlumi} (docs/api.md, "Mixed key types"). */
    private static SnapshotKeys keys(String spelled) {
        // a client that percent-encodes the comma is redirected to the canonical spelling
        String s = spelled.replace("%2C", ",").replace("%2c", ",");
        int comma = s.indexOf(',');
        if (comma < 0) {
            return SnapshotKeys.one(key(s));
        }
        if (s.indexOf(',', comma + 1) >= 0) {
            throw new BadQueryException("keys '" + abbreviate(s) + "' must be one key, or a time and a run-lumi key"
                    + " as {time},{runlumi}");
        }
        return SnapshotKeys.of(key(s.substring(0, comma)), key(s.substring(comma + 1)));
    }

    private static long key(String s) {
        boolean digits = !s.isEmpty() && s.length() <= 19 && s.chars().allMatch(c -> c >= '0' && c <= '9');
        if (!digits) {
            throw new BadQueryException("key '" + abbreviate(s) + "' is not a key: "
                    + io.outpost.store.model.KeyText.urlForms(s));
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new BadQueryException("key '" + s + "' is over the largest key 9223372036854775807");
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 64 ? s.substring(0, 64) + "…" : s;
    }
}
