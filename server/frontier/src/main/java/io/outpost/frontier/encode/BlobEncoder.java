package io.outpost.frontier.encode;

import io.outpost.frontier.protocol.FrontierException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;

/**
 * The payload body of a Frontier response: the binary record stream (strings {@code 0x06 len bytes}, NULL
 * {@code 0x86}, end of record {@code 0x07}), optionally zlib-compressed, MD5 over the (compressed) bytes, then
 * base64 in 76-column lines joined by {@code \n} with no final newline.
 *
 * <p>A compressed answer's records are held in one buffer, doubled as needed, and compressed in one call once the
 * answer is complete ({@link AnswerDeflate}: igzip where it loads, else java.util.zip): the same records at the same
 * level give the same bytes whatever the load. Its text is written as one array ({@link SharedWrites}), so the
 * response can send it with its length. A record stream that outgrows {@link #WHOLE_LIMIT} goes on through
 * java.util.zip as it is written, and an uncompressed answer ({@code BLOB}) is digested and encoded as it is
 * written, so memory stays bounded.
 *
 * <p>With {@link EncodedRecords}, at close an identical record stream's encoded text is reused instead of compressing
 * again; a new one is kept there.
 */
public final class BlobEncoder implements AutoCloseable {
    public static final byte ARRAY_BYTE = 0x06;
    public static final byte EOR = 0x07;
    public static final byte NULL_ARRAY_BYTE = (byte) 0x86;
    /** The buffer of a streamed answer (uncompressed, or past {@link #WHOLE_LIMIT}). */
    static final int CHUNK = 64 * 1024;
    /** Record bytes held for one call at close; a bigger answer is streamed through java.util.zip. */
    static final int WHOLE_LIMIT = 2 << 20;
    /** The held answer's first buffer, doubled as needed: most answers are small. */
    static final int HOLD_START = 16 << 10;
    /**
     * Base64 text of a streamed answer held to be sent whole, with its length and on a connection that stays open; a
     * longer text streams on.
     */
    static final int TEXT_HOLD_LIMIT = 2 << 20;
    /** Grown held buffers handed from one answer to the next: at most 2 MB each, a few per core, 16 MB in all. */
    static final HeldBuffers HELD = new HeldBuffers(Math.min(8, 2 * Runtime.getRuntime().availableProcessors()));

    private final OutputStream sink;
    private final int zipLevel;
    private final MessageDigest md5;
    /** Answers by record content, or null. */
    private final EncodedRecords memo;
    /** Whether the records are held for one call at close (a compressed answer within {@link #WHOLE_LIMIT}). */
    private boolean held;
    /** Where a streamed answer's records go: the digest, or java.util.zip in front of it; null while held. */
    private OutputStream records;
    /** The base64 text of a streamed answer (closed at the end, which writes the padding). */
    private OutputStream base64;
    private Deflater deflater;
    private byte[] buf;
    private int pos;
    private long fullSize;
    private boolean closed;
    /** The MD5 of a reused answer. */
    private String reusedMd5;
    /** Everything this encoder wrote, when it was reused from or kept in {@link #memo}. */
    private byte[] encodedText;
    /** A streamed answer's text is kept too, when it is held whole (within {@link #TEXT_HOLD_LIMIT}). */
    private final boolean keepText;
    private AnswerText answerText;

    /**
     * @param zipLevel -1 for {@code BLOB}, else the zlib level 0-9
     */
    public BlobEncoder(OutputStream sink, int zipLevel) {
        this(sink, zipLevel, null);
    }

    /** @param memo compressed answers reused and kept by record content; null: none */
    public BlobEncoder(OutputStream sink, int zipLevel, EncodedRecords memo) {
        this(sink, zipLevel, memo, false);
    }

