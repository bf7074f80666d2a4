package io.outpost.store.cli;

import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.workload.Workload;
import io.outpost.store.workload.WorkloadGenerator;
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
 * tag and lock, against SQLite, PostgreSQL or Oracle.
 */
@Command(name = "outpost-loader", mixinStandardHelpOptions = true, version = "outpost-loader 0.1",
        description = "Writes conditions data into an Outpost (COOL-layout) database.",
        subcommands = {LoaderCli.CreateFolderSet.class, LoaderCli.CreateFolder.class, LoaderCli.CreateChannel.class,
            LoaderCli.Load.class, LoaderCli.Generate.class, LoaderCli.TagHead.class, LoaderCli.Lock.class,
            LoaderCli.Relate.class, LoaderCli.DeleteTag.class, LoaderCli.Truncate.class, LoaderCli.ListNodes.class,
            SnapshotCommands.Export.class, SnapshotCommands.Sync.class})
public final class LoaderCli {

    /** Where to write. */
    static final class Db {
        @Option(names = "--url", required = true, description = "JDBC URL, e.g. jdbc:sqlite:data/outpost-demo.db")
        String url;
        @Option(names = "--user", description = "database user")
        String user;
        @Option(names = "--password", description = "database password (or env OUTPOST_DB_PASSWORD)",
                defaultValue = "${env:OUTPOST_DB_PASSWORD}")
        String password;
        @Option(names = "--prefix", description = "table prefix (default OUTPOST_)", defaultValue = "OUTPOST_")
        String prefix;

        IovStore open() {
            return IovStore.open(new DatabaseConfig(url, user, password, prefix, 2, 2, null, null));
        }
    }

    abstract static class Base implements Callable<Integer> {
        @Mixin
        Db db;

        @Override
        public Integer call() throws Exception {
            try (IovStore store = db.open()) {
                run(store);
            }
            return 0;
        }

        abstract void run(IovStore store) throws Exception;
    }

    @Command(name = "create-folderset", description = "Create a folderset (a node holding folders).")
    static final class CreateFolderSet extends Base {
        @Parameters(index = "0", description = "path, e.g. /DET/Calo")
        String path;
        @Option(names = "--description", defaultValue = "")
        String description;
        @Option(names = "--parents", description = "create missing parent foldersets")
        boolean parents;

        @Override
        void run(IovStore store) {
            store.createFolderSet(path, description, parents);
            System.out.println("created folderset " + path);
        }
    }

    @Command(name = "create-folder", description = "Create a folder and its tables.")
    static final class CreateFolder extends Base {
        @Parameters(index = "0", description = "path, e.g. /DET/Calo/Pedestals")
        String path;
        @Option(names = "--versioning", defaultValue = "SV", description = "SV or MV")
        String versioning;
        @Option(names = "--keys", defaultValue = "time", description = "time (ns since epoch) or run-lumi")
        String keys;
        @Option(names = "--payload", required = true, description = "payload spec, e.g. mean:Float,label:String255")
        String payload;
        @Option(names = "--description", defaultValue = "")
        String description;
        @Option(names = "--parents", description = "create missing parent foldersets")
        boolean parents;

        @Override
        void run(IovStore store) {
            Node f = store.createFolder(path, Versioning.parse(versioning), KeyType.parse(keys), PayloadSpec.parse(payload),
                    description, parents);
            System.out.println("created folder " + f.path() + " (tables " + f.tablePrefix() + "_*)");
        }
    }

    @Command(name = "create-channel", description = "Create a channel (channels are also created on first store).")
    static final class CreateChannel extends Base {
        @Parameters(index = "0")
        String folder;
        @Parameters(index = "1")
        long id;
        @Option(names = "--name")
        String name;
        @Option(names = "--description", defaultValue = "")
        String description;

        @Override
        void run(IovStore store) {
            store.createChannel(store.folder(folder), id, name, description);
            System.out.println("created channel " + id + " in " + folder);
        }
    }

    @Command(name = "load", description = "Store IOVs from a CSV (channel,since,until,field…) or JSON file.")
    static final class Load extends Base {
        @Parameters(index = "0")
        String folder;
        @Parameters(index = "1", description = "file ending in .csv or .json")
        Path file;
        @Option(names = "--user-tag", description = "store into this user tag (MV folders)")
        String userTag;
        @Option(names = "--user-tag-only", description = "store into the user tag only, not the HEAD")
        boolean userTagOnly;
        @Option(names = "--batch", defaultValue = "10000", description = "IOVs per all-or-nothing flush")
        int batch;

        @Override
        void run(IovStore store) throws Exception {
            Node f = store.folder(folder);
            List<NewIov> rows = IovFiles.read(file, f.payloadSpec());
            try (ProgressBar bar = new ProgressBar("load", rows.size())) {
                for (int i = 0; i < rows.size(); i += batch) {
                    List<NewIov> chunk = new ArrayList<>();
                    for (NewIov r : rows.subList(i, Math.min(rows.size(), i + batch))) {
                        chunk.add(userTag == null ? r : r.withUserTag(userTag, userTagOnly));
                    }
                    store.store(f, chunk);
                    bar.stepBy(chunk.size());
                }
            }
            System.out.println("stored " + rows.size() + " IOVs in " + folder);
        }
    }

