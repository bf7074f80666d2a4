package io.outpost.frontier.sql;

import io.outpost.store.db.Layer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * One of COOL's reads recognised by {@link CoolReads} before its literals are known: the statement it was recognised
 * in may be a shape whose integer literals are sentinels ({@link IntegerLiterals}); {@link #withLiterals} puts the
 * statement's own back, and {@link #read} gives the values.
 *
 * @param kind          the layer's kind (its id, a literal, is among the conditions)
 * @param probeKey      the COALESCE's default key
 * @param probeBound    the key the MAX(IOV_SINCE) probe is bounded by (the same key in COOL's reads)
 * @param literals      the statement's literals in sentinel order, or null when the literals are the values
 */
public record CoolReadTemplate(String iovTable, Layer.Kind kind, boolean joinsChannels, List<CoolRead.Selected> columns,
                               long probeKey, long probeBound, List<Condition> conditions, List<String> literals) {
    /** A bound the statement puts on the layer's rows, or a layer filter: the column compared, how, and the literal. */
    enum Bound { SINCE_AT_MOST, SINCE_BELOW, UNTIL_ABOVE, UNTIL_AT_LEAST, CHANNEL_IS, CHANNEL_AT_LEAST, CHANNEL_ABOVE,
        CHANNEL_AT_MOST, CHANNEL_BELOW, USER_TAG_IS, NEW_HEAD_IS, TAG_IS, PROBE_USER_TAG_IS, PROBE_NEW_HEAD_IS,
        PROBE_TAG_IS }

    record Condition(Bound bound, long literal) {
    }

    public CoolReadTemplate {
        columns = List.copyOf(columns);
        conditions = List.copyOf(conditions);
    }

    /** The same read in a statement of this shape whose literals are {@code values}. */
    CoolReadTemplate withLiterals(List<String> values) {
        return new CoolReadTemplate(iovTable, kind, joinsChannels, columns, probeKey, probeBound, conditions, values);
    }

    /** The read with its values, or null when they make it something other than COOL's read. */
    public CoolRead read() {
        try {
            long t = value(probeKey);
            if (value(probeBound) != t) {
                return null;
            }
            long sinceAtMost = Long.MAX_VALUE;
            long untilAfter = Long.MIN_VALUE;
            long first = Long.MIN_VALUE;
            long last = Long.MAX_VALUE;
            Map<Bound, Long> filters = new EnumMap<>(Bound.class);
            for (Condition c : conditions) {
                long v = value(c.literal());
                switch (c.bound()) {
                    case SINCE_AT_MOST -> sinceAtMost = Math.min(sinceAtMost, v);
                    case SINCE_BELOW -> sinceAtMost = Math.min(sinceAtMost, Math.subtractExact(v, 1));
                    case UNTIL_ABOVE -> untilAfter = Math.max(untilAfter, v);
                    case UNTIL_AT_LEAST -> untilAfter = Math.max(untilAfter, Math.subtractExact(v, 1));
                    case CHANNEL_IS -> {
                        first = Math.max(first, v);
                        last = Math.min(last, v);
                    }
                    case CHANNEL_AT_LEAST -> first = Math.max(first, v);
                    case CHANNEL_ABOVE -> first = Math.max(first, Math.addExact(v, 1));
                    case CHANNEL_AT_MOST -> last = Math.min(last, v);
                    case CHANNEL_BELOW -> last = Math.min(last, Math.subtractExact(v, 1));
                    default -> filters.put(c.bound(), v); // each at most once (Shape)
                }
            }
            Layer layer = layer(filters);
            return layer == null ? null
                    : new CoolRead(iovTable, layer, joinsChannels, columns, t, sinceAtMost, untilAfter, first, last);
        } catch (ArithmeticException | NumberFormatException | IndexOutOfBoundsException e) {
            return null; // a literal at the end of the key range: the database answers
        }
    }

    /** The layer the filters' values name: the same in the main block and the probe, NEW_HEAD_ID 0; else null. */
    private Layer layer(Map<Bound, Long> f) {
        return switch (kind) {
            case SINGLE_VERSION -> Layer.SV;
            case USER_TAG -> f.get(Bound.USER_TAG_IS).equals(f.get(Bound.PROBE_USER_TAG_IS))
                    && f.get(Bound.NEW_HEAD_IS) == 0 && f.get(Bound.PROBE_NEW_HEAD_IS) == 0
                    && f.get(Bound.USER_TAG_IS) >= 0 ? Layer.userTag(f.get(Bound.USER_TAG_IS)) : null;
            case STANDARD_TAG -> f.get(Bound.TAG_IS).equals(f.get(Bound.PROBE_TAG_IS)) && f.get(Bound.TAG_IS) > 0
                    ? Layer.standardTag(f.get(Bound.TAG_IS)) : null;
        };
    }

    private long value(long literal) {
        return literals == null ? literal : Long.parseLong(literals.get(IntegerLiterals.sentinelIndex(literal)));
    }
}
