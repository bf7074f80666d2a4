package io.outpost.store.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Iov;
import io.outpost.store.model.Node;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.ValidityKey;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The loader command line end to end on a real SQLite file: what it writes is read back through the store. */
class LoaderCliTest {
    @TempDir
    Path dir;

    private final StringWriter err = new StringWriter();

    private int run(String url, String... args) {
        CommandLine cl = LoaderCli.configure(new CommandLine(new LoaderCli()));
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter()));
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--url", url));
        return cl.execute(all.toArray(String[]::new));
    }

    @Test
    void createsFoldersLoadsCsvAndJsonTagsLocksAndGenerates() throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("loader.db");
        assertThat(run(url, "create-folder", "/DET/sv", "--payload", "i:Int32,s:String255", "--parents", "--create")).isZero();
        assertThat(run(url, "create-folder", "/DET/mv", "--versioning", "MV", "--keys", "run-lumi", "--payload", "g:Double")).isZero();
        assertThat(run(url, "create-channel", "/DET/sv", "7", "--name", "CH7")).isZero();

        Path csv = dir.resolve("sv.csv");
        Files.writeString(csv, "channel,since,until,i,s\n7,0,10,1,\"a, quoted\"\n7,10,max,2,\n");
        assertThat(run(url, "load", "/DET/sv", csv.toString())).isZero();
        Path json = dir.resolve("mv.json");
        Files.writeString(json, "[{\"channel\":1,\"since\":\"min\",\"until\":\"max\",\"payload\":{\"g\":1.5}},"
                + "{\"channel\":1,\"since\":\"raw:5\",\"until\":\"0/8\",\"payload\":{\"g\":2.5}}]");
        assertThat(run(url, "load", "/DET/mv", json.toString())).isZero();
        assertThat(run(url, "tag", "/DET/mv", "MV-1")).isZero();
        assertThat(run(url, "lock", "MV-1")).isZero();
        assertThat(run(url, "relate", "DET-ALL", "MV-1")).isZero();
        assertThat(run(url, "generate", "coolBrowse", "--scale", "0.01")).isZero();
        assertThat(run(url, "generate", "manyFolders", "--scale", "0.04")).isZero();
        // a bad row refuses the whole file and says so (exit code 2: the input is wrong)
        Path bad = dir.resolve("bad.csv");
        Files.writeString(bad, "channel,since,until,i,s\n8,5,3,1,x\n");
        assertThat(run(url, "load", "/DET/sv", bad.toString())).as(err.toString()).isEqualTo(2);
        assertThat(err.toString()).contains(bad + " line 2: since 5 must be lower than until 3");

        try (IovStore store = IovStore.open(DatabaseConfig.of(url))) {
            Node sv = store.folder("/DET/sv");
            List<Iov> rows = new ArrayList<>();
            store.browse(sv, 0, ValidityKey.MAX, ChannelSelection.all(), null, rows::add);
            assertThat(rows).hasSize(2);
            assertThat(rows.get(0).payload()).containsExactly(1, "a, quoted");
            assertThat(rows.get(1).payload()).containsExactly(2, null);
            assertThat(rows.get(1).until()).isEqualTo(ValidityKey.MAX);
            Node mv = store.folder("/DET/mv");
            assertThat(store.count(mv, 0, ValidityKey.MAX, ChannelSelection.all(), null)).isEqualTo(3);
            assertThat(store.tag("MV-1").lock()).isEqualTo(TagLock.LOCKED);
            assertThat(store.resolveTag(mv, "DET-ALL").name()).isEqualTo("MV-1");
            assertThat(new io.outpost.store.globaltag.GlobalTags(store).resolve("SCALE-GT", "/SCALE")).hasSize(4);
            Node gen = store.folder("/LOAD/coolBrowse");
            assertThat(store.count(gen, 0, ValidityKey.MAX, ChannelSelection.all(), null)).isEqualTo(10 * 200);
        }
    }

    @Test
    void truncatesDeletesTagsAndRelatesOnANode() throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("cool.db");
        assertThat(run(url, "create-folder", "/DET/sv", "--payload", "i:Int32", "--parents", "--create")).isZero();
        assertThat(run(url, "create-folder", "/DET/mv", "--versioning", "MV", "--payload", "i:Int32")).isZero();
        assertThat(run(url, "create-channel", "/DET/sv", "3", "--name", "C3")).isZero();
        Path sv = dir.resolve("sv.csv");
        Files.writeString(sv, "channel,since,until,i\n3,0,max,1\n4,0,10,2\n4,10,max,3\n");
        assertThat(run(url, "load", "/DET/sv", sv.toString())).isZero();
        Path mv = dir.resolve("mv.csv");
        Files.writeString(mv, "channel,since,until,i\n1,0,max,1\n");
        assertThat(run(url, "load", "/DET/mv", mv.toString())).isZero();

        assertThat(run(url, "truncate", "/DET/sv", "50", "--channels", "name:C3")).isZero();
        // channel 4's IOV valid at 5 is closed: refused, nothing changes
        assertThat(run(url, "truncate", "/DET/sv", "5")).isEqualTo(2);
        assertThat(err.toString()).contains("not open-ended");

        // the child tag does not exist yet: created empty in the named node, then filled by tagging the HEAD
        assertThat(run(url, "relate", "DET-1", "MV-1", "--node", "/DET/mv")).isZero();
        assertThat(run(url, "tag", "/DET/mv", "MV-1")).isZero();
        assertThat(run(url, "lock", "MV-1", "--node", "/DET")).as(err.toString()).isEqualTo(3);   // not found
        assertThat(err.toString()).contains("no tag 'MV-1' in '/DET'");
        assertThat(run(url, "lock", "/DET/mv", "MV-1")).isZero();   // NODE TAG, as 'tag FOLDER TAG'
        assertThat(run(url, "lock", "/DET", "MV-1")).isEqualTo(3);
        assertThat(run(url, "delete-tag", "/DET/mv", "MV-1")).isEqualTo(4);   // refused: the tag is locked
        assertThat(err.toString()).contains("locked");
        assertThat(run(url, "lock", "MV-1", "--node", "/DET/mv", "--status", "unlocked")).isZero();
        assertThat(run(url, "delete-tag", "/DET/mv", "MV-1")).isZero();

        try (IovStore store = IovStore.open(DatabaseConfig.of(url))) {
            List<Iov> rows = new ArrayList<>();
            store.browse(store.folder("/DET/sv"), 0, ValidityKey.MAX, ChannelSelection.all(), null, rows::add);
            assertThat(rows).extracting(Iov::channelId, Iov::until)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(3L, 50L),
                            org.assertj.core.groups.Tuple.tuple(4L, 10L),
                            org.assertj.core.groups.Tuple.tuple(4L, ValidityKey.MAX));
            Node folder = store.folder("/DET/mv");
            // the relation still uses MV-1: it stays, empty
            assertThat(store.resolveTag(folder, "DET-1").name()).isEqualTo("MV-1");
            assertThat(store.count(folder, 0, ValidityKey.MAX, ChannelSelection.all(), "DET-1")).isZero();
        }
    }

    @Test
    void createsLocksListsAndResolvesGlobalTags() throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("gt.db");
        assertThat(run(url, "create-folder", "/DET/Calo/mv", "--versioning", "MV", "--payload", "g:Double", "--parents",
                "--create"))
                .isZero();
        assertThat(run(url, "create-folder", "/DET/sv", "--payload", "g:Double")).isZero();
        Path rows = dir.resolve("gt.csv");
        Files.writeString(rows, "channel,since,until,g\n0,0,max,1.5\n");
        assertThat(run(url, "load", "/DET/Calo/mv", rows.toString())).isZero();   // an empty HEAD cannot be tagged
        assertThat(run(url, "tag", "/DET/Calo/mv", "MV-1")).isZero();
        assertThat(run(url, "globaltag", "create", "GT-A", "/DET/Calo/mv=MV-1", "--description", "first")).isZero();
        assertThat(run(url, "globaltag", "lock", "GT-A")).isZero();
        assertThat(run(url, "globaltag", "list")).isZero();
        assertThat(run(url, "globaltag", "resolve", "GT-A")).isZero();
        // wrong input: not FOLDER=TAG, a single-version folder (exit code 2), an unknown global tag (3); nothing written
        assertThat(run(url, "globaltag", "create", "GT-B", "/DET/Calo/mv")).isEqualTo(2);
        assertThat(err.toString()).contains("is not FOLDER=TAG");
        assertThat(run(url, "globaltag", "create", "GT-B", "/DET/sv=MV-1")).isEqualTo(2);
        assertThat(err.toString()).contains("single-version");
        assertThat(run(url, "globaltag", "lock", "NOPE")).isEqualTo(3);

        try (IovStore store = IovStore.open(DatabaseConfig.of(url))) {
            var gts = new io.outpost.store.globaltag.GlobalTags(store);
            assertThat(gts.list()).extracting(io.outpost.store.globaltag.GlobalTag::name).containsExactly("GT-A");
            assertThat(gts.find("GT-A").lock()).isEqualTo(TagLock.LOCKED);
            assertThat(gts.find("GT-A").description()).isEqualTo("first");
            assertThat(store.tag("GT-A.DET.Calo").lock()).isEqualTo(TagLock.LOCKED);
            assertThat(store.resolveTag(store.folder("/DET/Calo/mv"), "GT-A").name()).isEqualTo("MV-1");
        }
    }

    /** A header names the columns; any order of them stores the same IOVs (random orders, random rows). */
    @Test
    void columnsAreMatchedByTheirNamesInAnyOrder() throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("order.db");
        assertThat(run(url, "create-folder", "/DET/g", "--keys", "run-lumi", "--payload",
                "gain:Double,err:Double,label:String255,n:Int32", "--parents", "--create")).isZero();
        java.util.Random random = new java.util.Random();
        long seed = random.nextLong();
        random = new java.util.Random(seed);
        List<String> names = new ArrayList<>(List.of("channel", "since", "until", "gain", "err", "label", "n"));
        List<Object[]> expected = new ArrayList<>();
        for (int file = 0; file < 5; file++) {
            java.util.Collections.shuffle(names, random);
            StringBuilder csv = new StringBuilder(String.join(",", names)).append('\n');
            int rows = 1 + random.nextInt(20);
            for (int r = 0; r < rows; r++) {
                long channel = file * 100L + r;
                int run = 1 + random.nextInt(1000);
                Object[] row = {channel, ValidityKey.fromRunLumi(run, 0), ValidityKey.fromRunLumi(run + 1, 5),
                    random.nextDouble(), random.nextDouble(), "l" + random.nextInt(), random.nextInt()};
                expected.add(row);
                List<String> cells = new ArrayList<>();
                for (String name : names) {
                    cells.add(switch (name) {
                        case "channel" -> row[0].toString();
                        case "since" -> run + "/0";        // RUN/LUMI as a person types it
                        case "until" -> "raw:" + row[2];   // the raw key, spelled as one
                        case "gain" -> row[3].toString();
                        case "err" -> row[4].toString();
                        case "label" -> row[5].toString();
                        default -> row[6].toString();
                    });
                }
                csv.append(String.join(",", cells)).append('\n');
            }
            Path f = dir.resolve("order" + file + ".csv");
            Files.writeString(f, csv);
            assertThat(run(url, "load", "/DET/g", f.toString())).as("seed " + seed + ": " + err).isZero();
        }
        try (IovStore store = IovStore.open(DatabaseConfig.of(url))) {
            List<Iov> stored = new ArrayList<>();
            store.browse(store.folder("/DET/g"), 0, ValidityKey.MAX, ChannelSelection.all(), null, stored::add);
            assertThat(stored).as("seed " + seed).hasSameSizeAs(expected);
            for (Object[] e : expected) {
                Iov got = stored.stream().filter(i -> i.channelId() == (Long) e[0]).findFirst().orElseThrow();
                assertThat(got.since()).as("seed " + seed).isEqualTo(e[1]);
                assertThat(got.until()).as("seed " + seed).isEqualTo(e[2]);
                assertThat(got.payload()).as("seed " + seed).containsExactly(e[3], e[4], e[5], e[6]);
            }
        }
    }

    @Test
    void refusesUnknownMissingAndRepeatedColumnsWithFileAndLine() throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("header.db");
        assertThat(run(url, "create-folder", "/DET/g", "--payload", "gain:Double,err:Double", "--parents", "--create"))
                .isZero();
        String[][] cases = {
            {"chan,since,until,gain,err\n1,0,max,1.2,0.002\n", "line 1: unknown column 'chan'"},
            {"channel,since,until,foo,bar\n1,0,max,1.2,0.002\n", "line 1: unknown column 'foo'"},
            {"channel,since,until,gain\n1,0,max,1.2\n", "line 1: missing column err"},
            {"channel,since,until,gain,gain,err\n1,0,max,1,2,3\n", "line 1: column 'gain' appears twice"},
            {"channel,since,until,gain,err\n1,0,max,1.2\n", "line 2: expected 5 columns"},
            {"channel,since,until,gain,err\n1,300/0,max,1.2,0.1\n", "line 2: '300/0' is not a validity key"},
        };
        for (String[] c : cases) {
            Path f = dir.resolve("bad.csv");
            Files.writeString(f, c[0]);
            err.getBuffer().setLength(0);
            assertThat(run(url, "load", "/DET/g", f.toString())).as(c[0]).isEqualTo(2);
            assertThat(err.toString()).as(c[0]).contains(f + " " + c[1]);
        }
        Path json = dir.resolve("bad.json");
        Files.writeString(json, "[{\"channel\":1,\"since\":0,\"until\":\"max\",\"payload\":{\"gian\":1.5}}]");
        assertThat(run(url, "load", "/DET/g", json.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("unknown payload field 'gian'");
        try (IovStore store = IovStore.open(DatabaseConfig.of(url))) {
            assertThat(store.count(store.folder("/DET/g"), 0, ValidityKey.MAX, ChannelSelection.all(), null)).isZero();
        }
        // the swapped header of the report: stored by name, not by position
        Path swapped = dir.resolve("swapped.csv");
        Files.writeString(swapped, "channel,since,until,err,gain\n1,0,max,0.002,1.2\n");
        assertThat(run(url, "load", "/DET/g", swapped.toString())).as(err.toString()).isZero();
        try (IovStore store = IovStore.open(DatabaseConfig.of(url))) {
            List<Iov> rows = new ArrayList<>();
            store.browse(store.folder("/DET/g"), 0, ValidityKey.MAX, ChannelSelection.all(), null, rows::add);
            assertThat(rows.getFirst().payload()).containsExactly(1.2, 0.002);
        }
    }

    @Test
    void aMissingSqliteFileIsCreatedOnlyByCreatingCommandsWithCreate() throws Exception {
        Path typo = dir.resolve("typo.db");
        String url = "jdbc:sqlite:" + typo;
        assertThat(run(url, "list")).isEqualTo(2);
        assertThat(err.toString()).contains("no database file '" + typo + "'").contains("--create");
        assertThat(run(url, "create-folder", "/A/b", "--payload", "x:Int32", "--parents")).isEqualTo(2);
        assertThat(run(url, "globaltag", "list")).isEqualTo(2);
        assertThat(typo).doesNotExist();
        assertThat(run(url, "create-folderset", "/A", "--create")).isZero();
        assertThat(typo).exists();
        assertThat(run(url, "list")).isZero();
    }

    @Test
    void everyCommandPrintsItsHelpBeforeCheckingParameters() {
        for (String[] args : new String[][] {{"load", "--help"}, {"tag", "--help"}, {"globaltag", "--help"},
            {"globaltag", "create", "--help"}, {"export", "--help"}, {"help", "load"}}) {
            CommandLine cl = LoaderCli.configure(new CommandLine(new LoaderCli()));
            StringWriter out = new StringWriter();
            cl.setOut(new PrintWriter(out, true));
            cl.setErr(new PrintWriter(err, true));
            assertThat(cl.execute(args)).as(String.join(" ", args) + ": " + err).isZero();
            assertThat(out.toString()).as(String.join(" ", args)).contains("Usage: outpost-loader");
        }
    }
}