    /**
     * @param keepText also a streamed answer's text is kept for {@link #encodedText} when it is sent whole (not longer
     *                 than {@link #TEXT_HOLD_LIMIT}): for a caller that sends the same answer again
     */
    public BlobEncoder(OutputStream sink, int zipLevel, EncodedRecords memo, boolean keepText) {
        this.keepText = keepText;
        this.sink = sink;
        this.zipLevel = zipLevel;
        this.memo = zipLevel >= 0 ? memo : null;
        try {
            md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        held = zipLevel >= 0;
        if (held) {
            buf = HELD.take(HOLD_START);
        } else {
            startStream();
            buf = new byte[CHUNK];
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

    /** Records already in the stream's form ({@link RecordBytes}): copied as they are. */
    public void writeRecords(byte[] records, int off, int len) throws IOException {
        for (int end = off + len; off < end; ) {
            int n = Math.min(end - off, room());
            System.arraycopy(records, off, buf, pos, n);
            pos += n;
            off += n;
        }
        fullSize += len;
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
        if (buf.length - pos < 5) {
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
        if (pos == buf.length) {
            emit();
        }
        buf[pos++] = b;
    }

    /** Free bytes in the current chunk, emitting it first when it is full. */
    private int room() throws IOException {
        if (pos == buf.length) {
            emit();
        }
        return buf.length - pos;
    }

    /** The full buffer grows while the answer is held, else is passed on to the stream. */
    private void emit() throws IOException {
        if (pos == 0) {
            return;
        }
        if (held) {
            if (buf.length < WHOLE_LIMIT) {
                buf = Arrays.copyOf(buf, Math.min(WHOLE_LIMIT, buf.length * 2));
                return;
            }
            spill();
            return;
        }
        records.write(buf, 0, pos);
        pos = 0;
    }

    /** Too big to hold: what is held goes into java.util.zip's stream now, and the rest follows as it is written. */
    private void spill() throws IOException {
        held = false;
        startStream();
        records.write(buf, 0, pos);
        HELD.give(buf);
        buf = new byte[CHUNK];
        pos = 0;
    }

    /** The streamed answer's way out: records, then java.util.zip if compressed, then the MD5, then base64. */
    private void startStream() {
        answerText = new AnswerText(sink, TEXT_HOLD_LIMIT, keepText);
        base64 = new MimeLines(answerText);
        OutputStream digested = new DigestOutputStream(base64, md5);
        if (zipLevel < 0) {
            records = digested;
        } else {
            deflater = new Deflater(zipLevel);
            records = new DeflaterOutputStream(digested, deflater, CHUNK);
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
            if (held) {
                closeHeld();
                return;
            }
            emit();
            if (records instanceof DeflaterOutputStream z) {
                z.finish();
            }
            base64.close();
            if (keepText) {
                encodedText = answerText.wholeText();
            }
        } finally {
            if (deflater != null) {
                deflater.end();
            }
        }
    }

    /** The held answer: reused by record content, or compressed in one call, encoded, and kept for reuse. */
    private void closeHeld() throws IOException {
        EncodedRecords.Key key = memo != null && pos >= EncodedRecords.MIN_BYTES
                ? EncodedRecords.key(zipLevel, buf, pos) : null;
        EncodedRecords.Entry reused = key == null ? null : memo.find(key, buf, pos);
        if (reused != null) {
            reusedMd5 = reused.md5();
            encodedText = reused.base64();
        } else {
            byte[] zlib = AnswerDeflate.compress(buf, pos, zipLevel);
            md5.update(zlib);
            // the whole text at once: the response sends it with its length, a kept answer holds the same array
            byte[] text = MimeLines.MIME.encode(zlib);
            if (key != null) {
                encodedText = text;
                memo.keep(key, Arrays.copyOf(buf, pos), pos, text, md5Hex());
            }
            SharedWrites.write(sink, text);
            releaseHeld();
            return;
        }
        releaseHeld();
        SharedWrites.write(sink, encodedText);
    }

    /** The held buffer goes back to {@link #HELD}: nothing reads it any more. */
    private void releaseHeld() {
        HELD.give(buf);
        buf = null;
    }

    /**
     * Everything this encoder wrote to its sink, shared with {@link EncodedRecords} (not to be changed), when the
     * answer was reused from or kept there, or (asked to keep it) a streamed answer's text sent whole; otherwise null.
     * Call after {@link #close}.
     */
    public byte[] encodedText() {
        return encodedText;
    }

    /** Lower-case hex MD5 of the bytes base64-encoded so far (call after {@link #close}). */
    public String md5Hex() {
        if (reusedMd5 != null) {
            return reusedMd5;
        }
        try {
            return HexFormat.of().formatHex(((MessageDigest) md5.clone()).digest());
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(e);
        }
    }
}
