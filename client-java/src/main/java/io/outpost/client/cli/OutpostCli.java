package io.outpost.client.cli;

import io.outpost.client.Answer;
import io.outpost.client.ChannelSelection;
import io.outpost.client.ClientConfig;
import io.outpost.client.ClientEvent;
import io.outpost.client.Column;
import io.outpost.client.ColumnType;
import io.outpost.client.Iov;
import io.outpost.client.IovStream;
import io.outpost.client.Keys;
import io.outpost.client.Order;
import io.outpost.client.OutpostClient;
import io.outpost.client.OutpostException;
import io.outpost.client.Paths;
import io.outpost.client.Row;
import io.outpost.client.Schema;
import java.io.PrintWriter;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;

/** The {@code outpost-client} command line: queries an Outpost service and prints table, CSV or JSON. */
@Command(name = "outpost-client", mixinStandardHelpOptions = true, versionProvider = OutpostCli.Version.class,
        description = "Queries an Outpost conditions service (docs/api.md) through its servers and proxies.",
        subcommands = {OutpostCli.Find.class, OutpostCli.Browse.class, OutpostCli.Count.class,
            OutpostCli.Folders.class, OutpostCli.Channels.class, OutpostCli.Tags.class},
        synopsisSubcommandLabel = "COMMAND",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success (also when nothing matched)",
            "2:bad usage: unknown option, bad key, channel selection, folder or tag spelling",
            "3:not found (HTTP 404): unknown folder, node, channel or tag",
            "4:rejected by the server (other HTTP 4xx)",
            "5:unavailable: no server answered through any proxy, or timed out",
            "6:corrupt, truncated or stale answers on every route, or an unexpected answer",
            "130:interrupted"},
        footer = {"%nKeys (-t, --from, --to): ns since 1970 UTC, an ISO date/time (UTC unless an offset is given),",
            "RUN/LUMI for run-lumi folders, or max. Channels (-c): all, N, N-M, lists like 1-4,7, or name:X.",
            "Environment: OUTPOST_SERVER, OUTPOST_PROXY (or FRONTIER_PROXY), OUTPOST_*; see docs/client-failover.md."})
public final class OutpostCli implements Callable<Integer> {
    static final int EXIT_USAGE = 2;

    @Option(names = "--server", scope = ScopeType.INHERIT, paramLabel = "URL",
            description = "Server URL, repeatable, tried in order (default: $OUTPOST_SERVER or http://localhost:8000).")
    List<String> servers = new ArrayList<>();

    @Option(names = "--proxy", scope = ScopeType.INHERIT, paramLabel = "URL",
            description = "Proxy (Squid) URL, repeatable (default: $OUTPOST_PROXY or $FRONTIER_PROXY).")
    List<String> proxies = new ArrayList<>();

    @Option(names = "--config", scope = ScopeType.INHERIT, paramLabel = "STRING",
            description = "Frontier-style configuration, e.g. '(serverurl=http://h:8000)(proxyurl=http://p:3128)'.")
    String configString;

    @Option(names = "--direct", scope = ScopeType.INHERIT, description = "Ignore proxies from the environment.")
    boolean direct;

    @Option(names = "--connect-timeout", scope = ScopeType.INHERIT, paramLabel = "SECONDS",
            description = "Connect timeout (default 5).")
    Integer connectTimeout;

    @Option(names = "--read-timeout", scope = ScopeType.INHERIT, paramLabel = "SECONDS",
            description = "Read timeout (default 10).")
    Integer readTimeout;

    @Option(names = "--retries", scope = ScopeType.INHERIT, description = "Extra passes over all routes (default 1).")
    Integer retries;

    @Option(names = {"-o", "--output"}, scope = ScopeType.INHERIT, paramLabel = "FORMAT",
            description = "Output: ${COMPLETION-CANDIDATES} (default table).")
    RowWriter.Format format = RowWriter.Format.TABLE;

