package io.outpost.server.query;

import io.outpost.store.model.Channel;
import io.outpost.store.model.ChannelSelection;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The URL spelling of a channel selection: {@code all}, {@code name:X}, or ranges like {@code 1-4,7,9-12}.
 * Parsing accepts any order and touching ranges; {@link #format} writes the one canonical spelling.
 */
public final class ChannelSpelling {
    private ChannelSpelling() {
    }

    public static ChannelSelection parse(String s) {
        if (s.equals("all")) {
            return ChannelSelection.all();
        }
        if (s.startsWith("name:")) {
            String name = percentDecode(s.substring(5));
            if (name.isEmpty()) {
                throw new BadQueryException("channel name is empty");
            }
            return ChannelSelection.named(name);
        }
        List<ChannelSelection.Range> ranges = new ArrayList<>();
        for (String part : s.split(",", -1)) {
            int dash = part.indexOf('-');
            long first = Keys.parseNumber(dash < 0 ? part : part.substring(0, dash), "channel id");
            long last = dash < 0 ? first : Keys.parseNumber(part.substring(dash + 1), "channel id");
            if (first > last || last > Channel.MAX_ID) {
                throw new BadQueryException("channel range '" + part + "' must be N or N-M with N <= M <= " + Channel.MAX_ID);
            }
            ranges.add(new ChannelSelection.Range(first, last));
        }
        ranges.sort(Comparator.comparingLong(ChannelSelection.Range::first));
        List<ChannelSelection.Range> merged = new ArrayList<>();
        for (ChannelSelection.Range r : ranges) {
            if (!merged.isEmpty() && r.first() <= merged.get(merged.size() - 1).last() + 1) {
                ChannelSelection.Range prev = merged.remove(merged.size() - 1);
                merged.add(new ChannelSelection.Range(prev.first(), Math.max(prev.last(), r.last())));
            } else {
                merged.add(r);
            }
        }
        if (merged.size() > ChannelSelection.MAX_RANGES) {
            throw new BadQueryException("at most " + ChannelSelection.MAX_RANGES + " channel ranges per query");
        }
        return ChannelSelection.ranges(merged);
    }

    public static String format(ChannelSelection sel) {
        if (sel.isAll()) {
            return "all";
        }
        if (sel.name() != null) {
            return "name:" + percentEncode(sel.name());
        }
        StringBuilder b = new StringBuilder();
        for (ChannelSelection.Range r : sel.ranges()) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(r.first());
            if (r.last() != r.first()) {
                b.append('-').append(r.last());
            }
        }
        return b.toString();
    }

    static String percentEncode(String s) {
        StringBuilder b = new StringBuilder();
        for (byte x : s.getBytes(StandardCharsets.UTF_8)) {
            int c = x & 0xFF;
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
                    || c == '_' || c == '~') {
                b.append((char) c);
            } else {
                b.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return b.toString();
    }

    static String percentDecode(String s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length()) {
                    throw new BadQueryException("incomplete percent escape in '" + s + "'");
                }
                int hi = Character.digit(s.charAt(i + 1), 16);
                int lo = Character.digit(s.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    throw new BadQueryException("bad percent escape in '" + s + "'");
                }
                out.write(hi * 16 + lo);
                i += 2;
            } else if (c < 0x80) {
                out.write(c);
            } else {
                throw new BadQueryException("non-ASCII character in a URL must be percent-encoded");
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
