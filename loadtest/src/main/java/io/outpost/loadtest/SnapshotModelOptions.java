package io.outpost.loadtest;

import java.util.List;
import picocli.CommandLine.Option;

/**
 * The options that shape a {@link SnapshotModel}, shared by the snapshot run and the grid's commands. Each command
 * gives its own defaults (the grid runs a smaller model than the snapshot run); they are the fields' initial values.
 */
public final class SnapshotModelOptions {
    @Option(names = "--folders", description = "folders under /SNAP. Default: ${DEFAULT-VALUE}")
    int folders;
    @Option(names = "--large-folders", description = "of which large (by URL). Default: ${DEFAULT-VALUE}")
    int largeFolders;
    @Option(names = "--small-channels", description = "channels of a small folder. Default: ${DEFAULT-VALUE}")
    int smallChannels;
    @Option(names = "--large-channels", description = "channels of a large folder. Default: ${DEFAULT-VALUE}")
    int largeChannels;
    @Option(names = "--payload-chars", description = "random characters per IOV. Default: ${DEFAULT-VALUE}")
    int payloadChars;

    /** The options with these defaults. */
    public SnapshotModelOptions(int folders, int largeFolders, int smallChannels, int largeChannels, int payloadChars) {
        this.folders = folders;
        this.largeFolders = largeFolders;
        this.smallChannels = smallChannels;
        this.largeChannels = largeChannels;
        this.payloadChars = payloadChars;
    }

    public SnapshotModel model() {
        return new SnapshotModel(folders, largeFolders, smallChannels, largeChannels, payloadChars);
    }

    /** The same model as arguments, for a command started with it. */
    public List<String> args() {
        return List.of("--folders", Integer.toString(folders), "--large-folders", Integer.toString(largeFolders),
                "--small-channels", Integer.toString(smallChannels), "--large-channels", Integer.toString(largeChannels),
                "--payload-chars", Integer.toString(payloadChars));
    }
}
