package io.outpost.store.cli;

import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.KeyText;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.Versioning;
import io.outpost.store.workload.ManyFolders;
import io.outpost.store.workload.Workload;
import io.outpost.store.workload.WorkloadGenerator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ProgressBar;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code outpost-loader}: create folders and channels, load IOVs from CSV or JSON, generate reference workloads,
 * tag and lock, against SQLite, PostgreSQL or Oracle, or through a service's write API ({@code --server}).
 */
@Command(name = "outpost-loader", mixinStandardHelpOptions = true, version = "outpost-loader 0.1",
        description = "Writes conditions data into an Outpost (COOL-layout) database.",
        subcommands = {LoaderCli.CreateFolderSet.class, LoaderCli.CreateFolder.class, LoaderCli.CreateChannel.class,
            LoaderCli.Load.class, LoaderCli.Generate.class, LoaderCli.TagHead.class, LoaderCli.Lock.class,
            LoaderCli.Relate.class, LoaderCli.DeleteTag.class, LoaderCli.Truncate.class, LoaderCli.ListNodes.class,
            SnapshotCommands.Export.class, SnapshotCommands.Sync.class, GlobalTagCommands.class,
            CommandLine.HelpCommand.class})
public final class LoaderCli {

    /** Where to write: a database (--url) or a service's write API (--server). */
    static final class Db {
        @Option(names = "--url", description = "JDBC URL, e.g. jdbc:sqlite:data/outpost-demo.db")
        String url;
        @Option(names = "--user", description = "database user")
        String user;
        @Option(names = "--password", description = "database password (or env OUTPOST_DB_PASSWORD)",
                defaultValue = "${env:OUTPOST_DB_PASSWORD}")
        String password;
        @Option(names = "--prefix", description = "table prefix (default OUTPOST_)", defaultValue = "OUTPOST_")
        String prefix;
        @Option(names = "--server", description = "an Outpost service instead of a database, e.g. "
                + "https://outpost.example.org (writes go through its write API and need --token)")
        String server;
        @Option(names = "--token", description = "bearer token for --server (or env OUTPOST_TOKEN)",
                defaultValue = "${env:OUTPOST_TOKEN}")
        String token;

        IovStore open() {
            return open(false);
        }

        /** Opens the database; a SQLite file that does not exist is created only when {@code create} says so. */
        IovStore open(boolean create) {
            if (url == null) {
                throw new IllegalArgumentException("this command needs --url (a database)");
            }
            Path file = sqliteFile(url);
            if (file != null && !create && !Files.exists(file)) {
                throw new IllegalArgumentException("no database file '" + file + "' (check the path; a new one is made"
                        + " only by create-folderset, create-folder or generate with --create)");
            }
            return IovStore.open(new DatabaseConfig(url, user, password, prefix, 2, 2, null, null));
        }

        ConditionsWriter writer(boolean create) {
            if ((url == null) == (server == null)) {
                throw new IllegalArgumentException("give either --url (a database) or --server (an Outpost service)");
            }
            return server != null ? new HttpWriter(server, token) : new StoreWriter(open(create));
        }
    }

    /** The file of a plain {@code jdbc:sqlite:PATH} URL; null for other databases, in-memory or {@code file:} URLs. */
    static Path sqliteFile(String url) {
        if (!url.startsWith("jdbc:sqlite:")) {
            return null;
        }
        String rest = url.substring("jdbc:sqlite:".length());
        int query = rest.indexOf('?');
        rest = query < 0 ? rest : rest.substring(0, query);
        return rest.isEmpty() || rest.startsWith(":") || rest.startsWith("file:") ? null : Path.of(rest);
    }

    abstract static class Base implements Callable<Integer> {
        @Mixin
        Db db;

        @Override
        public Integer call() throws Exception {
            try (ConditionsWriter writer = db.writer(creates())) {
                run(writer);
            }
            return 0;
        }

        /** Whether a missing SQLite file may be created (only commands that create things, with --create). */
        boolean creates() {
            return false;
        }

        abstract void run(ConditionsWriter store) throws Exception;
    }

    /** A command that may make a new SQLite database file, with {@code --create}. */
    abstract static class CreatingCommand extends Base {
        @Option(names = "--create", description = "create the SQLite database file if it does not exist")
        boolean create;

        @Override
        boolean creates() {
            return create;
        }
    }

    /** A command on one folder, named first. */
    abstract static class FolderCommand extends Base {
        @Parameters(index = "0")
        String folder;
    }