    @Option(names = "--no-align", scope = ScopeType.INHERIT,
            description = "Ask at-time queries with their exact URL instead of an aligned cache window.")
    boolean noAlign;

    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT,
            description = "Print every attempt and failover decision to standard error.")
    boolean verbose;

    PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), false);
    PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
    Map<String, String> env = System.getenv();

    public static void main(String[] args) {
        System.exit(run(new OutpostCli(), args));
    }

    /** Runs the command line; returns the exit code. */
    static int run(OutpostCli cli, String[] args) {
        CommandLine cl = new CommandLine(cli);
        cl.setOut(cli.out);
        cl.setErr(cli.err);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (e instanceof OutpostException oe) {
                cli.err.println("outpost-client: " + oe.getMessage());
                if (cli.verbose) {
                    for (Throwable s : oe.getSuppressed()) {
                        cli.err.println("  attempt: " + s.getMessage());
                    }
                }
                return exitCode(oe.kind());
            }
            if (e instanceof IllegalArgumentException || e instanceof IllegalStateException) {
                cli.err.println("outpost-client: " + e.getMessage());
                return EXIT_USAGE;
            }
            throw e;
        });
        return cl.execute(args);
    }

    static int exitCode(OutpostException.Kind kind) {
        return switch (kind) {
            case NOT_FOUND -> 3;
            case REJECTED -> 4;
            case UNAVAILABLE, TIMEOUT -> 5;
            case CORRUPT, STALE, PROTOCOL -> 6;
            case INTERRUPTED -> 130;
        };
    }

    @Override
    public Integer call() {
        new CommandLine(this).usage(out);
        out.flush();
        return EXIT_USAGE;
    }

    OutpostClient client() {
        ClientConfig.Builder b = ClientConfig.builder().environment(env);
        if (direct) {
            b.proxies(List.of());
        }
        if (configString != null) {
            b.servers(List.of()).frontierString(configString);
        }
        if (!servers.isEmpty()) {
            b.servers(servers);
        }
        if (!proxies.isEmpty()) {
            b.proxies(proxies);
        }
        if (connectTimeout != null) {
            b.connectTimeout(Duration.ofSeconds(connectTimeout));
        }
        if (readTimeout != null) {
            b.readTimeout(Duration.ofSeconds(readTimeout));
        }
        if (retries != null) {
            b.retries(retries);
        }
        if (noAlign) {
            b.cacheAlign(false);
        }
        b.clientId("outpost-client-cli/" + OutpostClient.VERSION);
        OutpostClient.Builder cb = OutpostClient.builder(b.build());
        if (verbose) {
            cb.eventListener(e -> err.println("outpost-client: " + describe(e)));
        }
        return cb.build();
    }

    private static String describe(ClientEvent e) {
        return switch (e) {
            case ClientEvent.AttemptStarted s -> "GET " + s.path() + " on " + s.route()
                    + (s.refresh().cacheControl() == null ? "" : " (Cache-Control: " + s.refresh().cacheControl() + ")");
            case ClientEvent.AttemptFailed f -> "  failed: " + f.kind() + " " + f.detail() + " -> " + f.decision();
            case ClientEvent.AttemptSucceeded s -> "  ok: HTTP " + s.status();
            case ClientEvent.Backoff b -> "all routes failed; pass " + b.pass() + " after " + b.delay().toMillis() + " ms";
            case ClientEvent.CacheHit h -> "in-process cache: " + h.path();
        };
    }

    int write(Answer a) {
        RowWriter w = RowWriter.of(format, out);
        w.begin(a.kind().jsonName(), a.folder(), a.tag(), a.validSince(), a.validUntil(), a.schema());
        for (Row r : a.rows()) {
            w.row(r.values().toArray());
        }
        w.end();
        return 0;
    }

    static final Column[] IOV_KEYS = {new Column("channel", ColumnType.UINT32), new Column("since", ColumnType.UINT63),
        new Column("until", ColumnType.UINT63)};

    static Schema iovSchema(Schema payload) {
        List<Column> cols = new ArrayList<>(List.of(IOV_KEYS));
        if (payload != null) {
            cols.addAll(payload.columns());
        }
        return new Schema(cols);
    }

    static Object[] iovRow(Iov iov) {
        Object[] v = new Object[3 + iov.payload().size()];
        v[0] = iov.channel();
        v[1] = iov.since();
        v[2] = iov.until();
        for (int i = 0; i < iov.payload().size(); i++) {
            v[3 + i] = iov.payload().get(i);
        }
        return v;
    }

    /** Options shared by the IOV commands. */
    static final class Selection {
        @Option(names = "--tag", defaultValue = "HEAD", description = "Tag (default HEAD).")
        String tag;

        @Option(names = {"-c", "--channels"}, defaultValue = "all", paramLabel = "SEL",
                description = "Channels: all, N, N-M, 1-4,7, or name:X (default all).")
        String channels;

        ChannelSelection selection() {
            return ChannelSelection.parse(channels);
        }
    }

    @Command(name = "find", description = "Objects valid at one key (one per channel).")
    static final class Find implements Callable<Integer> {
        @ParentCommand OutpostCli cli;
        @Mixin Selection sel;
        @Parameters(index = "0", paramLabel = "FOLDER") String folder;
        @Option(names = {"-t", "--time", "--at"}, required = true, paramLabel = "KEY", description = "The key.")
        String time;

        @Override
        public Integer call() throws OutpostException {
            long t = Keys.parse(time);
            List<Iov> iovs = cli.client().objectsAt(folder, sel.tag, sel.selection(), t);
            RowWriter w = RowWriter.of(cli.format, cli.out);
            w.begin("iovs", folder, sel.tag, 0, 0, iovSchema(iovs.isEmpty() ? null : iovs.get(0).payload().schema()));
            iovs.forEach(i -> w.row(iovRow(i)));
            w.end();
            return 0;
        }
    }

    @Command(name = "browse", description = "Every IOV overlapping [FROM, TO], streamed.")
    static final class Browse implements Callable<Integer> {
        @ParentCommand OutpostCli cli;
        @Mixin Selection sel;
        @Parameters(index = "0", paramLabel = "FOLDER") String folder;
        @Option(names = "--from", defaultValue = "0", paramLabel = "KEY", description = "First key (default 0).")
        String from;
        @Option(names = "--to", defaultValue = "max", paramLabel = "KEY", description = "Last key (default max).")
        String to;
        @Option(names = "--order", defaultValue = "cs", description = "cs, sc, csd or sdc (default cs).")
        String order;

        @Override
        public Integer call() throws OutpostException {
            try (IovStream s = cli.client().browseStream(folder, sel.tag, Keys.parse(from), Keys.parse(to),
                    sel.selection(), Order.ofCode(order))) {
                RowWriter w = RowWriter.of(cli.format, cli.out);
                w.begin("iovs", s.folder(), s.tag(), 0, 0, iovSchema(s.payloadSchema()));
                for (Iov iov; (iov = s.next()) != null; ) {
                    w.row(iovRow(iov));
                }
                w.end();
            }
            return 0;
        }
    }

    @Command(name = "count", description = "Number of IOVs overlapping [FROM, TO].")
    static final class Count implements Callable<Integer> {
        @ParentCommand OutpostCli cli;
        @Mixin Selection sel;
        @Parameters(index = "0", paramLabel = "FOLDER") String folder;
        @Option(names = "--from", defaultValue = "0", paramLabel = "KEY") String from;
        @Option(names = "--to", defaultValue = "max", paramLabel = "KEY") String to;

        @Override
        public Integer call() throws OutpostException {
            return cli.write(cli.client().fetch(Paths.count(sel.tag, Keys.parse(from), Keys.parse(to),
                    sel.selection(), folder)));
        }
    }

    @Command(name = "folders", aliases = "nodes", description = "Every folder and folderset.")
    static final class Folders implements Callable<Integer> {
        @ParentCommand OutpostCli cli;

        @Override
        public Integer call() throws OutpostException {
            return cli.write(cli.client().fetch(Paths.nodes()));
        }
    }

    @Command(name = "channels", description = "The channels of a folder.")
    static final class Channels implements Callable<Integer> {
        @ParentCommand OutpostCli cli;
        @Parameters(index = "0", paramLabel = "FOLDER") String folder;

        @Override
        public Integer call() throws OutpostException {
            return cli.write(cli.client().fetch(Paths.channels(folder)));
        }
    }

    @Command(name = "tags", description = "The tags of a node, or with --resolve the tag a (parent) tag means here.")
    static final class Tags implements Callable<Integer> {
        @ParentCommand OutpostCli cli;
        @Parameters(index = "0", paramLabel = "NODE") String node;
        @Option(names = "--resolve", paramLabel = "TAG", description = "Resolve this tag for the folder NODE.")
        String resolve;

        @Override
        public Integer call() throws OutpostException {
            return cli.write(cli.client().fetch(resolve == null ? Paths.tags(node) : Paths.tag(resolve, node)));
        }
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"outpost-client " + OutpostClient.VERSION};
        }
    }
}