    @Command(name = "generate", description = "Generate a reference workload with random payloads.")
    static final class Generate extends Base {
        @Parameters(index = "0", description = "likeLuis1iov, likeLuis1channel, smallQueries, atlasPrompt, "
                + "atlasPromptControl, coolBrowse or coolFlat")
        String workload;
        @Option(names = "--scale", defaultValue = "1.0", description = "multiplies the workload's main count")
        double scale;
        @Option(names = "--seed", defaultValue = "42")
        long seed;

        @Override
        void run(IovStore store) {
            Workload w = Workload.parse(workload);
            try (ProgressBar bar = new ProgressBar(w.label(), w.totalIovs(scale))) {
                new WorkloadGenerator(store, seed).populate(w, scale, bar::stepTo);
            }
            System.out.println("generated " + w.totalIovs(scale) + " IOVs of " + w.label());
        }
    }

    @Command(name = "tag", description = "Tag the HEAD of an MV folder (now, or as of a date).")
    static final class TagHead extends Base {
        @Parameters(index = "0")
        String folder;
        @Parameters(index = "1")
        String tag;
        @Option(names = "--as-of", description = "ISO instant, e.g. 2026-01-01T00:00:00Z")
        Instant asOf;
        @Option(names = "--description", defaultValue = "")
        String description;

        @Override
        void run(IovStore store) {
            Node f = store.folder(folder);
            if (asOf == null) {
                store.tagCurrentHead(f, tag, description);
            } else {
                store.tagHeadAsOfDate(f, tag, asOf, description);
            }
            System.out.println("tagged " + folder + " as " + tag);
        }
    }

    @Command(name = "lock", description = "Set a tag's lock status.")
    static final class Lock extends Base {
        @Parameters(index = "0")
        String tag;
        @Option(names = "--status", defaultValue = "locked", description = "locked, partial or unlocked")
        String status;

        @Option(names = "--node", description = "the folder or folderset that owns the tag (checked when given)")
        String node;

        @Override
        void run(IovStore store) {
            if (node == null) {
                store.setTagLock(tag, TagLock.parse(status));
            } else {
                store.setTagLock(store.node(node), tag, TagLock.parse(status));
            }
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
        void run(IovStore store) {
            if (node == null) {
                store.createTagRelation(parent, child);
            } else {
                store.createTagRelation(store.node(node), parent, child);
            }
            System.out.println(parent + " -> " + child);
        }
    }

    @Command(name = "delete-tag", description = "Delete a tag of an MV folder and its IOVs (refused if locked);"
            + " a tag still used by a relation stays, empty.")
    static final class DeleteTag extends Base {
        @Parameters(index = "0")
        String folder;
        @Parameters(index = "1")
        String tag;

        @Override
        void run(IovStore store) {
            boolean freed = store.deleteTag(store.folder(folder), tag);
            System.out.println(freed ? "deleted " + tag : "emptied " + tag + " (a tag relation still uses it)");
        }
    }

    @Command(name = "truncate", description = "End the open-ended IOVs valid at KEY in an SV folder at KEY.")
    static final class Truncate extends Base {
        @Parameters(index = "0")
        String folder;
        @Parameters(index = "1", description = "the new until")
        long until;
        @Option(names = "--channels", description = "all (default), N, N-M, or name:X", defaultValue = "all")
        String channels;

        @Override
        void run(IovStore store) {
            int n = store.truncateValidity(store.folder(folder), until, channelSelection(channels));
            System.out.println("truncated " + n + " IOV" + (n == 1 ? "" : "s") + " at " + until);
        }
    }

    static ChannelSelection channelSelection(String s) {
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
        void run(IovStore store) {
            for (Node n : store.listNodes()) {
                System.out.println(n.isFolder() ? n.path() + "  " + n.versioning().shortName() + " " + n.keyType().label()
                        + " " + n.payloadSpec() : n.path() + "/");
            }
        }
    }

    public static void main(String[] args) {
        CommandLine cl = new CommandLine(new LoaderCli());
        System.exit(configure(cl).execute(args));
    }

    /** Exit codes: 0 done, 2 the input or request was wrong (nothing written), 1 anything else (e.g. database down). */
    static CommandLine configure(CommandLine cl) {
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("outpost-loader: " + e.getMessage());
            boolean badInput = e instanceof IllegalArgumentException || e instanceof java.nio.file.NoSuchFileException
                    || e instanceof io.outpost.store.StoreException se
                    && se.kind().category() != io.outpost.store.StoreException.Category.UNAVAILABLE;
            return badInput ? 2 : 1;
        });
        return cl;
    }

    static long key(String s) {
        long k = Long.parseLong(s.trim());
        return k == -1 ? ValidityKey.MAX : k;
    }
}