    @Command(name = "create-folderset", description = "Create a folderset (a node holding folders).")
    static final class CreateFolderSet extends CreatingCommand {
        @Parameters(index = "0", description = "path, e.g. /DET/Calo")
        String path;
        @Option(names = "--description", defaultValue = "")
        String description;
        @Option(names = "--parents", description = "create missing parent foldersets")
        boolean parents;

        @Override
        void run(ConditionsWriter store) {
            store.createFolderSet(path, description, parents);
            System.out.println("created folderset " + path);
        }
    }

    @Command(name = "create-folder", description = "Create a folder and its tables.")
    static final class CreateFolder extends CreatingCommand {
        @Parameters(index = "0", description = "path, e.g. /DET/Calo/Pedestals")
        String path;
        @Option(names = "--versioning", defaultValue = "SV", description = "SV (single version) or MV (multi"
                + " version, taggable); default: ${DEFAULT-VALUE}")
        String versioning;
        @Option(names = "--keys", defaultValue = "time", description = "time (ns since 1970 UTC) or run-lumi;"
                + " default: ${DEFAULT-VALUE}")
        String keys;
        @Option(names = "--payload", required = true, description = "payload spec, e.g. mean:Float,label:String255")
        String payload;
        @Option(names = "--description", defaultValue = "")
        String description;
        @Option(names = "--parents", description = "create missing parent foldersets")
        boolean parents;

        @Override
        void run(ConditionsWriter store) {
            System.out.println(store.createFolder(path, Versioning.parse(versioning), KeyType.parse(keys),
                    PayloadSpec.parse(payload), description, parents));
        }
    }

    @Command(name = "create-channel", description = "Create a channel (channels are also created on first store).")
    static final class CreateChannel extends FolderCommand {
        @Parameters(index = "1")
        long id;
        @Option(names = "--name")
        String name;
        @Option(names = "--description", defaultValue = "")
        String description;

        @Override
        void run(ConditionsWriter store) {
            store.createChannel(folder, id, name, description);
            System.out.println("created channel " + id + " in " + folder);
        }
    }

    @Command(name = "load", description = "Store IOVs from a CSV (channel,since,until,field…) or JSON file.")
    static final class Load extends FolderCommand {
        @Parameters(index = "1", description = "file ending in .csv or .json")
        Path file;
        @Option(names = "--user-tag", description = "store into this user tag (MV folders)")
        String userTag;
        @Option(names = "--user-tag-only", description = "store into the user tag only, not the HEAD")
        boolean userTagOnly;
        @Option(names = "--batch", defaultValue = "10000", description = "IOVs per all-or-nothing flush;"
                + " default: ${DEFAULT-VALUE}")
        int batch;

        @Override
        void run(ConditionsWriter store) throws Exception {
            KeyType keys = store.keyType(folder);
            IovFiles.Rows read = IovFiles.read(file, store.payloadSpec(folder), keys);
            List<NewIov> rows = read.iovs();
            // the bar and the final line count only what the database or the service confirmed stored
            try (ProgressBar bar = Progress.bar("load", rows.size())) {
                for (int i = 0; i < rows.size(); i += batch) {
                    List<NewIov> chunk = new ArrayList<>();
                    for (NewIov r : rows.subList(i, Math.min(rows.size(), i + batch))) {
                        chunk.add(userTag == null ? r : r.withUserTag(userTag, userTagOnly));
                    }
                    bar.stepBy(store.store(folder, chunk));
                }
                bar.stepBy(store.flush());
            } catch (io.outpost.store.StoreException e) {
                throw new io.outpost.store.StoreException(e.kind(), where(e.getMessage(), read, keys)
                        + withoutBatchIndex(e.getMessage()), e);
            } catch (HttpWriter.Refused e) {
                throw new HttpWriter.Refused(where(e.getMessage(), read, keys) + withoutBatchIndex(e.getMessage()));
            }
            System.out.println("stored " + rows.size() + " IOVs in " + folder);
        }

