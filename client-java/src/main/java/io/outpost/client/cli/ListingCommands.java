package io.outpost.client.cli;

import io.outpost.client.OutpostClient;
import io.outpost.client.OutpostException;
import io.outpost.client.Paths;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Parameters;

/** The commands that print one answer of the API as it came: folders, channels, tags, global tags. */
final class ListingCommands {
    private ListingCommands() {
    }

    /** A listing: the API path it asks, printed in the chosen format. */
    abstract static class Listing implements Callable<Integer> {
        @ParentCommand OutpostCli cli;

        /** The API path; a bad folder or tag spelling is a usage error (IllegalArgumentException). */
        abstract String path();

        @Override
        public Integer call() throws OutpostException {
            cli.checkOptions();
            OutpostClient client = cli.client();
            return cli.write(client.fetch(path()));
        }
    }

    @Command(name = "nodes", aliases = "folders", description = "Every folder and folderset.")
    static final class Nodes extends Listing {
        @Override
        String path() {
            return Paths.nodes();
        }
    }

    @Command(name = "channels", description = "The channels of a folder.")
    static final class Channels extends Listing {
        @Parameters(index = "0", paramLabel = "FOLDER") String folder;

        @Override
        String path() {
            return Paths.channels(folder);
        }
    }

    @Command(name = "tags", description = "The tags of a folder or folderset.")
    static final class Tags extends Listing {
        @Parameters(index = "0", paramLabel = "NODE") String node;

        @Override
        String path() {
            return Paths.tags(node);
        }
    }

    @Command(name = "tag", description = "The tag of FOLDER that TAG (its own or a parent's) resolves to.")
    static final class Tag extends Listing {
        @Parameters(index = "0", paramLabel = "FOLDER") String folder;
        @Parameters(index = "1", paramLabel = "TAG") String tag;

        @Override
        String path() {
            return Paths.tag(tag, folder);
        }
    }

    @Command(name = "globaltags", description = "Every global tag: name, lock, description, insertion time.")
    static final class GlobalTags extends Listing {
        @Override
        String path() {
            return Paths.globalTags();
        }
    }
}
