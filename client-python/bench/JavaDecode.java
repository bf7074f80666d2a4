// The Java client's decoder on the same answer file as decode_bench.py, in the same run (single-file source:
// java -cp client-java/target/outpost-client.jar JavaDecode.java ANSWER ROUNDS). Prints the best times of
// decompressing the body alone and of decoding every row (io.outpost.wire.AnswerDecoder), and the row count.
import com.github.luben.zstd.ZstdDecompressCtx;
import io.outpost.wire.AnswerDecoder;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.InflaterInputStream;

public class JavaDecode {
    public static void main(String[] args) throws Exception {
        byte[] answer = Files.readAllBytes(Path.of(args[0]));
        int rounds = Integer.parseInt(args[1]);
        long bestDecompress = Long.MAX_VALUE, bestDecode = Long.MAX_VALUE, rows = 0, content = 0;
        for (int round = 0; round < rounds + 3; round++) {  // the first three warm the JIT up
            long t0 = System.nanoTime();
            content = decompress(answer);
            long t1 = System.nanoTime();
            rows = decode(answer);
            long t2 = System.nanoTime();
            if (round >= 3) {
                bestDecompress = Math.min(bestDecompress, t1 - t0);
                bestDecode = Math.min(bestDecode, t2 - t1);
            }
        }
        System.out.println("java decompress_ns=" + bestDecompress + " decode_ns=" + bestDecode + " rows=" + rows
                + " content=" + content);
    }

    static long decompress(byte[] answer) throws Exception {
        int bodyLen = (int) ByteBuffer.wrap(answer, 8, 8).getLong();
        long n = 0;
        if (answer[5] == 2) {
            try (ZstdDecompressCtx ctx = new ZstdDecompressCtx()) {
                ByteBuffer src = ByteBuffer.wrap(answer, 16, bodyLen);
                ByteBuffer dst = ByteBuffer.allocate(1 << 17);
                for (boolean done = false; !done; ) {
                    dst.clear();
                    done = ctx.decompressByteBufferStream(dst, src);
                    n += dst.position();
                }
            }
            return n;
        }
        InputStream in = new InflaterInputStream(new ByteArrayInputStream(answer, 16, bodyLen),
                new java.util.zip.Inflater(), 1 << 16);
        byte[] buf = new byte[1 << 16];
        for (int r; (r = in.read(buf)) > 0; ) {
            n += r;
        }
        return n;
    }

    static long decode(byte[] answer) throws Exception {
        long rows = 0;
        try (AnswerDecoder d = new AnswerDecoder(new ByteArrayInputStream(answer), answer.length)) {
            d.readHeader();
            for (Object[] v; (v = d.nextRow()) != null; ) {
                if (((String) v[3]).length() != 50) {
                    throw new AssertionError("row " + rows);
                }
                rows++;
            }
        }
        return rows;
    }
}
