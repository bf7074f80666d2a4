package io.outpost.store.cli;

import io.outpost.store.IovStore;
import io.outpost.store.db.Database;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.export.RemoteSnapshots;
import io.outpost.store.export.SnapshotExporter;
import io.outpost.store.export.SnapshotSync;
import io.outpost.store.model.KeyText;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.Node;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.schema.SchemaManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ProgressBar;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The loader's {@code export} and {@code sync} commands: offline snapshots of a global tag over a key range. */
final class SnapshotCommands {
    private SnapshotCommands() {
    }

    /** A snapshot target: a file path (a new SQLite database) or a JDBC URL (e.g. an empty PostgreSQL database). */
    static String targetUrl(String out) {
        return out.startsWith("jdbc:") ? out : "jdbc:sqlite:" + out;
    }

    static Path sqliteFile(String url) {
        return url.startsWith("jdbc:sqlite:") ? Path.of(url.substring("jdbc:sqlite:".length())) : null;
    }

    /** A progress bar stepping once per folder, with the IOV count as its message. */
    static final class Bar implements SnapshotExporter.Progress, AutoCloseable {
        private final ProgressBar bar;
        private long iovs;
        private boolean started;
        /** The folders a sync copied, in the order it copied them. */
        final java.util.List<String> copied = new java.util.ArrayList<>();

        Bar(String task) {
            bar = Progress.bar(task, 1);
        }

        @Override
        public void folder(Node folder, int index, int total) {
            if (!started) {
                bar.maxHint(total);
                started = true;
            }
            bar.stepTo(index);
            bar.setExtraMessage(folder.path());
        }

        @Override
        public void iovs(long count) {
            iovs += count;
            bar.setExtraMessage(iovs + " IOVs");
        }

        @Override
        public void copied(String folder) {
            copied.add(folder);
        }

        void done() {
            bar.stepTo(bar.getMax());
        }

        @Override
        public void close() {
            bar.close();
        }
    }

    @Command(name = "export", description = "Write an offline snapshot: what reads in one global tag over a key range"
            + " can see (--from/--to for folders of one key type; --time-from/--time-to and --run-from/--run-to for"
            + " time and run-lumi folders), into a new SQLite file or an empty database; from a database (--url) or"
            + " from a running Outpost service over HTTP (--server).")
    static final class Export implements Callable<Integer> {
        @Mixin
        LoaderCli.Db db;
        @Option(names = "--global-tag", required = true, description = "tag of the root folderset (HEAD: the HEAD of every folder)")
        String globalTag;
        @Option(names = "--from", description = "first key of the range (inclusive), when every folder has one key type: 0, min,"
                + " a date/time, RUN/LUMI or raw:N (a bare number could be either kind)")
        String from;
        @Option(names = "--to", description = "last key of the range (inclusive; -1 for the end of time)")
        String to;
        @Option(names = "--time-from", description = "first time of the range of the time folders (inclusive; ns or an ISO date/time)")
        String timeFrom;
        @Option(names = "--time-to", description = "last time of the range of the time folders (inclusive; -1: end of time)")
        String timeTo;
        @Option(names = "--run-from", description = "first key of the range of the run-lumi folders (inclusive; RUN/LUMI, or raw:N for a raw key)")
        String runFrom;
        @Option(names = "--run-to", description = "last run-lumi key of that range (inclusive; -1: no end)")
        String runTo;
        @Option(names = "--folders", defaultValue = "/**", description = "folder path glob (default /**: all)")
        String folders;
        @Option(names = "--out", required = true, description = "new SQLite file, or JDBC URL of an empty database")
        String out;
        @Option(names = "--out-user", description = "user for a JDBC --out")
        String outUser;
        @Option(names = "--out-password", description = "password for a JDBC --out (or env OUTPOST_OUT_DB_PASSWORD)",
                defaultValue = "${env:OUTPOST_OUT_DB_PASSWORD}")
        String outPassword;

        @Override
        public Integer call() throws Exception {
            String url = targetUrl(out);
            Path file = sqliteFile(url);
            if (file != null && Files.exists(file)) {
                throw new IllegalArgumentException("'" + file + "' exists: export writes a new file (use sync to update"
                        + " an existing snapshot)");
            }
            SnapshotExporter.Request request = request();
            boolean ok = false;
            try (IovStore target = IovStore.open(new DatabaseConfig(url, outUser, outPassword, db.prefix, 2, 2, null, null));
                 Bar bar = new Bar("export")) {
                SnapshotExporter.Result r;
                if (db.server != null) {
                    // over HTTP from a running service: no database access needed
                    r = new RemoteSnapshots(db.server, target.database()).export(request, bar);
                } else {
                    try (IovStore source = db.open()) {
                        r = new SnapshotExporter(source, target).export(request, bar);
                    }
                }
                bar.done();
                ok = true;
                System.out.println("exported " + r.folders() + " folders, " + r.iovs() + " IOVs of '" + request.globalTag()
                        + "' over " + request.describe() + " to " + out);
            } finally {
                if (!ok && file != null) {
                    for (String suffix : new String[] {"", "-wal", "-shm"}) {
                        Files.deleteIfExists(Path.of(file + suffix));
                    }
                }
            }
            return 0;
        }

