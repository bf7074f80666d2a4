package io.outpost.store.workload;

import io.outpost.store.model.KeyType;
import io.outpost.store.model.PayloadSpec;
import java.util.Locale;

/**
 * The reference workloads of the COOL/Frontier/ATLAS studies (docs/workloads in shared reference), as data sets
 * to generate. {@code scaled} is the dimension a scale factor shrinks or grows; the others stay fixed so the
 * shape of each query stays the same.
 */
public enum Workload {
    /** 1 folder, 10,000 channels × 1 IOV, 50-byte random string: "all channels at t" is ~1 MB. */
    LIKE_LUIS_1IOV("likeLuis1iov", 1, 10_000, 1, "s:String255", 50, Dimension.CHANNELS, 0),
    /** 1 folder, 1 channel × 10,000 IOVs, 50-byte random string. */
    LIKE_LUIS_1CHANNEL("likeLuis1channel", 1, 1, 10_000, "s:String255", 50, Dimension.IOVS, 0),
    /** 200 folders × 500 channels × 50 IOVs, 10 integers + a float + a 100-character string (~177 bytes). */
    SMALL_QUERIES("smallQueries", 200, 500, 50,
            "i0:Int32,i1:Int32,i2:Int32,i3:Int32,i4:Int32,i5:Int32,i6:Int32,i7:Int32,i8:Int32,i9:Int32,f:Float,s:String255",
            100, Dimension.FOLDERS, 0),
    /** 100 folders × 1,000 channels × 60 five-minute IOVs staggered by 3 ms per channel, 1,000-character strings. */
    ATLAS_PROMPT("atlasPrompt", 100, 1_000, 60, "s:String4k", 1000, Dimension.FOLDERS, 3_000_000L),
    /** 1 folder, 1 channel, 100,000 one-second IOVs of 1,000 characters. */
    ATLAS_PROMPT_CONTROL("atlasPromptControl", 1, 1, 100_000, "s:String4k", 1000, Dimension.IOVS, 0),
    /** 1 folder, 10 channels × 20,000 IOVs (200k), an int and a ~100-character string. */
    COOL_BROWSE("coolBrowse", 1, 10, 20_000, "i:Int32,s:String255", 100, Dimension.IOVS, 0),
    /** 1 folder, 10 channels × 100,000 IOVs (1M): COOL's flat-time test. */
    COOL_FLAT("coolFlat", 1, 10, 100_000, "i:Int32,s:String255", 100, Dimension.IOVS, 0);

    /** Which count a scale factor multiplies. */
    public enum Dimension { FOLDERS, CHANNELS, IOVS }

    /** Start of every workload's keys: 2026-01-01T00:00:00Z in ns. */
    public static final long T0 = 1_767_225_600_000_000_000L;

    private final String label;
    private final int folders;
    private final int channels;
    private final int iovsPerChannel;
    private final String payloadSpec;
    private final int stringLength;
    private final Dimension scaled;
    private final long staggerNanos;

    Workload(String label, int folders, int channels, int iovsPerChannel, String payloadSpec, int stringLength,
             Dimension scaled, long staggerNanos) {
        this.label = label;
        this.folders = folders;
        this.channels = channels;
        this.iovsPerChannel = iovsPerChannel;
        this.payloadSpec = payloadSpec;
        this.stringLength = stringLength;
        this.scaled = scaled;
        this.staggerNanos = staggerNanos;
    }

    public String label() {
        return label;
    }

    public int folders(double scale) {
        return scaled == Dimension.FOLDERS ? scale(folders, scale) : folders;
    }

    public int channels(double scale) {
        return scaled == Dimension.CHANNELS ? scale(channels, scale) : channels;
    }

    public int iovsPerChannel(double scale) {
        return scaled == Dimension.IOVS ? scale(iovsPerChannel, scale) : iovsPerChannel;
    }

    public long totalIovs(double scale) {
        return (long) folders(scale) * channels(scale) * iovsPerChannel(scale);
    }

    public PayloadSpec payloadSpec() {
        return PayloadSpec.parse(payloadSpec);
    }

    public int stringLength() {
        return stringLength;
    }

    public KeyType keyType() {
        return KeyType.TIME;
    }

    /** Length of one IOV in ns: 5 minutes for atlasPrompt, 1 s otherwise. */
    public long iovLength() {
        return this == ATLAS_PROMPT ? 300_000_000_000L : 1_000_000_000L;
    }

    /** Shift of IOV edges per channel number (atlasPrompt staggers edges by 3 ms between channels). */
    public long staggerNanos() {
        return staggerNanos;
    }

    /** The path of folder number {@code i} of this workload. */
    public String folderPath(int i) {
        return folders == 1 ? "/LOAD/" + label : String.format("/LOAD/%s/F%03d", label, i);
    }

    /** A key inside the workload's data, {@code fraction} of the way through it (0 … 1). */
    public long keyAt(double fraction, double scale) {
        long span = iovsPerChannel(scale) * iovLength();
        return T0 + staggerNanos * channels(scale) + (long) (Math.max(0, Math.min(1, fraction)) * (span - 1));
    }

    public static Workload parse(String s) {
        for (Workload w : values()) {
            if (w.label.equalsIgnoreCase(s) || w.name().equalsIgnoreCase(s)) {
                return w;
            }
        }
        throw new IllegalArgumentException("unknown workload '" + s + "'; known: likeLuis1iov, likeLuis1channel, "
                + "smallQueries, atlasPrompt, atlasPromptControl, coolBrowse, coolFlat");
    }

    private static int scale(int n, double factor) {
        return (int) Math.max(1, Math.round(n * factor));
    }

    @Override
    public String toString() {
        return label.toLowerCase(Locale.ROOT).equals(label) ? label : label;
    }
}
