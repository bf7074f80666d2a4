package io.outpost.client.cli;

import io.outpost.client.Answer;
import io.outpost.client.ChannelSelection;
import io.outpost.client.ClientConfig;
import io.outpost.client.ClientEvent;
import io.outpost.client.Order;
import io.outpost.client.OutpostClient;
import io.outpost.client.OutpostException;
import io.outpost.client.Row;
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
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code outpost-client} command line, the Java form of the one tool docs/cli.md specifies (the C++ form is
 * client-cpp's outpost-cli): same commands, options, time syntax, output and exit codes. This class holds what every
 * command shares (the options, the client they build, the output format, the exit codes); the commands themselves
 * are in {@link ListingCommands}, {@link FolderCommands} and {@link SnapshotCommand}.
 */
@Command(name = "outpost-client", mixinStandardHelpOptions = true, versionProvider = OutpostCli.Version.class,
        description = "Queries an Outpost conditions service (docs/api.md) through its servers and proxies.",
        subcommands = {ListingCommands.Nodes.class, ListingCommands.Channels.class, ListingCommands.Tags.class,
            ListingCommands.Tag.class, FolderCommands.Find.class, FolderCommands.Browse.class, FolderCommands.Count.class,
            SnapshotCommand.class, ListingCommands.GlobalTags.class},
        synopsisSubcommandLabel = "COMMAND",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success (also when nothing matched)",
            "1:any other failure",
            "2:usage: bad command line, option value, time, channel selection, folder or tag spelling, configuration",
            "3:not found (HTTP 404): unknown folder, node, channel or tag",
            "4:rejected by the server (other HTTP 4xx)",
            "5:unavailable: no server answered through any route (connect errors, timeouts, 5xx)",
            "6:corrupt or truncated answers on every route, or an answer that is not what was asked"},
        footer = {"%nTimes:",
            "  min, max; for time folders nanoseconds since 1970 UTC (1767229200000000000)",
            "  or an ISO date or date-time (2026-01-01, 2026-01-01T10:00:00.5Z,",
            "  2026-01-01T12:00+02:00; UTC unless an offset is given); for run-lumi folders",
            "  RUN/LUMI or RUN:LUMI (358031/12), never a bare number; raw:N is the raw key N",
            "  in either. Table and csv print run-lumi keys as RUN/LUMI.",
            "%nChannels (-c): all, N, N-M, lists like 1-4,7, or name:X.",
            "Environment: OUTPOST_SERVER, OUTPOST_PROXY (or FRONTIER_PROXY), OUTPOST_*; see docs/client-failover.md.",
            "One contract for the C++, Java and Python command-line tools: docs/cli.md"})
public final class OutpostCli implements Callable<Integer> {
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;
    static final int EXIT_NOT_FOUND = 3;
    static final int EXIT_REJECTED = 4;
    static final int EXIT_UNAVAILABLE = 5;
    static final int EXIT_CORRUPT = 6;
    static final String NOT_FOUND_HINT = "outpost-client: hint: 'nodes' lists the folders, 'tags NODE' the tags of a"
            + " folder or folderset, 'channels FOLDER' its channels";

    @Option(names = "--server", scope = ScopeType.INHERIT, paramLabel = "URL",
            description = "Server URL, repeatable, tried in order (default: $OUTPOST_SERVER or $FRONTIER_SERVER).")
    List<String> servers = new ArrayList<>();

    @Option(names = "--proxy", scope = ScopeType.INHERIT, paramLabel = "URL",
            description = "Proxy (Squid) URL, repeatable (default: $OUTPOST_PROXY or $FRONTIER_PROXY).")
    List<String> proxies = new ArrayList<>();

    @Option(names = "--proxy-config", scope = ScopeType.INHERIT, paramLabel = "URL",
            description = "Proxy auto-config file (http://…, file://… or auto for WPAD); repeatable, tried in order.")
    List<String> proxyConfigs = new ArrayList<>();

