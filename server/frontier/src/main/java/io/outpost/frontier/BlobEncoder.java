package io.outpost.frontier;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import org.slf4j.LoggerFactory;

/**
 * The payload body of a Frontier response: the binary record stream (strings {@code 0x06 len bytes}, NULL
 * {@code 0x86}, end of record {@code 0x07}), optionally zlib-compressed, MD5 over the (compressed) bytes, then
 * base64 in 76-column lines joined by {@code \n} with no final newline.
 *
 * <p>Records are collected in 64 KB chunks. With a compression executor, full chunks are deflated, digested and
 * base64-encoded there, in order, while the caller goes on reading rows from the database (deflate is as costly
 * as the read itself); at most {@link #IN_FLIGHT} chunks wait, so memory stays bounded whatever the answer size.
 *
 * <p>With libdeflate ({@link LibDeflate}), chunks are instead held until the answer is complete and compressed in
 * one call, which costs about half of zlib's time; an answer whose record stream outgrows {@link #WHOLE_LIMIT}
 * goes on through zlib as above, so memory stays bounded as well.
 */
public final class BlobEncoder implements AutoCloseable {
    public static final byte ARRAY_BYTE = 0x06;
    public static final byte EOR = 0x07;
    public static final byte NULL_ARRAY_BYTE = (byte) 0x86;
    static final int CHUNK = 64 * 1024;
    static final int IN_FLIGHT = 4;
    /** Record bytes held for one libdeflate call; a bigger answer is streamed through zlib. */
    static final int WHOLE_LIMIT = 2 << 20;
    /** System property: {@code jdk} compresses answers with java.util.zip even where libdeflate is present. */
    public static final String DEFLATE_PROPERTY = "outpost.frontier.deflate";

