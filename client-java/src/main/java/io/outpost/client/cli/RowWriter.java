package io.outpost.client.cli;

import io.outpost.wire.Column;
import io.outpost.wire.ColumnType;
import io.outpost.wire.Schema;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** Writes a table of rows as an aligned text table, CSV (RFC 4180) or JSON (the wire format's JSON form). */
abstract class RowWriter {
    /** How many rows the table format reads ahead to size its columns. */
    static final int TABLE_LOOKAHEAD = 1000;

    enum Format { TABLE, CSV, JSON }

    protected final PrintWriter out;

    RowWriter(PrintWriter out) {
        this.out = out;
    }

    static RowWriter of(Format f, PrintWriter out) {
        return switch (f) {
            case TABLE -> new Table(out);
            case CSV -> new Csv(out);
            case JSON -> new Json(out);
        };
    }

    abstract void begin(String kind, String folder, String tag, long validSince, long validUntil, Schema schema);

    abstract void row(Object[] values);

    abstract void end();

    static String text(Object v) {
        return v == null ? "" : ValueText.of(v);
    }

    static final class Csv extends RowWriter {
        Csv(PrintWriter out) {
            super(out);
        }

        @Override
        void begin(String kind, String folder, String tag, long vs, long vu, Schema schema) {
            List<String> names = schema.columns().stream().map(Column::name).toList();
            out.println(String.join(",", names.stream().map(Csv::quote).toList()));
        }

        @Override
        void row(Object[] values) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < values.length; i++) {
                if (i > 0) {
                    sb.append(',');
                }
                sb.append(quote(text(values[i])));
            }
            out.println(sb);
        }

        @Override
        void end() {
            out.flush();
        }

        static String quote(String s) {
            if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
                return s;
            }
            return '"' + s.replace("\"", "\"\"") + '"';
        }
    }

    static final class Table extends RowWriter {
        /** Longer values print as their first MAX_WIDTH - 3 characters and "...". */
        private static final int MAX_WIDTH = 48;
        private Schema schema;
        private final List<String[]> pending = new ArrayList<>();
        private int[] widths;
        private long rows;

        Table(PrintWriter out) {
            super(out);
        }

        @Override
        void begin(String kind, String folder, String tag, long vs, long vu, Schema schema) {
            this.schema = schema;
        }

        @Override
        void row(Object[] values) {
            String[] cells = new String[values.length];
            for (int i = 0; i < values.length; i++) {
                String s = values[i] == null ? "NULL" : text(values[i]).replaceAll("[\\r\\n\\t]", " ");
                cells[i] = width(s) > MAX_WIDTH ? s.substring(0, s.offsetByCodePoints(0, MAX_WIDTH - 3)) + "..." : s;
            }
            rows++;
            if (widths == null) {
                pending.add(cells);
                if (pending.size() >= TABLE_LOOKAHEAD) {
                    flushPending();
                }
            } else {
                print(cells);
            }
        }

        private void flushPending() {
            widths = new int[schema.size()];
            for (int i = 0; i < widths.length; i++) {
                widths[i] = width(schema.column(i).name());
            }
            for (String[] c : pending) {
                for (int i = 0; i < c.length; i++) {
                    widths[i] = Math.max(widths[i], width(c[i]));
                }
            }
            print(schema.columns().stream().map(Column::name).toArray(String[]::new));
            StringBuilder rule = new StringBuilder();
            for (int i = 0; i < widths.length; i++) {
                rule.append(i > 0 ? "  " : "").append("-".repeat(widths[i]));
            }
            out.println(rule);
            pending.forEach(this::print);
            pending.clear();
        }

        private void print(String[] cells) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < cells.length; i++) {
                boolean right = numeric(schema.column(i).type());
                String c = cells[i];
                String pad = " ".repeat(Math.max(0, widths[i] - width(c)));
                sb.append(i > 0 ? "  " : "").append(right ? pad + c : i == cells.length - 1 ? c : c + pad);
            }
            int end = sb.length();
            while (end > 0 && sb.charAt(end - 1) == ' ') {
                end--;
            }
            out.println(sb.substring(0, end));
        }

        /** Width in characters (code points), as the C++ tool counts UTF-8 characters. */
        private static int width(String s) {
            return s.codePointCount(0, s.length());
        }

        private static boolean numeric(ColumnType t) {
            return !t.isString() && !t.isBlob() && t != ColumnType.BOOL;
        }

        @Override
        void end() {
            if (widths == null) {
                flushPending();
            }
            out.println("(" + rows + (rows == 1 ? " row)" : " rows)"));
            out.flush();
        }
    }

    static final class Json extends RowWriter {
        private Schema schema;
        private long rows;

        Json(PrintWriter out) {
            super(out);
        }

        @Override
        void begin(String kind, String folder, String tag, long vs, long vu, Schema schema) {
            this.schema = schema;
            out.print("{\"kind\":" + str(kind) + ",\"folder\":" + str(folder) + ",\"tag\":" + str(tag)
                    + ",\"validSince\":" + vs + ",\"validUntil\":" + vu + ",\n \"columns\":[");
            for (int i = 0; i < schema.size(); i++) {
                Column c = schema.column(i);
                out.print((i > 0 ? "," : "") + "{\"name\":" + str(c.name()) + ",\"type\":" + str(c.type().wireName())
                        + "}");
            }
            out.print("],\n \"rows\":[");
        }

        @Override
        void row(Object[] values) {
            StringBuilder sb = new StringBuilder(rows == 0 ? "\n  [" : ",\n  [");
            for (int i = 0; i < values.length; i++) {
                if (i > 0) {
                    sb.append(',');
                }
                sb.append(value(values[i]));
            }
            out.print(sb.append(']'));
            rows++;
        }

        @Override
        void end() {
            out.println("],\n \"rowCount\":" + rows + "}");
            out.flush();
        }

        static String value(Object v) {
            if (v == null) {
                return "null";
            }
            if (v instanceof String s) {
                return str(s);
            }
            if (v instanceof byte[] || ValueText.notFinite(v)) {
                return str(ValueText.of(v));
            }
            return ValueText.of(v);
        }

        static String str(String s) {
            if (s == null) {
                return "\"\"";
            }
            StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> sb.append("\\\"");
                    case '\\' -> sb.append("\\\\");
                    case '\n' -> sb.append("\\n");
                    case '\r' -> sb.append("\\r");
                    case '\t' -> sb.append("\\t");
                    default -> {
                        if (c < 0x20) {
                            sb.append(String.format("\\u%04x", (int) c));
                        } else {
                            sb.append(c);
                        }
                    }
                }
            }
            return sb.append('"').toString();
        }
    }
}
