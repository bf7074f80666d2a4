package io.outpost.client;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Which channels a query is about: all of them, a set of channel ranges, or one channel by name. Spelled in URLs
 * exactly as docs/api.md's canonical {@code {channels}}: ranges sorted, merged where they overlap or touch, a range
 * of one written {@code N}; names percent-encoded with upper-case escapes.
 */
public final class ChannelSelection {
    /** Largest channel number (channels are UInt32). */
    public static final long MAX_CHANNEL = 0xFFFF_FFFFL;

    private static final ChannelSelection ALL = new ChannelSelection("all", List.of(), null);

    private final String pathSegment;
    private final List<long[]> ranges;
    private final String name;

    private ChannelSelection(String pathSegment, List<long[]> ranges, String name) {
        this.pathSegment = pathSegment;
        this.ranges = ranges;
        this.name = name;
    }

    public static ChannelSelection all() {
        return ALL;
    }

    public static ChannelSelection channel(long channel) {
        return range(channel, channel);
    }

    public static ChannelSelection channels(long... channels) {
        List<long[]> rs = new ArrayList<>();
        for (long c : channels) {
            rs.add(new long[] {c, c});
        }
        return ofRanges(rs);
    }

    /** Channels {@code first} to {@code last}, both included. */
    public static ChannelSelection range(long first, long last) {
        return ofRanges(List.<long[]>of(new long[] {first, last}));
    }

    /** One channel by its name. */
    public static ChannelSelection named(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("channel name is empty");
        }
        return new ChannelSelection("name:" + percentEncode(name), List.of(), name);
    }

    /**
     * Parses the spellings a user types: {@code all}, {@code 3}, {@code 1-10}, {@code 1-4,7,9-12} (any order, any
     * overlaps), or {@code name:X} (X as typed, not encoded: a channel name is exactly what follows "name:", white
     * space included, so "name:ch0 " never selects ch0).
     */
    public static ChannelSelection parse(String text) {
        if (text.stripLeading().startsWith("name:")) {
            return named(text.stripLeading().substring(5));
        }
        String s = text.strip();
        if (s.equalsIgnoreCase("all") || s.equals("*")) {
            return ALL;
        }
        List<long[]> rs = new ArrayList<>();
        for (String part : s.split(",")) {
            String p = part.strip();
            int dash = p.indexOf('-', 1);
            try {
                if (dash < 0) {
                    long c = Long.parseLong(p);
                    rs.add(new long[] {c, c});
                } else {
                    rs.add(new long[] {Long.parseLong(p.substring(0, dash).strip()),
                            Long.parseLong(p.substring(dash + 1).strip())});
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad channel selection '" + text
                        + "': use all, N, N-M, a comma-separated list of those, or name:X");
            }
        }
        return ofRanges(rs);
    }

    private static ChannelSelection ofRanges(List<long[]> input) {
        if (input.isEmpty()) {
            throw new IllegalArgumentException("no channels selected");
        }
        List<long[]> sorted = new ArrayList<>();
        for (long[] r : input) {
            if (r[0] < 0 || r[1] > MAX_CHANNEL || r[0] > r[1]) {
                throw new IllegalArgumentException("bad channel range " + r[0] + "-" + r[1]
                        + " (channels are 0.." + MAX_CHANNEL + ", first <= last)");
            }
            sorted.add(r.clone());
        }
        sorted.sort(Comparator.comparingLong(r -> r[0]));
        List<long[]> merged = new ArrayList<>();
        for (long[] r : sorted) {
            long[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
            if (last != null && r[0] <= last[1] + 1) {
                last[1] = Math.max(last[1], r[1]);
            } else {
                merged.add(r);
            }
        }
        StringBuilder sb = new StringBuilder();
        for (long[] r : merged) {
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(r[0]);
            if (r[1] != r[0]) {
                sb.append('-').append(r[1]);
            }
        }
        return new ChannelSelection(sb.toString(), List.copyOf(merged), null);
    }

    public boolean isAll() {
        return this == ALL;
    }

    /** The channel name of a by-name selection, else null. */
    public String name() {
        return name;
    }

    /** True if a numeric selection (or all) contains this channel; a by-name selection answers true. */
    public boolean contains(long channel) {
        if (this == ALL || name != null) {
            return true;
        }
        for (long[] r : ranges) {
            if (channel >= r[0] && channel <= r[1]) {
                return true;
            }
        }
        return false;
    }

    /** The canonical {@code {channels}} URL segment. */
    public String pathSegment() {
        return pathSegment;
    }

    /** RFC 3986 percent-encoding: unreserved characters kept, every other UTF-8 byte as upper-case {@code %XX}. */
    static String percentEncode(String s) {
        StringBuilder sb = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '.' || c == '_' || c == '~') {
                sb.append((char) c);
            } else {
                sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            }
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChannelSelection c && c.pathSegment.equals(pathSegment);
    }

    @Override
    public int hashCode() {
        return pathSegment.hashCode();
    }

    @Override
    public String toString() {
        return pathSegment;
    }
}