        /** One range (--from/--to), or a range per key type (--time-*, --run-*), each given whole. */
        private SnapshotExporter.Request request() {
            SnapshotExporter.Range one = range("--from", from, "--to", to, null);
            SnapshotExporter.Range time = range("--time-from", timeFrom, "--time-to", timeTo, KeyType.TIME);
            SnapshotExporter.Range runLumi = range("--run-from", runFrom, "--run-to", runTo, KeyType.RUN_LUMI);
            if (one != null && (time != null || runLumi != null)) {
                throw new IllegalArgumentException("give either --from/--to (folders of one key type) or"
                        + " --time-from/--time-to and --run-from/--run-to, not both");
            }
            if (one == null && time == null && runLumi == null) {
                throw new IllegalArgumentException("no key range: give --from/--to, or --time-from/--time-to and"
                        + " --run-from/--run-to");
            }
            return one != null ? SnapshotExporter.Request.oneKeyType(globalTag, one.from(), one.to(), folders)
                    : SnapshotExporter.Request.perKeyType(globalTag, time, runLumi, folders);
        }

        /** A range from its two options, each key spelled as for folders of {@code type} (null: any spelling). */
        private static SnapshotExporter.Range range(String fromName, String fromValue, String toName, String toValue,
                                                    KeyType type) {
            if (fromValue == null && toValue == null) {
                return null;
            }
            if (fromValue == null || toValue == null) {
                throw new IllegalArgumentException(fromName + " and " + toName + " go together");
            }
            return new SnapshotExporter.Range(key(fromValue, type), key(toValue, type));
        }

        /**
         * A key of a range; -1 also means the end of time. A bare number in the one range of --from/--to could be a
         * time or a raw run-lumi key, so only 0 (the start of both) is taken as it is.
         */
        private static long key(String s, KeyType type) {
            String t = s.trim();
            if (t.equals("-1")) {
                return ValidityKey.MAX;
            }
            if (type == null && !t.equals("0") && !t.isEmpty() && t.chars().allMatch(Character::isDigit)) {
                throw new IllegalArgumentException("'" + s + "' could be a time (ns since 1970) or a raw run-lumi key:"
                        + " give --time-from/--time-to or --run-from/--run-to, or write it raw:" + t);
            }
            return KeyText.parse(s, type);
        }
    }

    @Command(name = "sync", description = "Bring an offline snapshot up to date: copy again only the folders that"
            + " changed in the source since they were copied.")
    static final class Sync implements Callable<Integer> {
        @Option(names = "--from", required = true, description = "the source: JDBC URL of its database, or the URL"
                + " of a running Outpost service (http:// or https://)")
        String from;
        @Option(names = "--user", description = "source database user")
        String user;
        @Option(names = "--password", description = "source password (or env OUTPOST_DB_PASSWORD)",
                defaultValue = "${env:OUTPOST_DB_PASSWORD}")
        String password;
        @Option(names = "--prefix", defaultValue = "OUTPOST_", description = "table prefix (default OUTPOST_)")
        String prefix;
        @Option(names = "--to", required = true, description = "the snapshot: SQLite file or JDBC URL")
        String to;
        @Option(names = "--to-user", description = "user for a JDBC --to")
        String toUser;
        @Option(names = "--to-password", description = "password for a JDBC --to (or env OUTPOST_OUT_DB_PASSWORD)",
                defaultValue = "${env:OUTPOST_OUT_DB_PASSWORD}")
        String toPassword;

        @Override
        public Integer call() {
            String url = targetUrl(to);
            Path file = sqliteFile(url);
            if (file != null && !Files.exists(file)) {
                throw new IllegalArgumentException("no snapshot '" + file + "': export one first");
            }
            try (Database snapshot = Database.open(new DatabaseConfig(url, toUser, toPassword, prefix, 2, 2, null, null));
                 Bar bar = new Bar("sync")) {
                new SchemaManager(snapshot).migrate();
                SnapshotSync.Result r;
                if (from.startsWith("http://") || from.startsWith("https://")) {
                    r = new RemoteSnapshots(from, snapshot).sync(bar);
                } else {
                    try (IovStore source = IovStore.open(new DatabaseConfig(from, user, password, prefix, 2, 2, null,
                            null))) {
                        r = new SnapshotSync(source, snapshot).sync(bar);
                    }
                }
                bar.done();
                System.out.println("synced " + to + ": " + r.copied() + " folders copied"
                        + (bar.copied.isEmpty() ? "" : " (" + String.join(", ", bar.copied) + ")") + ", " + r.unchanged()
                        + " unchanged, " + r.iovs() + " IOVs");
                for (String path : r.skipped()) {
                    System.out.println("not added: " + path + " (the snapshot has no key range of its key type;"
                            + " export again with one)");
                }
            }
            return 0;
        }
    }
}
