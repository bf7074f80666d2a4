package io.outpost.client.cli;

import io.outpost.client.Answer;
import io.outpost.client.OutpostException;
import io.outpost.client.Paths;
import io.outpost.client.Row;
import io.outpost.client.Snapshot;
import io.outpost.client.SnapshotSession;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Parameters;

/** {@code snapshot}: every folder of a global tag at one key (or a time and a run-lumi key), all at one state. */
@Command(name = "snapshot", description = {"Every folder of GLOBALTAG (or HEAD) at TIME, all at one state.",
    "A global tag holding time and run-lumi folders needs both keys: TIME and RUNLUMI (e.g. 305/50)."})
final class SnapshotCommand implements Callable<Integer> {
    @ParentCommand OutpostCli cli;
    @Parameters(index = "0", paramLabel = "GLOBALTAG") String globalTag;
    @Parameters(index = "1", paramLabel = "TIME") String time;
    @Parameters(index = "2", arity = "0..1", paramLabel = "RUNLUMI") String runLumi;

    @Override
    public Integer call() throws OutpostException {
        cli.checkOptions();
        CliTime.Key t = CliTime.key(time);
        CliTime.Key rl = runLumi == null ? null : CliTime.key(runLumi);
        if (rl != null) {   // the pair form: each key in the folders of its type
            t.in(false);
            rl.in(true);
        }
        Paths.checkTag(globalTag);
        SnapshotSession session = cli.client().snapshotSession(globalTag, null);
        Snapshot snap = rl == null ? session.at(t.value()) : session.at(t.value(), rl.value());
        if (rl == null) {   // one key, read in every folder: it must fit the folders' key type
            t.in(snap.runLumi() != null);
        }
        RowWriter.Format format = cli.format();
        if (format == RowWriter.Format.JSON) {
            cli.out.print("{\"kind\":\"snapshot\",\"globalTag\":" + RowWriter.Json.str(snap.globalTag())
                    + ",\"state\":" + RowWriter.Json.str(snap.state()) + ",\"validity\":["
                    + validity("time", snap.time()) + (snap.time() != null && snap.runLumi() != null ? "," : "")
                    + validity("run-lumi", snap.runLumi()) + "],\n \"folders\":[\n");
        }
        boolean first = true;
        for (Snapshot.FolderSnapshot f : snap.folders().values()) {
            if (!first) {
                cli.out.println(format == RowWriter.Format.JSON ? "," : "");
            }
            first = false;
            if (format != RowWriter.Format.JSON) {
                cli.out.println("# folder " + f.folder() + " tag " + f.tag());
            }
            RowWriter w = RowWriter.of(format, cli.out);
            Answer a = f.answer();
            w.begin("iovs", f.folder(), f.tag(), a.validSince(), a.validUntil(), a.schema());
            boolean keysAsRunLumi = format != RowWriter.Format.JSON && "run-lumi".equals(f.keyType());
            for (Row r : a.rows()) {
                Object[] v = r.values().toArray();
                w.row(keysAsRunLumi ? OutpostCli.runLumiKeys(v) : v);
            }
            w.end();
        }
        if (format == RowWriter.Format.JSON) {
            cli.out.println("]}");
            cli.out.flush();
        }
        return 0;
    }

    private static String validity(String keyType, Snapshot.Validity v) {
        return v == null ? "" : "{\"keyType\":\"" + keyType + "\",\"validSince\":" + v.since()
                + ",\"validUntil\":" + v.until() + "}";
    }
}
