package io.outpost.client;

import io.outpost.wire.AnswerDecoder;
import io.outpost.wire.AnswerHeader;
import io.outpost.wire.CorruptAnswerException;
import io.outpost.wire.Schema;
import java.io.IOException;
import java.net.SocketTimeoutException;

/**
 * The IOVs of a browse, decoded one at a time from the HTTP body while it arrives, so answers of any size pass in
 * constant memory. The answer's CRC-32 and row count are checked when the last row has been read: {@link #next()}
 * then returns null, or throws {@link OutpostException.Kind#CORRUPT} if the answer was not whole (rows already
 * returned must then be discarded; run the browse again). Close it (try-with-resources) to release the connection.
 * Not thread-safe.
 *
 * <pre>{@code
 * try (IovStream s = client.browseStream("/A/B", "HEAD", 0, Keys.MAX, ChannelSelection.all(), Order.CHANNEL_SINCE)) {
 *     for (Iov iov; (iov = s.next()) != null; ) { ... }
 * }
 * }</pre>
 */
public final class IovStream implements AutoCloseable {
    private final String path;
    private final AnswerDecoder decoder;
    private final AnswerHeader header;
    private final Schema payload;

    IovStream(String path, AnswerDecoder decoder, AnswerHeader header) {
        this.path = path;
        this.decoder = decoder;
        this.header = header;
        this.payload = header.schema().suffix(3);
    }

    public String folder() {
        return header.folder();
    }

    public String tag() {
        return header.tag();
    }

    /** Every column of the answer: channel, since, until, then the payload's. */
    public Schema schema() {
        return header.schema();
    }

    /** The answer's validity range as its header gives it (0, 0 for a browse). */
    public long validSince() {
        return header.validSince();
    }

    public long validUntil() {
        return header.validUntil();
    }

    /** The payload columns (all columns after channel, since, until). */
    public Schema payloadSchema() {
        return payload;
    }

    /** The encoded size of the answer (header + body + trailer). */
    public long encodedBytes() {
        return header.encodedLength();
    }

    /** The next IOV, or null after the last one once the whole answer has been verified. */
    public Iov next() throws OutpostException {
        Object[] v;
        try {
            v = decoder.nextRow();
        } catch (CorruptAnswerException e) {
            throw failed(OutpostException.Kind.CORRUPT, e.getMessage(), e);
        } catch (SocketTimeoutException e) {
            throw failed(OutpostException.Kind.TIMEOUT, "read timeout", e);
        } catch (java.net.SocketException e) {
            throw failed(OutpostException.Kind.UNAVAILABLE, "transfer broke: " + e, e);
        } catch (IOException e) {
            throw failed(OutpostException.Kind.CORRUPT, "truncated answer: " + e, e);
        }
        if (v == null) {
            return null;
        }
        Object[] p = new Object[v.length - 3];
        System.arraycopy(v, 3, p, 0, p.length);
        return new Iov((Long) v[0], (Long) v[1], (Long) v[2], new Row(payload, p));
    }

    /** Rows returned so far. */
    public long rowsRead() {
        return decoder.rowsRead();
    }

    private OutpostException failed(OutpostException.Kind kind, String detail, Exception cause) {
        return new OutpostException(kind, "GET " + path + " failed after " + decoder.rowsRead()
                + " rows: " + detail, 200, cause);
    }

    @Override
    public void close() {
        try {
            decoder.close();
        } catch (IOException e) {
            // Nothing to do: the connection is dropped either way.
        }
    }
}
