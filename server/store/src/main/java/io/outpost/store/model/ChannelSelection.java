package io.outpost.store.model;

import io.outpost.store.StoreException;
import java.util.ArrayList;
import java.util.List;

/**
 * Which channels a read covers: all, ascending non-overlapping id ranges (one id is a range of one), or one
 * channel name; plus the order of the results.
 */
public record ChannelSelection(List<Range> ranges, String name, ChannelOrder order) {
    /** COOL sends at most 50 ranges as one OR; more would make the SQL text unbounded. */
    public static final int MAX_RANGES = 50;

    public record Range(long first, long last) {
        public boolean contains(long id) {
            return id >= first && id <= last;
        }
    }

    public ChannelSelection {
        ranges = ranges == null ? null : List.copyOf(ranges);
        order = order == null ? ChannelOrder.CHANNEL_BEFORE_SINCE : order;
        if (ranges != null && name != null) {
            throw StoreException.badArgument("a channel selection is either id ranges or a name, not both");
        }
        if (ranges != null) {
            if (ranges.isEmpty()) {
                throw StoreException.badArgument("a channel selection needs at least one range");
            }
            if (ranges.size() > MAX_RANGES) {
                throw StoreException.badArgument("at most " + MAX_RANGES + " channel ranges, got " + ranges.size());
            }
            long prevLast = -1;
            for (Range r : ranges) {
                if (r.first < 0 || r.last > Channel.MAX_ID || r.first > r.last) {
                    throw StoreException.badArgument("channel range " + r.first + "-" + r.last
                            + " must satisfy 0 <= first <= last <= " + Channel.MAX_ID);
                }
                if (r.first <= prevLast) {
                    throw StoreException.badArgument("channel ranges must be ascending and must not overlap");
                }
                prevLast = r.last;
            }
        }
    }

    public static ChannelSelection all() {
        return new ChannelSelection(null, null, null);
    }

    public static ChannelSelection channel(long id) {
        return new ChannelSelection(List.of(new Range(id, id)), null, null);
    }

    public static ChannelSelection range(long first, long last) {
        return new ChannelSelection(List.of(new Range(first, last)), null, null);
    }

    public static ChannelSelection ranges(List<Range> ranges) {
        return new ChannelSelection(new ArrayList<>(ranges), null, null);
    }

    public static ChannelSelection named(String name) {
        return new ChannelSelection(null, name, null);
    }

    public ChannelSelection withOrder(ChannelOrder o) {
        return new ChannelSelection(ranges, name, o);
    }

    public boolean isAll() {
        return ranges == null && name == null;
    }

    public boolean isSingleChannel() {
        return ranges != null && ranges.size() == 1 && ranges.get(0).first == ranges.get(0).last;
    }

    public boolean contains(Channel c) {
        if (isAll()) {
            return true;
        }
        if (name != null) {
            return name.equals(c.name());
        }
        for (Range r : ranges) {
            if (r.contains(c.id())) {
                return true;
            }
        }
        return false;
    }
}
