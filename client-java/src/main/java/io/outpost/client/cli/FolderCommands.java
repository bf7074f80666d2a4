package io.outpost.client.cli;

import io.outpost.client.Iov;
import io.outpost.client.IovStream;
import io.outpost.client.OutpostClient;
import io.outpost.client.OutpostException;
import io.outpost.client.Paths;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Parameters;

/**
 * The commands that read IOVs of one folder (find, browse, count), and what they share: keys read as the folder's
 * key type takes them, and a channel number checked against the folder's channels.
 */
final class FolderCommands {
    private FolderCommands() {
    }

    /**
     * The keys of a folder command, read as FOLDER's key type takes them (docs/cli.md, "Times"), and whether its
     * rows print since and until as RUN/LUMI (table and csv output of a run-lumi folder; JSON keeps the numbers).
     * The folder's key type is asked only when a key or the output depends on it; an unknown folder is left to the
     * query, which gets the server's 404.
     */
    record FolderKeys(long[] keys, boolean printRunLumi) {
    }

    static FolderKeys folderKeys(OutpostCli cli, OutpostClient client, String folder, CliTime.Key... keys)
            throws OutpostException {
        boolean needed = cli.format() != RowWriter.Format.JSON;
        for (CliTime.Key k : keys) {
            needed |= !k.fitsEither();
        }
        Boolean runLumi = null;
        if (needed) {
            for (io.outpost.client.NodeInfo n : client.nodes()) {
                if (n.folder() && n.path().equals(folder)) {
                    runLumi = n.isRunLumi();
                }
            }
        }
        long[] values = new long[keys.length];
        for (int i = 0; i < keys.length; i++) {
            values[i] = runLumi == null ? keys[i].value() : keys[i].in(runLumi);
        }
        return new FolderKeys(values, runLumi != null && runLumi && cli.format() != RowWriter.Format.JSON);
    }

    /**
     * {@code -c N} naming a channel the folder does not have is "not found" (exit 3), as {@code -c name:X} is;
     * ranges and lists select whatever channels exist.
     */
    static void checkChannel(OutpostCli cli, OutpostClient client, String folder) throws OutpostException {
        if (!cli.channels.matches("\\d{1,10}")) {
            return;
        }
        long id = Long.parseLong(cli.channels);
        for (io.outpost.client.ChannelInfo c : client.channels(folder)) {
            if (c.channel() == id) {
                return;
            }
        }
        throw new OutpostException(OutpostException.Kind.NOT_FOUND, "no channel " + id + " in " + folder
                + " (the channels command lists them)");
    }

    @Command(name = "find", description = "The objects valid at TIME in the selected channels.")
    static final class Find implements Callable<Integer> {
        @ParentCommand OutpostCli cli;
        @Parameters(index = "0", paramLabel = "FOLDER") String folder;
        @Parameters(index = "1", paramLabel = "TIME") String time;

        @Override
        public Integer call() throws OutpostException {
            cli.checkOptions();
            CliTime.Key t = CliTime.key(time);
            OutpostClient client = cli.client();
            FolderKeys keys = folderKeys(cli, client, folder, t);
            checkChannel(cli, client, folder);
            return cli.write(client.objectsAtAnswer(folder, cli.tag, cli.selection(), keys.keys()[0]),
                    keys.printRunLumi());
        }
    }

    /** A command over FOLDER between T1 and T2 (default min, max): browse and count. */
    abstract static class RangeCommand implements Callable<Integer> {
        @ParentCommand OutpostCli cli;
        @Parameters(index = "0", paramLabel = "FOLDER") String folder;
        @Parameters(index = "1", arity = "0..1", paramLabel = "T1") String from = "min";
        @Parameters(index = "2", arity = "0..1", paramLabel = "T2") String to = "max";

        @Override
        public Integer call() throws OutpostException {
            cli.checkOptions();
            CliTime.Key t1 = CliTime.key(from);
            CliTime.Key t2 = CliTime.key(to);
            if (t1.value() > t2.value()) {
                throw new IllegalArgumentException("T1 (" + from + ") is after T2 (" + to + ")");
            }
            return run(cli.client(), new CliTime.Key[] {t1, t2});
        }

        abstract int run(OutpostClient client, CliTime.Key[] range) throws OutpostException;
    }

    @Command(name = "browse", description = "Every IOV with since <= T2 and until > T1 (default min, max), streamed.")
    static final class Browse extends RangeCommand {
        @Override
        int run(OutpostClient client, CliTime.Key[] range) throws OutpostException {
            FolderKeys keys = folderKeys(cli, client, folder, range);
            boolean runLumi = keys.printRunLumi();
            long[] r = keys.keys();
            checkChannel(cli, client, folder);
            try (IovStream s = client.browseStream(folder, cli.tag, r[0], r[1], cli.selection(), cli.order())) {
                RowWriter w = RowWriter.of(cli.format(), cli.out);
                w.begin("iovs", s.folder(), s.tag(), s.validSince(), s.validUntil(), s.schema());
                for (Iov iov; (iov = s.next()) != null; ) {
                    w.row(runLumi ? OutpostCli.runLumiKeys(iovRow(iov)) : iovRow(iov));
                }
                w.end();
            }
            return 0;
        }

        private static Object[] iovRow(Iov iov) {
            Object[] v = new Object[3 + iov.payload().size()];
            v[0] = iov.channel();
            v[1] = iov.since();
            v[2] = iov.until();
            for (int i = 0; i < iov.payload().size(); i++) {
                v[3 + i] = iov.payload().get(i);
            }
            return v;
        }
    }

    @Command(name = "count", description = "How many IOVs browse would print.")
    static final class Count extends RangeCommand {
        @Override
        int run(OutpostClient client, CliTime.Key[] range) throws OutpostException {
            long[] r = range[0].fitsEither() && range[1].fitsEither() ? new long[] {range[0].value(), range[1].value()}
                    : folderKeys(cli, client, folder, range).keys();
            checkChannel(cli, client, folder);
            return cli.write(client.fetch(Paths.count(cli.tag, r[0], r[1], cli.selection(), folder)));
        }
    }
}
