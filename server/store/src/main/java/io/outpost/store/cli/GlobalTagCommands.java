package io.outpost.store.cli;

import io.outpost.store.IovStore;
import io.outpost.store.globaltag.FolderChoice;
import io.outpost.store.globaltag.GlobalTag;
import io.outpost.store.globaltag.GlobalTags;
import io.outpost.store.globaltag.IntermediateTagNames;
import io.outpost.store.model.TagLock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code outpost-loader globaltag …}: create, lock, list and resolve global tags (tags of the root folderset). */
@Command(name = "globaltag", description = "Global tags: create from folder=tag choices, lock, list, resolve.",
        subcommands = {GlobalTagCommands.Create.class, GlobalTagCommands.Lock.class, GlobalTagCommands.ListAll.class,
            GlobalTagCommands.Resolve.class})
final class GlobalTagCommands {

    /** Global tags are created and locked on a database (--url); through a service, relate and lock tags instead. */
    abstract static class OnDatabase implements Callable<Integer> {
        @Mixin
        LoaderCli.Db db;

        @Override
        public Integer call() {
            try (IovStore store = db.open()) {
                run(store);
            }
            return 0;
        }

        abstract void run(IovStore store);
    }

    @Command(name = "create", description = "Create global tag NAME choosing each listed folder's tag (others read"
            + " HEAD). Folderset tags on the way are named NAME.A.B for the folderset /A/B.")
    static final class Create extends OnDatabase {
        @Parameters(index = "0", description = "global tag name")
        String name;
        @Parameters(index = "1..*", arity = "1..*", description = "FOLDER=TAG, e.g. /DET/Calo/Gains=GAINS-v2")
        List<String> choices;
        @Option(names = "--description", defaultValue = "")
        String description;
        @Option(names = "--lock", description = "lock the global tag and every tag it reaches once created")
        boolean lock;

        @Override
        void run(IovStore store) {
            Map<String, String> map = new LinkedHashMap<>();
            for (String c : choices) {
                int eq = c.lastIndexOf('=');
                if (eq <= 0 || eq == c.length() - 1) {
                    throw new IllegalArgumentException("'" + c + "' is not FOLDER=TAG, e.g. /DET/Calo/Gains=GAINS-v2");
                }
                if (map.put(c.substring(0, eq), c.substring(eq + 1)) != null) {
                    throw new IllegalArgumentException("folder '" + c.substring(0, eq) + "' is listed twice");
                }
            }
            GlobalTags gts = new GlobalTags(store);
            gts.create(name, description, map);
            if (lock) {
                gts.lock(name, TagLock.LOCKED);
            }
            // the tag each folderset on the way gets, shown for the first folder's parent as an example
            String first = map.keySet().iterator().next();
            String parent = first.substring(0, Math.max(0, first.lastIndexOf('/')));
            System.out.println("created global tag " + name + " (" + map.size() + " folder tags"
                    + (lock ? ", locked" : "") + (parent.isEmpty() ? "" : "; the folderset " + parent + " gets tag "
                    + IntermediateTagNames.forFolderset(name, parent)) + ")");
        }
    }

    @Command(name = "lock", description = "Set the lock status of a global tag and of every tag it reaches.")
    static final class Lock extends OnDatabase {
        @Parameters(index = "0")
        String name;
        @Option(names = "--status", defaultValue = "locked", description = "locked, partial or unlocked")
        String status;

        @Override
        void run(IovStore store) {
            GlobalTags gts = new GlobalTags(store);
            gts.lock(name, TagLock.parse(status), "outpost-loader (" + System.getProperty("user.name") + ")");
            String frozenAt = gts.frozenAt(name);
            System.out.println(name + " and every tag it reaches are now " + status + (frozenAt == null ? ""
                    : "; it serves the " + gts.frozenFolders(name).size() + " folders it served at " + frozenAt
                    + ", with the HEADs it read as of then"));
        }
    }

    @Command(name = "list", description = "List global tags: name, lock status, insertion time, description.")
    static final class ListAll extends OnDatabase {
        @Override
        void run(IovStore store) {
            for (GlobalTag gt : new GlobalTags(store).list()) {
                System.out.println(gt.name() + "\t" + gt.lock().name().toLowerCase(Locale.ROOT) + "\t"
                        + gt.insertionTime() + "\t" + gt.description());
            }
        }
    }

    @Command(name = "resolve", description = "Print every folder and the tag the global tag chooses for it (HEAD"
            + " where it reaches none).")
    static final class Resolve extends OnDatabase {
        @Parameters(index = "0")
        String name;

        @Override
        void run(IovStore store) {
            for (FolderChoice c : new GlobalTags(store).resolve(name)) {
                System.out.println(c.folder().path() + "\t" + c.tagName());
            }
        }
    }
}
