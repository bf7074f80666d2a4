package io.outpost.server.write;

import io.outpost.wire.AnswerDecoder;
import io.outpost.wire.AnswerHeader;
import io.outpost.wire.AnswerKind;
import io.outpost.wire.Column;
import io.outpost.wire.ColumnType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.PayloadSpec;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * An IOV batch in the binary table format (docs/wire-format.md, kind iovs), read with the same decoder the Java
 * client uses for answers: every check of an answer applies (lengths, codec, row count, CRC-32), then the columns
 * must be {@code channel, since, until} followed by the folder's payload fields, by name and type, in order.
 * Anything else is refused with a message saying what differs; nothing of a refused batch is stored.
 */
final class BinaryIovBatch {
    private static final List<String> KEYS = List.of("channel", "since", "until");

    private BinaryIovBatch() {
    }

    static List<NewIov> read(byte[] body, String folder, PayloadSpec spec) {
        try (AnswerDecoder decoder = new AnswerDecoder(new ByteArrayInputStream(body), body.length)) {
            AnswerHeader header = decoder.readHeader();
            check(header, folder, spec);
            List<NewIov> out = new ArrayList<>();
            Object[] row;
            while ((row = decoder.nextRow()) != null) {
                for (int i = 0; i < KEYS.size(); i++) {
                    if (row[i] == null) {
                        throw new IllegalArgumentException("row " + out.size() + ": " + KEYS.get(i) + " is NULL");
                    }
                }
                Object[] payload = new Object[spec.size()];
                System.arraycopy(row, KEYS.size(), payload, 0, payload.length);
                out.add(new NewIov((Long) row[0], (Long) row[1], (Long) row[2], payload));
            }
            return out;
        } catch (IOException e) {
            // CorruptAnswerException included: a truncated or damaged body is the client's error
            throw new IllegalArgumentException("the binary body is not a whole table (docs/wire-format.md): "
                    + e.getMessage(), e);
        }
    }

    private static void check(AnswerHeader header, String folder, PayloadSpec spec) {
        if (header.kind() != AnswerKind.IOVS) {
            throw new IllegalArgumentException("the binary body holds a table of kind '" + header.kind()
                    + "'; IOV batches are kind iovs (1)");
        }
        if (!header.folder().isEmpty() && !header.folder().equals(folder)) {
            throw new IllegalArgumentException("the binary body is for folder '" + header.folder() + "', the URL names '"
                    + folder + "'");
        }
        List<Column> columns = header.schema().columns();
        StringBuilder expected = new StringBuilder("channel UInt32, since UInt63, until UInt63");
        for (int i = 0; i < spec.size(); i++) {
            expected.append(", ").append(spec.field(i).name()).append(' ').append(spec.field(i).type().coolName());
        }
        boolean same = columns.size() == KEYS.size() + spec.size();
        for (int i = 0; same && i < columns.size(); i++) {
            Column c = columns.get(i);
            if (i < KEYS.size()) {
                same = c.name().equals(KEYS.get(i)) && c.type() == (i == 0 ? ColumnType.UINT32 : ColumnType.UINT63);
            } else {
                same = c.name().equals(spec.field(i - KEYS.size()).name())
                        && c.type() == spec.field(i - KEYS.size()).type().columnType();
            }
        }
        if (!same) {
            StringBuilder got = new StringBuilder();
            for (Column c : columns) {
                got.append(got.isEmpty() ? "" : ", ").append(c.name()).append(' ').append(c.type().wireName());
            }
            throw new IllegalArgumentException("the binary body's columns are (" + got + "); folder " + folder
                    + " takes (" + expected + ")");
        }
    }
}