        /**
         * The file and line of the IOV a refusal of the store names ("channel C: [SINCE, UNTIL) …"), or the file
         * alone when it names none (a locked tag, a missing permission).
         */
        private String where(String message, IovFiles.Rows read, KeyType keys) {
            java.util.regex.Matcher m = NAMED_IOV.matcher(message);
            if (m.find()) {
                try {
                    long channel = Long.parseLong(m.group(1));
                    long since = KeyText.parse(m.group(2), keys);
                    long until = KeyText.parse(m.group(3), keys);
                    for (int i = 0; i < read.iovs().size(); i++) {
                        NewIov r = read.iovs().get(i);
                        if (r.channelId() == channel && r.since() == since && r.until() == until) {
                            return read.place(i) + ": ";
                        }
                    }
                } catch (IllegalArgumentException notAKey) {
                    // fall through: the file alone
                }
            }
            return file + ": ";
        }
    }

    /** The store counts the IOVs of a batch ("object #3 (…)"); the loader names the line instead. */
    private static String withoutBatchIndex(String message) {
        return message.replaceFirst("object #\\d+ \\((channel [^)]*\\))\\)", "$1");
    }

    /** How the store names an IOV in a refusal: channel, then [since, until) with keys as the folder spells them. */
    private static final java.util.regex.Pattern NAMED_IOV = java.util.regex.Pattern.compile(
            "channel (\\d+)\\D{0,3}\\[([^,\\]]+), ([^)\\]]+)\\)");

    @Command(name = "generate", description = "Generate a reference workload with random payloads.")
    static final class Generate extends CreatingCommand {
        @Parameters(index = "0", description = "likeLuis1iov, likeLuis1channel, smallQueries, atlasPrompt, "
                + "atlasPromptControl, coolBrowse, coolFlat, or manyFolders (100 small mixed folders and a global tag"
                + " per unit of --scale; on a database only)")
        String workload;
        @Option(names = "--scale", defaultValue = "1.0", description = "multiplies the workload's main count")
        double scale;
        @Option(names = "--seed", defaultValue = "42")
        long seed;

        @Override
        void run(ConditionsWriter store) {
            if (workload.equalsIgnoreCase(ManyFolders.LABEL)) {
                if (!(store instanceof StoreWriter db)) {
                    throw new IllegalArgumentException(ManyFolders.LABEL + " creates a global tag: generate it on a"
                            + " database (--url), not through a service");
                }
                try (ProgressBar bar = Progress.bar(ManyFolders.LABEL, ManyFolders.folders(scale))) {
                    new ManyFolders(db.store(), seed).populate(scale, bar::stepTo);
                }
                System.out.println("generated " + ManyFolders.folders(scale) + " folders of " + ManyFolders.LABEL
                        + " and global tag " + ManyFolders.GLOBAL_TAG);
                return;
            }
            Workload w = Workload.parse(workload);
            try (ProgressBar bar = Progress.bar(w.label(), w.totalIovs(scale))) {
                new WorkloadGenerator(seed).populate(w, scale, path -> store.createFolder(path, Versioning.SINGLE_VERSION,
                        w.keyType(), w.payloadSpec(), WorkloadGenerator.description(w), true), store::store, bar::stepTo);
            }
            store.flush();
            System.out.println("generated " + w.totalIovs(scale) + " IOVs of " + w.label());
        }
    }

    @Command(name = "tag", description = "Tag the HEAD of an MV folder (now, or as of a date).")
    static final class TagHead extends FolderCommand {
        @Parameters(index = "1")
        String tag;
        @Option(names = "--as-of", description = "ISO instant, e.g. 2026-01-01T00:00:00Z")
        Instant asOf;
        @Option(names = "--description", defaultValue = "")
        String description;

        @Override
        void run(ConditionsWriter store) {
            store.tag(folder, tag, asOf, description);
            System.out.println("tagged " + folder + " as " + tag);
        }
    }

    @Command(name = "lock", description = {"Set a tag's lock status: lock [NODE] TAG, the node first as in"
        + " 'tag FOLDER TAG'.", "NODE (the folder or folderset that owns TAG) is checked when given; without it the"
        + " tag's own node. --node NODE is the older spelling."})
    static final class Lock extends Base {
        @Parameters(arity = "1..2", paramLabel = "[NODE] TAG")
        List<String> nodeAndTag;
        @Option(names = "--status", defaultValue = "locked", description = "locked, partial or unlocked")
        String status;

        @Option(names = "--node", description = "the folder or folderset that owns the tag (as NODE)")
        String node;

        @Override
        void run(ConditionsWriter store) {
            String tag = nodeAndTag.getLast();
            String owner = nodeAndTag.size() == 2 ? nodeAndTag.getFirst() : node;
            if (nodeAndTag.size() == 2 && node != null && !node.equals(owner)) {
                throw new IllegalArgumentException("two nodes: " + owner + " and --node " + node + "; give one");
            }
            store.lock(owner, tag, TagLock.parse(status));
            System.out.println(tag + " is now " + status);
        }
    }

