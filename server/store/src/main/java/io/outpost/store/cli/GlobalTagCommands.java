package io.outpost.store.cli;

import io.outpost.store.globaltag.IntermediateTagNames;
import io.outpost.store.model.TagLock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code outpost-loader globaltag …}: create, lock, list and resolve global tags (tags of the root folderset), on a
 * database ({@code --url}) or through a service's write API ({@code --server --token}).
 */
@Command(name = "globaltag", description = "Global tags: create from folder=tag choices, lock, list, resolve.",
        subcommands = {GlobalTagCommands.Create.class, GlobalTagCommands.Lock.class, GlobalTagCommands.ListAll.class,
            GlobalTagCommands.Resolve.class})
final class GlobalTagCommands {

    @Command(name = "create", description = "Create global tag NAME choosing each listed folder's tag (others read"
            + " HEAD). Folderset tags on the way are named NAME.A.B for the folderset /A/B.")
    static final class Create extends LoaderCli.Base {
        @Parameters(index = "0", description = "global tag name")
        String name;
        @Parameters(index = "1..*", arity = "1..*", description = "FOLDER=TAG, e.g. /DET/Calo/Gains=GAINS-v2")
        List<String> choices;
        @Option(names = "--description", defaultValue = "")
        String description;
        @Option(names = "--lock", description = "lock the global tag and every tag it reaches once created")
        boolean lock;

        @Override
        void run(ConditionsWriter store) {
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
            store.createGlobalTag(name, description, map, lock);
            // the tag each folderset on the way gets, shown for the first folder's parent as an example
            String first = map.keySet().iterator().next();
            String parent = first.substring(0, Math.max(0, first.lastIndexOf('/')));
            System.out.println("created global tag " + name + " (" + map.size() + " folder tags"
                    + (lock ? ", locked" : "") + (parent.isEmpty() ? "" : "; the folderset " + parent + " gets tag "
                    + IntermediateTagNames.forFolderset(name, parent)) + ")");
        }
    }

    @Command(name = "lock", description = "Set the lock status of a global tag and of every tag it reaches.")
    static final class Lock extends LoaderCli.Base {
        @Parameters(index = "0")
        String name;
        @Option(names = "--status", defaultValue = "locked", description = "locked, partial or unlocked")
        String status;

        @Override
        void run(ConditionsWriter store) {
            System.out.println(name + " and every tag it reaches are now " + status
                    + store.lockGlobalTag(name, TagLock.parse(status)));
        }
    }

    @Command(name = "list", description = "List global tags: name, lock status, insertion time, description.")
    static final class ListAll extends LoaderCli.Base {
        @Override
        void run(ConditionsWriter store) {
            store.globalTags().forEach(System.out::println);
        }
    }

    @Command(name = "resolve", description = "Print every folder and the tag the global tag chooses for it (HEAD"
            + " where it reaches none).")
    static final class Resolve extends LoaderCli.Base {
        @Parameters(index = "0")
        String name;

        @Override
        void run(ConditionsWriter store) {
            store.resolveGlobalTag(name).forEach(System.out::println);
        }
    }
}