    @Option(names = "--config", scope = ScopeType.INHERIT, paramLabel = "STRING",
            description = "Frontier-style configuration, e.g. '(serverurl=http://h:8000)(proxyurl=http://p:3128)'.")
    String configString;

    @Option(names = "--direct", scope = ScopeType.INHERIT,
            description = "Ask the servers directly: no proxy, whatever the environment or --config says.")
    boolean direct;

    @Option(names = "--no-align", scope = ScopeType.INHERIT,
            description = "find asks the exact at-time URL instead of the folder's cache-aligned window.")
    boolean noAlign;

    @Option(names = "--retries", scope = ScopeType.INHERIT, paramLabel = "N",
            description = "Extra passes over all routes after the first failed (0-10, default 1).")
    Integer retries;

    @Option(names = "--connect-timeout", scope = ScopeType.INHERIT, paramLabel = "S",
            description = "Connect timeout in seconds (default 5).")
    Integer connectTimeout;

    @Option(names = "--read-timeout", scope = ScopeType.INHERIT, paramLabel = "S",
            description = "Read timeout in seconds (default 10).")
    Integer readTimeout;

    @Option(names = "--tag", scope = ScopeType.INHERIT, paramLabel = "TAG",
            description = "HEAD (default) or a tag name (find, browse, count).")
    String tag = OutpostClient.HEAD;

    @Option(names = {"-c", "--channels"}, scope = ScopeType.INHERIT, paramLabel = "SEL",
            description = "Channels: all (default), N, N-M, 1-4,7, or name:X.")
    String channels = "all";

    @Option(names = "--order", scope = ScopeType.INHERIT, paramLabel = "ORDER",
            description = "browse order: cs (default), sc, csd, sdc.")
    String order = "cs";

