package io.outpost.client;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.outpost.client.testing.VectorCheck;
import io.outpost.client.testing.WireEncoder;
import io.outpost.wire.AnswerKind;
import io.outpost.wire.Column;
import io.outpost.wire.ColumnType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code testdata/NAME.bin} decodes to {@code NAME.json}. The service generates testdata/; until it does,
 * the loop is skipped with a message, and the same check runs over vectors from the test encoder.
 */
class TestVectorsTest {
    /** The repository's testdata/ (override with -Doutpost.testdata=DIR). */
    static final Path TESTDATA = Path.of(System.getProperty("outpost.testdata", "../testdata"));

    @TestFactory
    Stream<DynamicTest> everyVectorInTestdataDecodesToItsJson() throws IOException {
        List<Path> bins = Files.isDirectory(TESTDATA) ? listBins(TESTDATA) : List.of();
        assumeTrue(!bins.isEmpty(), "no *.bin vectors in " + TESTDATA.toAbsolutePath()
                + " yet (the server generates them); skipping the testdata loop");
        return bins.stream().map(p -> DynamicTest.dynamicTest(p.getFileName().toString(), () -> check(p)));
    }

    @TestFactory
    Stream<DynamicTest> encoderVectorsDecodeToTheirJson(@TempDir Path dir) throws IOException {
        writeVectors(dir);
        return listBins(dir).stream()
                .map(p -> DynamicTest.dynamicTest(p.getFileName().toString(), () -> check(p)));
    }

    /** The client's own decoding of a vector, against the JSON next to it. */
    private static void check(Path bin) throws IOException {
        VectorCheck.check(bin, WholeAnswers.decode(Files.readAllBytes(bin)));
    }

    private static List<Path> listBins(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".bin")).sorted().toList();
        }
    }

    /** Vectors covering every type, NULLs, all three codecs, and an empty answer, with their JSON form. */
    static void writeVectors(Path dir) throws IOException {
        List<Column> all = new ArrayList<>();
        for (ColumnType t : ColumnType.values()) {
            all.add(new Column("c_" + t.wireName(), t));
        }
        Object[] r1 = {true, (short) 255, (short) -32768, 65535, Integer.MIN_VALUE, 4294967295L, Long.MAX_VALUE,
            Long.MIN_VALUE, 1.5f, -2.25e300, "é", "x".repeat(300), "", "multi\nline \"q\"",
            new byte[] {0, 1, (byte) 255}, new byte[0]};
        Object[] r2 = new Object[all.size()];
        Object[] r3 = {false, (short) 0, (short) 1, 0, 7, 0L, 0L, -1L, Float.NaN, Double.NEGATIVE_INFINITY, null, "a",
            null, "b", null, new byte[] {42}};
        for (int codec : new int[] {0, 1, 2}) {
            String name = "types_codec" + codec;
            WireEncoder enc = new WireEncoder(AnswerKind.NODES, "", "", 0, 0, all)
                    .codec(codec);
            Files.write(dir.resolve(name + ".bin"), enc.encode(List.of(r1, r2, r3)));
            Files.writeString(dir.resolve(name + ".json"), json("nodes", "", "", 0, 0, all, List.of(r1, r2, r3)));
        }
        List<Column> iov = List.of(new Column("channel", ColumnType.UINT32), new Column("since", ColumnType.UINT63),
                new Column("until", ColumnType.UINT63), new Column("v", ColumnType.FLOAT));
        WireEncoder at = new WireEncoder(AnswerKind.IOVS, "/DEMO/Calo/Pedestals", "HEAD", 10, 20, iov);
        Files.write(dir.resolve("empty_at.bin"), at.encode(List.of()));
        Files.writeString(dir.resolve("empty_at.json"), json("iovs", "/DEMO/Calo/Pedestals", "HEAD", 10, 20, iov,
                List.of()));
    }

    static String json(String kind, String folder, String tag, long vs, long vu, List<Column> cols,
                       List<Object[]> rows) {
        StringBuilder sb = new StringBuilder("{\"kind\":\"" + kind + "\",\"folder\":\"" + folder + "\",\"tag\":\""
                + tag + "\",\"validSince\":" + vs + ",\"validUntil\":" + vu + ",\"columns\":[");
        for (int i = 0; i < cols.size(); i++) {
            sb.append(i > 0 ? "," : "").append("{\"name\":\"").append(cols.get(i).name()).append("\",\"type\":\"")
                    .append(cols.get(i).type().wireName()).append("\"}");
        }
        sb.append("],\"rows\":[");
        for (int r = 0; r < rows.size(); r++) {
            sb.append(r > 0 ? "," : "").append('[');
            Object[] row = rows.get(r);
            for (int c = 0; c < row.length; c++) {
                sb.append(c > 0 ? "," : "").append(jsonValue(row[c]));
            }
            sb.append(']');
        }
        return sb.append("],\"rowCount\":").append(rows.size()).append('}').toString();
    }

    private static String jsonValue(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof byte[] b) {
            return "\"" + Base64.getEncoder().encodeToString(b) + "\"";
        }
        if (v instanceof String s) {
            return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
        }
        if (v instanceof Float f && !Float.isFinite(f)) {
            return "\"" + (f.isNaN() ? "NaN" : f > 0 ? "Infinity" : "-Infinity") + "\"";
        }
        if (v instanceof Double d && !Double.isFinite(d)) {
            return "\"" + (d.isNaN() ? "NaN" : d > 0 ? "Infinity" : "-Infinity") + "\"";
        }
        return v.toString();
    }
}