    @Command(name = "relate", description = "Make PARENT (a tag of the parent folderset) point to CHILD, a tag of"
            + " --node; missing tags are created (a new folder tag is empty until 'tag' fills it).")
    static final class Relate extends Base {
        @Parameters(index = "0")
        String parent;
        @Parameters(index = "1")
        String child;
        @Option(names = "--node", description = "the child node (default: the node of the existing tag CHILD)")
        String node;

        @Override
        void run(ConditionsWriter store) {
            store.relate(node, parent, child);
            System.out.println(parent + " -> " + child);
        }
    }

    @Command(name = "delete-tag", description = "Delete a tag of an MV folder and its IOVs (refused if locked);"
            + " a tag still used by a relation stays, empty.")
    static final class DeleteTag extends FolderCommand {
        @Parameters(index = "1")
        String tag;

        @Override
        void run(ConditionsWriter store) {
            boolean freed = store.deleteTag(folder, tag);
            System.out.println(freed ? "deleted " + tag : "emptied " + tag + " (a tag relation still uses it)");
        }
    }

    @Command(name = "truncate", description = "End the open-ended IOVs valid at KEY in an SV folder at KEY.")
    static final class Truncate extends FolderCommand {
        @Parameters(index = "1", description = "the new until, as the folder's keys are written: RUN/LUMI (or raw:N)"
                + " in run-lumi folders, ns since 1970 or an ISO date/time in time folders")
        String until;
        @Option(names = "--channels", description = "all (default), N, N-M, or name:X", defaultValue = "all")
        String channels;

        @Override
        void run(ConditionsWriter store) {
            int n = store.truncate(folder, KeyText.parse(until, store.keyType(folder)), channels);
            System.out.println("truncated " + n + " IOV" + (n == 1 ? "" : "s") + " at " + until);
        }
    }

    /** A channel selection as the loader spells it: all, N, N-M or name:X. */
    public static ChannelSelection channelSelection(String s) {
        if (s.equals("all")) {
            return ChannelSelection.all();
        }
        if (s.startsWith("name:")) {
            return ChannelSelection.named(s.substring(5));
        }
        int dash = s.indexOf('-', 1);
        return dash < 0 ? ChannelSelection.channel(Long.parseLong(s))
                : ChannelSelection.range(Long.parseLong(s.substring(0, dash)), Long.parseLong(s.substring(dash + 1)));
    }

    @Command(name = "list", description = "List foldersets and folders.")
    static final class ListNodes extends Base {
        @Override
        void run(ConditionsWriter store) {
            store.list().forEach(System.out::println);
        }
    }

    public static void main(String[] args) {
        CommandLine cl = new CommandLine(new LoaderCli());
        System.exit(configure(cl).execute(args));
    }

    /** Exit codes (docs/cli.md, "The loader"): see {@link #exitCode}. */
    public static CommandLine configure(CommandLine cl) {
        // every command answers --help (and 'help COMMAND') before it checks its parameters
        helpEverywhere(cl);
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("outpost-loader: " + e.getMessage());
            return exitCode(e);
        });
        return cl;
    }

    private static void helpEverywhere(CommandLine cl) {
        for (CommandLine sub : cl.getSubcommands().values()) {
            if (sub.getCommandSpec().optionsMap().get("--help") == null) {
                sub.getCommandSpec().mixinStandardHelpOptions(true);
            }
            helpEverywhere(sub);
        }
    }

    /**
     * 2: the command line or the input file is wrong (nothing written); 3: a folder, tag or channel does not exist;
     * 4: the database or the service refused the write (not permitted, locked, overlapping, already there);
     * 5: the database or the service could not be reached; 1: anything else.
     */
    static int exitCode(Exception e) {
        if (e instanceof io.outpost.store.StoreException se) {
            return switch (se.kind().category()) {
                case NOT_FOUND -> 3;
                case BAD_INPUT -> 2;
                case CONFLICT -> 4;
                case UNAVAILABLE -> 5;
            };
        }
        if (e instanceof HttpWriter.Refused) {
            return 4;
        }
        return e instanceof IllegalArgumentException || e instanceof java.nio.file.NoSuchFileException ? 2 : 1;
    }

}
