package io.outpost.frontier;

import io.outpost.frontier.answers.EncodedRecords;
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
import java.util.concurrent.atomic.AtomicInteger;
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
 * <p>With a native deflate ({@link NativeDeflate}: igzip or libdeflate), records instead go into one buffer, doubled
 * as needed, and are compressed in one call once the answer is complete, a fraction of zlib's time; an answer whose record stream
 * outgrows {@link #WHOLE_LIMIT} goes on through zlib as above, so memory stays bounded as well. A held answer's
 * text is written as one array ({@link SharedWrites}), so the response can send it with its length.
 *
 * <p>While few compressed answers are under way ({@link #PIECES_UP_TO}, or none other and the machine's load leaves
 * a core: {@link IdleCores}), the native library instead compresses the 64 KB
 * chunks on the executor as they fill, in parallel with the read, and they are joined into one zlib stream
 * ({@link ZlibPieces}); at most {@link #IN_FLIGHT} chunks wait here too.
 *
 * <p>With {@link EncodedRecords}, answers are held (never in pieces) and, at close, an identical record stream's
 * encoded text is reused instead of compressing again; a new one is kept there.
 */
public final class BlobEncoder implements AutoCloseable {
    public static final byte ARRAY_BYTE = 0x06;
    public static final byte EOR = 0x07;
    public static final byte NULL_ARRAY_BYTE = (byte) 0x86;
    /** Frontier's base64: lines of 76 characters, each but the last ended by a newline. */
    private static final Base64.Encoder MIME_TEXT = MimeLines.MIME;
    static final int CHUNK = 64 * 1024;
    static final int IN_FLIGHT = 4;
    /** Record bytes held for one native call; a bigger answer is streamed through zlib. */
    static final int WHOLE_LIMIT = 2 << 20;
    /** The held answer's first buffer, doubled as needed: most answers are small. */
    static final int HOLD_START = 16 << 10;
    /**
     * Base64 text of a streamed answer (in pieces, through zlib, uncompressed) held to be sent whole, with its length
     * and on a connection that stays open; a longer text streams on.
     */
    static final int TEXT_HOLD_LIMIT = 2 << 20;
    /** Compressed answers from this size on are base64-encoded and digested in parallel when a core is free. */
    static final int PARALLEL_TEXT_MIN = 64 << 10;
    /** Grown held buffers handed from one answer to the next: at most 2 MB each, a few per core, 16 MB in all. */
    static final HeldBuffers HELD = new HeldBuffers(Math.min(8, 2 * Runtime.getRuntime().availableProcessors()));
    /**
     * System property: {@code jdk} compresses answers with java.util.zip even where a native library is present;
     * {@code whole} (one native call at close, never split), {@code split} (at close, split whatever the machine's
     * load) and {@code pieces} fix the native way (by default
     * pieces up to {@link #PIECES_UP_TO} answers, else held and compressed at close, split across the cores while
     * few answers are under way: {@link SplitCompression}).
     */
    public static final String DEFLATE_PROPERTY = "outpost.frontier.deflate";
    /**
     * Pieces overlap compression with the database read on another core, for more CPU (each piece but the last is
     * walked to join it, and hand-offs: 1-8 ms per MB of records, measured): worth it while at most this many answers
     * are being computed, leaving two cores to the readers and the rest; beyond, the cores are busy anyway and
     * answers are compressed whole, which costs least. On 2 cores (0): never by default, as measured (docs).
     */
    static final int PIECES_UP_TO = Math.max(0, (Runtime.getRuntime().availableProcessors() - 2) / 2);
    private static final int CORES = Runtime.getRuntime().availableProcessors();
    /** Compressed answers being computed in this JVM (encoders not yet closed). */
    private static final AtomicInteger COMPUTING = new AtomicInteger();

    /** zlib, made only for an answer that streams through it. */
    private DeflaterOutputStream deflater;
    private Deflater def;
    private final MessageDigest md5;
    private final OutputStream base64;
    private OutputStream raw;
    private final Executor compressor;
    private final OutputStream digested;
    private final int zipLevel;
    /**
     * Set while the answer is held for one native call (then {@link #buf} grows up to {@link #WHOLE_LIMIT});
     * null once streaming through zlib in chunks.
     */
    private NativeDeflate whole;
    /** Set when chunks are compressed in parallel by the native library as they fill ({@link ZlibPieces}). */
    private final NativeDeflate pieces;
    /** Whether a held answer may be compressed in parallel pieces at close ({@link SplitCompression}). */
    private final boolean split;
    /** Set at close when a core is left for this answer: its base64 text is then encoded beside its MD5. */
    private boolean textInParallel;
    /** Adler-32 of the record bytes whose pieces are written so far (written in order, by the tail of pieces). */
    private long adler = 1;
    private boolean pieceHeaderSent;
    /** Spare chunk buffers, handed back by the compression side (pipelined mode). */
    private final BlockingQueue<byte[]> spare;
    private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);
    private byte[] buf;
    private int pos;
    private long fullSize;
    private boolean closed;
    private final OutputStream sink;
    /** Answers by record content, or null. */
    private final EncodedRecords memo;
    /** Where the base64 text of a streamed answer goes. */
    private final AnswerText text;
    /** The MD5 of a reused answer. */
    private String reusedMd5;
    /** Everything this encoder wrote, when it was reused from or kept in {@link #memo}. */
    private byte[] encodedText;

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
     * The encoder of a Frontier answer: compressed by a native library when one is present (unless the system property
     * {@value #DEFLATE_PROPERTY} is {@code jdk}), in pieces or whole, else by zlib on {@code compressor} while rows
     * are read.
     */
    public static BlobEncoder forAnswer(OutputStream sink, int zipLevel, Executor compressor) {
        return forAnswer(sink, zipLevel, compressor, null);
    }

    /**
     * As {@link #forAnswer(OutputStream, int, Executor)}, reusing and keeping compressed answers in {@code memo}
     * (null: none) when a native library holds the answer.
     */
    public static BlobEncoder forAnswer(OutputStream sink, int zipLevel, Executor compressor, EncodedRecords memo) {
        String choice = System.getProperty(DEFLATE_PROPERTY, "");
        NativeDeflate lib = zipLevel < 0 || "jdk".equals(choice) ? null : NativeDeflate.forLevel(zipLevel).orElse(null);
        boolean inPieces = memo == null && inPieces(choice, COMPUTING.get(), () -> IdleCores.besides(1));
        return new BlobEncoder(sink, zipLevel, compressor, lib, inPieces, !"whole".equals(choice),
                lib == null ? null : memo);
    }

    /**
     * Whether a new answer is compressed in pieces, with {@code computing} compressed answers already under way.
     * Pieces overlap compression with the read: worth it while the rest of the machine leaves this answer more than
     * half of its cores (docs/frontier.md; on 2 cores up to ~2.5 cores busy over the last second, this answer
     * included).
     */
    static boolean inPieces(String choice, int computing, java.util.function.IntSupplier idleCores) {
        return "pieces".equals(choice) || "".equals(choice)
                && (computing < PIECES_UP_TO || computing == 0 && idleCores.getAsInt() >= 1);
    }

    /** Whether {@link #forAnswer} compresses with libdeflate in this JVM (the property aside). */
    public static boolean libdeflateAvailable() {
        return LibDeflate.get().isPresent();
    }

    /** The library {@link #forAnswer} compresses {@code zipLevel} answers with in this JVM (the properties aside). */
    public static String deflateLibrary(int zipLevel) {
        return NativeDeflate.forLevel(zipLevel).map(lib -> lib instanceof Igzip ? "igzip" : "libdeflate")
                .orElse("java.util.zip");
    }

    BlobEncoder(OutputStream sink, int zipLevel, Executor compressor, NativeDeflate whole) {
        this(sink, zipLevel, compressor, whole, false);
    }

    /**
     * @param lib      the native deflate, or null for zlib
     * @param inPieces with {@code lib} and {@code compressor}: chunks compressed in parallel on {@code compressor}
     *                 while rows are read ({@link ZlibPieces}) instead of the whole answer at the end
     */
    BlobEncoder(OutputStream sink, int zipLevel, Executor compressor, NativeDeflate lib, boolean inPieces) {
        this(sink, zipLevel, compressor, lib, inPieces, false);
    }

    /**
     * @param split with {@code lib} and {@code compressor}, not in pieces: the held answer may be compressed in
     *              parallel pieces at close while few answers are under way ({@link SplitCompression})
     */
    BlobEncoder(OutputStream sink, int zipLevel, Executor compressor, NativeDeflate lib, boolean inPieces, boolean split) {
        this(sink, zipLevel, compressor, lib, inPieces, split, null);
    }

    /** @param memo with {@code lib} and not in pieces: compressed answers reused and kept by record content */
    BlobEncoder(OutputStream sink, int zipLevel, Executor compressor, NativeDeflate lib, boolean inPieces, boolean split,
                EncodedRecords memo) {
        this.sink = sink;
        this.zipLevel = zipLevel;
        this.split = split;
        boolean pieced = zipLevel >= 0 && lib != null && inPieces && compressor != null;
        this.pieces = pieced ? lib : null;
        this.whole = zipLevel >= 0 && !pieced ? lib : null;
        this.memo = this.whole != null ? memo : null;
        if (zipLevel >= 0) {
            COMPUTING.incrementAndGet();
        }
        try {
            md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        text = new AnswerText(sink, TEXT_HOLD_LIMIT);
        base64 = new MimeLines(text);
        digested = new DigestOutputStream(base64, md5);
        if (zipLevel < 0) {
            raw = digested;
        } else if (this.whole == null && this.pieces == null) {
            startZlib();
        }
        this.compressor = zipLevel >= 0 ? compressor : null;
        this.spare = this.compressor == null ? null : new ArrayBlockingQueue<>(IN_FLIGHT);
        if (this.whole != null) {
            buf = HELD.take(HOLD_START);
        } else {
            buf = new byte[CHUNK];
            fillSpare();
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

    /** An integer column value as its decimal digits: the bytes {@code writeString(Long.toString(v))} sends. */
    public void writeLong(long v) throws IOException {
        int n = DecimalDigits.length(v);
        if (buf.length - pos < 5 + n) {
            emit(); // header and digits go into one chunk
        }
        header(n);
        pos += n;
        DecimalDigits.write(v, buf, pos);
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

    /** Passes the current chunk on: written here, or queued for the compression executor. */
    private void emit() throws IOException {
        if (pos == 0) {
            return;
        }
        if (whole != null) {
            if (buf.length < WHOLE_LIMIT) {
                buf = java.util.Arrays.copyOf(buf, Math.min(WHOLE_LIMIT, buf.length * 2));
                return;
            }
            spill();
            return;
        }
        if (compressor == null) {
            raw.write(buf, 0, pos);
            pos = 0;
            return;
        }
        rethrowFailure();
        byte[] chunk = buf;
        int len = pos;
        if (pieces != null) {
            writePieceHeader();
            CompletableFuture<NativeDeflate.Piece> piece = CompletableFuture.supplyAsync(() -> {
                try {
                    return ZlibPieces.piece(pieces, chunk, len, zipLevel, false);
                } finally {
                    spare.offer(chunk);
                }
            }, compressor);
            tail = tail.thenCombine(piece, (done, p) -> {
                try {
                    digested.write(p.deflate());
                    adler = ZlibPieces.combineAdler(adler, p.adler32(), len);
                    return null;
                } catch (IOException e) {
                    throw new CompletionException(e);
                }
            });
            takeSpare();
            return;
        }
        tail = tail.thenRunAsync(() -> {
            try {
                raw.write(chunk, 0, len);
            } catch (IOException e) {
                throw new CompletionException(e);
            } finally {
                spare.offer(chunk);
            }
        }, compressor);
        takeSpare();
    }

    private void takeSpare() throws IOException {
        try {
            buf = spare.take(); // waits while IN_FLIGHT chunks are queued: bounded memory
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for compression");
        }
        pos = 0;
    }

    /** The zlib header, before the first piece (nothing is queued yet when this writes). */
    private void writePieceHeader() throws IOException {
        if (!pieceHeaderSent) {
            digested.write(ZlibPieces.header(zipLevel));
            pieceHeaderSent = true;
        }
    }

    /**
     * Too big to hold: what is held goes into the zlib stream now, in this thread (nothing is queued yet), and the
     * rest follows in chunks.
     */
    private void spill() throws IOException {
        whole = null;
        startZlib();
        raw.write(buf, 0, pos);
        buf = new byte[CHUNK];
        pos = 0;
        fillSpare();
    }

    private void startZlib() {
        def = new Deflater(zipLevel);
        deflater = new DeflaterOutputStream(digested, def, CHUNK);
        raw = deflater;
    }

    /** The chunk buffers the compression side hands back (streaming through zlib on the executor only). */
    private void fillSpare() {
        if (spare != null) {
            for (int i = 1; i < IN_FLIGHT; i++) {
                spare.add(new byte[CHUNK]);
            }
        }
    }

    /**
     * The held answer compressed by the native library (the zlib stream's parts in order), or null if that failed (then zlib
     * takes over). While few answers are under way it is split across the cores left to it ({@link SplitCompression}).
     */
    private java.util.List<byte[]> compressHeld() {
        try {
            int computing = Math.max(1, COMPUTING.get());
            // this answer's share of the cores, and no more than the machine leaves idle besides these answers
            int cores = "split".equals(System.getProperty(DEFLATE_PROPERTY)) ? Math.max(2, CORES / computing)
                    : Math.min(CORES / computing, IdleCores.besides(computing) / computing);
            textInParallel = compressor != null && split && cores > 1;
            int n = compressor == null || !split ? 1 : SplitCompression.pieces(pos, cores);
            return n == 1 ? java.util.List.of(whole.zlibCompress(buf, pos, zipLevel))
                    : SplitCompression.compress(whole, buf, pos, zipLevel, n, compressor);
        } catch (RuntimeException e) {
            LoggerFactory.getLogger(BlobEncoder.class).warn("native deflate failed, answer compressed by zlib: {}",
                    e.toString());
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

    /** The last piece (compressed here while the others finish), then the Adler-32 of the whole record stream. */
    private void finishPieces() throws IOException {
        writePieceHeader();
        NativeDeflate.Piece last;
        try {
            last = ZlibPieces.piece(pieces, buf, pos, zipLevel, true);
        } catch (RuntimeException e) {
            throw new IOException("native deflate failed: " + e, e);
        }
        awaitTail();
        digested.write(last.deflate());
        digested.write(ZlibPieces.trailer(ZlibPieces.combineAdler(adler, last.adler32(), pos)));
    }

    /** Whether this answer is compressed in pieces while it is read. */
    boolean inPieces() {
        return pieces != null;
    }

    /** Compressed answers under way in this JVM. */
    static int computing() {
        return COMPUTING.get();
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
            if (pieces != null) {
                finishPieces();
                base64.close();
                return;
            }
            EncodedRecords.Key key = whole != null && memo != null && pos >= EncodedRecords.MIN_BYTES
                    ? EncodedRecords.key(zipLevel, buf, pos) : null;
            EncodedRecords.Entry reused = key == null ? null : memo.find(key, buf, pos);
            if (reused != null) {
                SharedWrites.write(sink, reused.base64());
                reusedMd5 = reused.md5();
                encodedText = reused.base64();
                releaseHeld();
                return;
            }
            java.util.List<byte[]> compressed = whole == null ? null : compressHeld();
            if (compressed != null) {
                // the whole text at once: the response sends it with its length, a kept answer holds the same array
                byte[] answer = wholeText(compressed);
                SharedWrites.write(sink, answer);
                if (key != null) {
                    encodedText = answer;
                    memo.keep(key, java.util.Arrays.copyOf(buf, pos), pos, encodedText, md5Hex());
                }
                releaseHeld();
                return;
            }
            if (whole != null) {
                spill(); // the native call failed: the same bytes through zlib
            } else {
                emit();
            }
            awaitTail();
            if (deflater != null) {
                deflater.finish();
            }
            base64.close();
        } finally {
            if (zipLevel >= 0) {
                COMPUTING.decrementAndGet();
            }
            if (pieces != null) {
                tail.exceptionally(e -> null).join(); // nothing may write after the answer is closed
            }
            if (def != null) {
                try {
                    tail.exceptionally(e -> null).join(); // never free the deflater under a running task
                } finally {
                    def.end();
                }
            }
        }
    }

    /** The held buffer goes back to {@link #HELD}: nothing reads it any more (compression has ended). */
    private void releaseHeld() {
        HELD.give(buf);
        buf = null;
    }

    /**
     * The base64 text of a zlib stream's parts, as the streaming path writes it; the MD5 is of the parts. With a core
     * to spare ({@link #compressHeld}) the text is encoded on the compression threads while this one digests.
     */
    private byte[] wholeText(java.util.List<byte[]> parts) {
        byte[] zlib = parts.size() == 1 ? parts.get(0) : ZlibPieces.concat(parts);
        if (!textInParallel || zlib.length < PARALLEL_TEXT_MIN) {
            md5.update(zlib);
            return MIME_TEXT.encode(zlib);
        }
        CompletableFuture<byte[]> text = CompletableFuture.supplyAsync(() -> MIME_TEXT.encode(zlib), compressor);
        md5.update(zlib);
        return text.join();
    }

    /**
     * Everything this encoder wrote to its sink, shared with {@link EncodedRecords} (not to be changed), when the
     * answer was reused from or kept there; otherwise null. Call after {@link #close}.
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
