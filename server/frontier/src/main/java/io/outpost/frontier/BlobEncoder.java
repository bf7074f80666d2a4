package io.outpost.frontier;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;

/**
 * The payload body of a Frontier response: the binary record stream (strings {@code 0x06 len bytes}, NULL
 * {@code 0x86}, end of record {@code 0x07}), optionally zlib-compressed, MD5 over the (compressed) bytes, then
 * base64 in 76-column lines joined by {@code \n} with no final newline.
 */
public final class BlobEncoder implements AutoCloseable {
    public static final byte ARRAY_BYTE = 0x06;
    public static final byte EOR = 0x07;
    public static final byte NULL_ARRAY_BYTE = (byte) 0x86;

    private final DataOutputStream data;
    private final DeflaterOutputStream deflater;
    private final Deflater def;
    private final MessageDigest md5;
    private final OutputStream base64;
    private long fullSize;
    private boolean closed;

    /**
     * @param zipLevel -1 for {@code BLOB}, else the zlib level 0-9
     */
    public BlobEncoder(OutputStream sink, int zipLevel) {
        try {
            md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        base64 = Base64.getMimeEncoder(76, new byte[] {'\n'}).wrap(new FilterOutputStream(sink) {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
            }

            @Override
            public void close() {
                // the response stream stays open
            }
        });
        OutputStream digested = new DigestOutputStream(base64, md5);
        OutputStream raw;
        if (zipLevel >= 0) {
            def = new Deflater(zipLevel);
            deflater = new DeflaterOutputStream(digested, def, 16384);
            raw = deflater;
        } else {
            def = null;
            deflater = null;
            raw = digested;
        }
        data = new DataOutputStream(new BufferedOutputStream(raw, 16384));
    }

    /**
     * Parses an encoding name: {@code BLOB} → -1, {@code BLOBzip} → 5, {@code BLOBzipN} → N (0-9).
     */
    public static int zipLevel(String encoding) throws FrontierException {
        if (encoding == null || !encoding.startsWith("BLOB")) {
            throw new FrontierException("Unsupported encoder: " + encoding);
        }
        String p = encoding.substring(4);
        if (p.isEmpty()) {
            return -1;
        }
        if (!p.startsWith("zip")) {
            throw new FrontierException("Unsupported encoder parameter: " + p);
        }
        String level = p.substring(3);
        if (level.isEmpty()) {
            return 5;
        }
        if (level.length() != 1 || level.charAt(0) < '0' || level.charAt(0) > '9') {
            throw new FrontierException("Invalid zip level: " + level);
        }
        return level.charAt(0) - '0';
    }

    /** A string column value; null is sent as {@code 0x86}. Each char is sent as its low byte (as upstream). */
    private byte[] scratch = new byte[256];

    @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int) is exactly "low byte of each char"
    public void writeString(String s) throws IOException {
        if (s == null) {
            data.write(NULL_ARRAY_BYTE);
            fullSize += 1;
            return;
        }
        int n = s.length();
        data.write(ARRAY_BYTE);
        data.writeInt(n);
        // Each character as its low byte, as upstream; one bulk copy instead of a write per character.
        if (scratch.length < n) {
            scratch = new byte[Math.max(n, scratch.length * 2)];
        }
        s.getBytes(0, n, scratch, 0);
        data.write(scratch, 0, n);
        fullSize += 5 + n;
    }

    public void writeBytes(byte[] b) throws IOException {
        if (b == null) {
            writeString(null);
            return;
        }
        data.write(ARRAY_BYTE);
        data.writeInt(b.length);
        data.write(b);
        fullSize += 5 + b.length;
    }

    public void writeStream(InputStream in, long length) throws IOException {
        data.write(ARRAY_BYTE);
        data.writeInt((int) length);
        long copied = in.transferTo(data);
        if (copied != length) {
            throw new IOException("BLOB length " + length + " but " + copied + " bytes read");
        }
        fullSize += 5 + length;
    }

    public void writeEOR() throws IOException {
        data.write(EOR);
        fullSize += 1;
    }

    /** Uncompressed size so far (the {@code full_size} attribute). */
    public long fullSize() {
        return fullSize;
    }

    /** Finishes compression and base64 (padding). Safe to call twice. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            data.flush();
            if (deflater != null) {
                deflater.finish();
            }
            base64.close();
        } finally {
            if (def != null) {
                def.end();
            }
        }
    }

    /** Lower-case hex MD5 of the bytes base64-encoded so far (call after {@link #close}). */
    public String md5Hex() {
        try {
            return HexFormat.of().formatHex(((MessageDigest) md5.clone()).digest());
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(e);
        }
    }
}
