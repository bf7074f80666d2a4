package io.outpost.server.query;

import io.outpost.server.answer.JsonEncoder;
import io.outpost.wire.TableEncoder;
import io.outpost.store.model.ChannelOrder;
import io.outpost.store.model.ChannelSelection;
import io.outpost.wire.AnswerEncoder;
import io.outpost.wire.Codec;

/**
 * One native query, parsed from its URL path. {@link #canonicalPath()} is the single URL of this query; the
 * cache is keyed by it.
 */
public record Query(Format format, Op op, String tag, long t1, long t2, ChannelSelection channels, String path) {

    /**
     * The answer format, the first word of the path: each codec has its own canonical URL, so caches never mix
     * them (and need no Vary).
     */
    public enum Format {
        /** Binary (docs/wire-format.md) with the configured codec, {@code outpost.cache.codec} (zstd by default). */
        BIN,
        /** Binary with zlib whatever the configuration: readable with any zlib, e.g. Python's standard library. */
        BINZ,
        JSON;

        public String word() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** The format a path's first word names. */
        public static Format of(String word) {
            return switch (word) {
                case "bin" -> BIN;
                case "binz" -> BINZ;
                case "json" -> JSON;
                default -> throw new BadQueryException("format '" + word + "' must be bin, binz or json");
            };
        }

        /** An encoder of this format; {@code codec} and {@code level} are the configured binary compression. */
        public TableEncoder encoder(Codec codec, int level) {
            return switch (this) {
                case BIN -> new AnswerEncoder(codec, level);
                case BINZ -> new AnswerEncoder(Codec.ZLIB, Math.min(level, 9));
                case JSON -> new JsonEncoder();
            };
        }
    }

    public String canonicalPath() {
        StringBuilder b = new StringBuilder(96).append("/v1/").append(format.word()).append('/').append(op.word());
        switch (op) {
            case NODES -> {
                return b.toString();
            }
            case CHANNELS, TAGS -> b.append(path);
            case TAG -> b.append('/').append(tag).append(path);
            case AT -> b.append('/').append(tag).append('/').append(t1).append('/')
                    .append(ChannelSpelling.format(channels)).append(path);
            case BROWSE -> b.append('/').append(tag).append('/').append(t1).append('/').append(t2).append('/')
                    .append(ChannelSpelling.format(channels)).append('/').append(orderWord(channels.order())).append(path);
            case COUNT -> b.append('/').append(tag).append('/').append(t1).append('/').append(t2).append('/')
                    .append(ChannelSpelling.format(channels)).append(path);
        }
        return b.toString();
    }

    /** The same query in the other format (used to key generation-independent things). */
    public Query withFormat(Format f) {
        return new Query(f, op, tag, t1, t2, channels, path);
    }

    static String orderWord(ChannelOrder o) {
        return switch (o) {
            case CHANNEL_BEFORE_SINCE -> "cs";
            case SINCE_BEFORE_CHANNEL -> "sc";
            case CHANNEL_BEFORE_SINCE_DESC -> "csd";
            case SINCE_DESC_BEFORE_CHANNEL -> "sdc";
        };
    }

    static ChannelOrder order(String w) {
        return switch (w) {
            case "cs" -> ChannelOrder.CHANNEL_BEFORE_SINCE;
            case "sc" -> ChannelOrder.SINCE_BEFORE_CHANNEL;
            case "csd" -> ChannelOrder.CHANNEL_BEFORE_SINCE_DESC;
            case "sdc" -> ChannelOrder.SINCE_DESC_BEFORE_CHANNEL;
            default -> throw new BadQueryException("order '" + w + "' must be cs, sc, csd or sdc");
        };
    }
}