    private final DeflaterOutputStream deflater;
    private final Deflater def;
    private final MessageDigest md5;
    private final OutputStream base64;
    private final OutputStream raw;
    private final Executor compressor;
    private final OutputStream digested;
    private final int zipLevel;
    /** Set while the answer is held for one libdeflate call; null once streaming through zlib. */
    private LibDeflate whole;
    private byte[] held;
    private int heldLen;
    /** Spare chunk buffers, handed back by the compression side (pipelined mode). */
    private final BlockingQueue<byte[]> spare;
    private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);
    private byte[] buf = new byte[CHUNK];
    private int pos;
    private long fullSize;
    private boolean closed;

    /**
     * @param zipLevel -1 for {@code BLOB}, else the zlib level 0-9
     */
    public BlobEncoder(OutputStream sink, int zipLevel) {
        this(sink, zipLevel, null);
    }

    /**
     * @param compressor where chunks are compressed and encoded in order, overlapping the caller's work; null: in
     *                   the caller's thread
     */
    public BlobEncoder(OutputStream sink, int zipLevel, Executor compressor) {
        this(sink, zipLevel, compressor, null);
    }

    /**
     * The encoder of a Frontier answer: compressed by libdeflate when it is present (unless the system property
     * {@value #DEFLATE_PROPERTY} is {@code jdk}), else by zlib on {@code compressor} while rows are read.
     */
    public static BlobEncoder forAnswer(OutputStream sink, int zipLevel, Executor compressor) {
        LibDeflate lib = zipLevel < 0 || "jdk".equals(System.getProperty(DEFLATE_PROPERTY))
                ? null : LibDeflate.get().orElse(null);
        return new BlobEncoder(sink, zipLevel, compressor, lib);
    }

    /** Whether {@link #forAnswer} compresses with libdeflate in this JVM (the property aside). */
    public static boolean libdeflateAvailable() {
        return LibDeflate.get().isPresent();
    }

    BlobEncoder(OutputStream sink, int zipLevel, Executor compressor, LibDeflate whole) {
        this.zipLevel = zipLevel;
        this.whole = zipLevel >= 0 ? whole : null;
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
        digested = new DigestOutputStream(base64, md5);
        if (zipLevel >= 0) {
            def = new Deflater(zipLevel);
            deflater = new DeflaterOutputStream(digested, def, CHUNK);
            raw = deflater;
        } else {
            def = null;
            deflater = null;
            raw = digested;
        }
        this.compressor = zipLevel >= 0 ? compressor : null;
        this.spare = this.compressor == null ? null : new ArrayBlockingQueue<>(IN_FLIGHT);
        if (spare != null) {
            for (int i = 1; i < IN_FLIGHT; i++) {
                spare.add(new byte[CHUNK]);
            }
        }
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
    @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int) is exactly "low byte of each char"
    public void writeString(String s) throws IOException {
        if (s == null) {
            writeByte(NULL_ARRAY_BYTE);
            fullSize += 1;
            return;
        }
        int n = s.length();
        header(n);
        for (int off = 0; off < n; ) {
            int len = Math.min(n - off, room());
            s.getBytes(off, off + len, buf, pos);
            pos += len;
            off += len;
        }
        fullSize += 5 + n;
    }

    public void writeBytes(byte[] b) throws IOException {
        if (b == null) {
            writeString(null);
            return;
        }
        header(b.length);
        for (int off = 0; off < b.length; ) {
            int len = Math.min(b.length - off, room());
            System.arraycopy(b, off, buf, pos, len);
            pos += len;
            off += len;
        }
        fullSize += 5 + b.length;
    }

    public void writeStream(InputStream in, long length) throws IOException {
        header((int) length);
        long copied = 0;
        while (true) {
            int free = room(); // may start a new chunk: read buf and pos after it
            int n = in.read(buf, pos, free);
            if (n < 0) {
                break;
            }
            pos += n;
            copied += n;
        }
        if (copied != length) {
            throw new IOException("BLOB length " + length + " but " + copied + " bytes read");
        }
        fullSize += 5 + length;
    }

    public void writeEOR() throws IOException {
        writeByte(EOR);
        fullSize += 1;
    }

    private void header(int length) throws IOException {
        if (CHUNK - pos < 5) {
            emit();
        }
        buf[pos] = ARRAY_BYTE;
        buf[pos + 1] = (byte) (length >>> 24);
        buf[pos + 2] = (byte) (length >>> 16);
        buf[pos + 3] = (byte) (length >>> 8);
        buf[pos + 4] = (byte) length;
        pos += 5;
    }

    private void writeByte(byte b) throws IOException {
        if (pos == CHUNK) {
            emit();
        }
        buf[pos++] = b;
    }

    /** Free bytes in the current chunk, emitting it first when it is full. */
    private int room() throws IOException {
        if (pos == CHUNK) {
            emit();
        }
        return CHUNK - pos;
    }

    /** Passes the current chunk on: written here, or queued for the compression executor. */
    private void emit() throws IOException {
        if (pos == 0) {
            return;
        }
        if (whole != null) {
            if (hold()) {
                return;
            }
            spill();
        }
        if (compressor == null) {
            raw.write(buf, 0, pos);
            pos = 0;
            return;
        }
        rethrowFailure();
        byte[] chunk = buf;
        int len = pos;
        tail = tail.thenRunAsync(() -> {
            try {
                raw.write(chunk, 0, len);
            } catch (IOException e) {
                throw new CompletionException(e);
            } finally {
                spare.offer(chunk);
            }
        }, compressor);
        try {
            buf = spare.take(); // waits while IN_FLIGHT chunks are queued: bounded memory
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for compression");
        }
        pos = 0;
    }

    /** Appends the current chunk to the held answer; false when that would pass {@link #WHOLE_LIMIT}. */
    private boolean hold() {
        if (heldLen + pos > WHOLE_LIMIT) {
            return false;
        }
        if (held == null || heldLen + pos > held.length) {
            int size = Math.min(WHOLE_LIMIT, Math.max(heldLen + pos, held == null ? 4 * CHUNK : held.length * 2));
            held = held == null ? new byte[size] : java.util.Arrays.copyOf(held, size);
        }
        System.arraycopy(buf, 0, held, heldLen, pos);
        heldLen += pos;
        pos = 0;
        return true;
    }

    /** Too big to hold: what is held goes into the zlib stream now (nothing is queued yet), the rest follows. */
    private void spill() throws IOException {
        whole = null;
        if (heldLen > 0) {
            raw.write(held, 0, heldLen);
        }
        held = null;
        heldLen = 0;
    }

    /** The held answer compressed by libdeflate, or null if that call failed (then zlib takes over). */
    private byte[] compressHeld() {
        try {
            return whole.zlibCompress(held == null ? new byte[0] : held, heldLen, zipLevel);
        } catch (RuntimeException e) {
            LoggerFactory.getLogger(BlobEncoder.class).warn("libdeflate failed, answer compressed by zlib: {}", e.toString());
            return null;
        }
    }

    private void rethrowFailure() throws IOException {
        if (tail.isCompletedExceptionally()) {
            awaitTail();
        }
    }

    private void awaitTail() throws IOException {
        try {
            tail.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw e;
        }
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
            emit();
            byte[] compressed = whole == null ? null : compressHeld();
            if (compressed != null) {
                digested.write(compressed);
                held = null;
            } else {
                if (whole != null) {
                    spill(); // libdeflate failed: the same bytes through zlib
                }
                awaitTail();
                if (deflater != null) {
                    deflater.finish();
                }
            }
            base64.close();
        } finally {
            if (def != null) {
                try {
                    tail.exceptionally(e -> null).join(); // never free the deflater under a running task
                } finally {
                    def.end();
                }
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