    @Option(names = "--format", scope = ScopeType.INHERIT, paramLabel = "FMT",
            description = "Output: table (default), csv or json.")
    String format = "table";

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
        // docs/cli.md: a value follows its option as the next argument or after '=' (no "-c1-3", no "-vc 1")
        cl.setPosixClusteredShortOptionsAllowed(false);
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (e instanceof OutpostException oe) {
                cli.err.println("outpost-client: " + oe.getMessage());
                if (oe.kind() == OutpostException.Kind.NOT_FOUND) {
                    cli.err.println(NOT_FOUND_HINT);
                }
                if (cli.verbose) {
                    for (Throwable s : oe.getSuppressed()) {
                        cli.err.println("  attempt: " + s.getMessage());
                    }
                }
                return exitCode(oe);
            }
            if (e instanceof IllegalArgumentException || e instanceof IllegalStateException) {
                cli.err.println("outpost-client: " + e.getMessage());
                return EXIT_USAGE;
            }
            cli.err.println("outpost-client: " + e);
            return EXIT_FAILED;
        });
        int code = cl.execute(args);
        cli.out.flush();
        return cli.out.checkError() && code == 0 ? EXIT_FAILED : code;
    }

    /**
     * The exit code of docs/cli.md's table: when every route failed, 6 if each attempt got an answer that could not
     * be used (corrupt, too old, not signed as it must be, not the one asked for), else 5, as the C++ and Python
     * tools decide.
     */
    static int exitCode(OutpostException e) {
        Throwable[] attempts = e.getSuppressed();
        boolean badAnswers = e.kind() == OutpostException.Kind.UNAVAILABLE && attempts.length > 0;
        for (Throwable a : attempts) {
            badAnswers &= a instanceof OutpostException oa && switch (oa.kind()) {
                case CORRUPT, STALE, UNSIGNED -> true;
                default -> false;
            };
        }
        return badAnswers ? EXIT_CORRUPT : exitCode(e.kind());
    }

    static int exitCode(OutpostException.Kind kind) {
        return switch (kind) {
            case NOT_FOUND -> EXIT_NOT_FOUND;
            case REJECTED -> EXIT_REJECTED;
            case UNAVAILABLE, TIMEOUT -> EXIT_UNAVAILABLE;
            case CORRUPT, STALE, PROTOCOL, UNSIGNED -> EXIT_CORRUPT;
            case INTERRUPTED -> EXIT_FAILED;
        };
    }

    /** No command: usage on standard error, a usage error. */
    @Override
    public Integer call() {
        err.println("outpost-client: no command");
        new CommandLine(this).usage(err);
        return EXIT_USAGE;
    }

    RowWriter.Format format() {
        return switch (format) {
            case "table" -> RowWriter.Format.TABLE;
            case "csv" -> RowWriter.Format.CSV;
            case "json" -> RowWriter.Format.JSON;
            default -> throw new IllegalArgumentException("--format is table, csv or json, not '" + format + "'");
        };
    }

    Order order() {
        try {
            return Order.ofCode(order);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--order is cs, sc, csd or sdc, not '" + order + "'");
        }
    }

    ChannelSelection selection() {
        try {
            return ChannelSelection.parse(channels);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--channels: " + e.getMessage());
        }
    }

    /** Checks what every command reads, so that a bad option is a usage error whatever the command. */
    void checkOptions() {
        format();
        order();
        selection();
        if (retries != null && (retries < 0 || retries > 10)) {
            throw new IllegalArgumentException("--retries is 0 to 10");
        }
        for (Integer t : new Integer[] {connectTimeout, readTimeout}) {
            if (t != null && (t < 1 || t > 86_400)) {
                throw new IllegalArgumentException("timeouts are whole seconds, 1 to 86400");
            }
        }
    }

    /**
     * The configuration is --config if given, else the environment; --server and --proxy replace its servers and
     * proxies; --direct drops every proxy (docs/cli.md).
     */
    OutpostClient client() {
        checkOptions();
        ClientConfig.Builder b = configString != null ? ClientConfig.builder().frontierString(configString)
                : ClientConfig.builder().environment(env);
        if (!servers.isEmpty()) {
            b.servers(servers);
        }
        if (!proxies.isEmpty()) {
            b.proxies(proxies);
        }
        if (!proxyConfigs.isEmpty()) {
            b.proxyConfigs(proxyConfigs);
        }
        if (direct) {
            b.proxies(List.of());
            b.proxyConfigs(List.of());
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
        ClientConfig config = b.build();
        if (config.snapshot() != null) {
            // the tool prints the service's own answers (docs/cli.md), which only a service gives
            throw new IllegalArgumentException("the command-line tool asks a service over HTTP; to query a snapshot"
                    + " file, serve it (./outpost start --snapshot FILE --server.port=8001) and use --server"
                    + " http://localhost:8001 (the Java client library reads sqlite:FILE directly)");
        }
        OutpostClient.Builder cb = OutpostClient.builder(config);
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
            case ClientEvent.GaveUp g -> "every route failed (" + g.attempts() + " attempts)";
            case ClientEvent.AttemptSucceeded s -> "  ok: HTTP " + s.status();
            case ClientEvent.Backoff b -> "all routes failed; pass " + b.pass() + " after " + b.delay().toMillis() + " ms";
            case ClientEvent.CacheHit h -> "in-process cache: " + h.path();
        };
    }

    int write(Answer a) {
        return write(a, false);
    }

    /** Prints an answer; {@code runLumi}: since and until as RUN/LUMI (see {@link FolderCommands#folderKeys}). */
    int write(Answer a, boolean runLumi) {
        RowWriter w = RowWriter.of(format(), out);
        w.begin(a.kind().jsonName(), a.folder(), a.tag(), a.validSince(), a.validUntil(), a.schema());
        for (Row r : a.rows()) {
            Object[] v = r.values().toArray();
            w.row(runLumi ? runLumiKeys(v) : v);
        }
        w.end();
        return 0;
    }

    /** An iovs row with since and until (columns 1 and 2) written RUN/LUMI. */
    static Object[] runLumiKeys(Object[] v) {
        for (int i = 1; i <= 2; i++) {
            long key = (Long) v[i];
            v[i] = (key >>> 32) + "/" + (key & 0xFFFF_FFFFL);
        }
        return v;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"outpost-client " + OutpostClient.VERSION};
        }
    }
}
