package io.outpost.loadtest;

import io.outpost.store.model.NewIov;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.workload.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The data of the snapshot run, known exactly so every job's rows can be checked: folders {@code /SNAP/Fnn}
 * (single-version, time keys), each channel with {@value #IOVS} IOVs of 5 minutes (edges staggered by 3 ms per
 * channel, as in the ATLAS prompt model) and a payload of random characters derived from (folder, channel, IOV).
 * The writer appends IOV number {@value #IOVS}, {@value #IOVS}+1, … to a folder, closing its open-ended IOV.
 */
public record SnapshotModel(int folders, int largeFolders, int smallChannels, int largeChannels, int payloadChars) {
    public static final int IOVS = 60;
    public static final long IOV_LENGTH = 300_000_000_000L;
    public static final long STAGGER = 3_000_000L;

    public String folder(int f) {
        return String.format("/SNAP/F%02d", f);
    }

    /** The first {@code largeFolders} folders have many channels: their answers are given by URL. */
    public int channels(int f) {
        return f < largeFolders ? largeChannels : smallChannels;
    }

    public long since(int c, int k) {
        return Workload.T0 + k * IOV_LENGTH + c * STAGGER;
    }

    public String payload(int f, int c, int k) {
        Random r = new Random(((long) f << 40) ^ ((long) c << 20) ^ k);
        char[] s = new char[payloadChars];
        for (int i = 0; i < s.length; i++) {
            s[i] = (char) ('a' + r.nextInt(26));
        }
        return new String(s);
    }

    /** IOV {@code k} of every channel of folder f, open-ended (the writer's append, or the last initial one). */
    public List<NewIov> iovs(int f, int k, boolean openEnded) {
        List<NewIov> out = new ArrayList<>();
        for (int c = 0; c < channels(f); c++) {
            out.add(new NewIov(c, since(c, k), openEnded ? ValidityKey.MAX : since(c, k + 1), payload(f, c, k)));
        }
        return out;
    }

    /**
     * A job's key: inside the last initial IOV of every channel (after the last channel's edge), moving by 5 s
     * per job so that jobs differ, as event windows do.
     */
    public long jobKey(long job) {
        long first = since(Math.max(smallChannels, largeChannels), IOVS - 1);
        long span = Workload.T0 + IOVS * IOV_LENGTH - first;
        return first + Math.floorMod(job * 5_000_000_000L, span);
    }

    /**
     * The until of channel c's row valid at a job key inside IOV {@code IOVS - 1}: open-ended until the folder's
     * first append, then the append's since.
     */
    public long untilAtJobKey(int c, boolean appended) {
        return appended ? since(c, IOVS) : ValidityKey.MAX;
    }
}
