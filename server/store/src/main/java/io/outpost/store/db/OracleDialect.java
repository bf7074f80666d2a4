package io.outpost.store.db;

import com.zaxxer.hikari.HikariConfig;
import io.outpost.store.model.StorageType;
import java.time.Duration;

/**
 * Oracle: COOL's own SQL, with the hints that pin the nested-loop plan whatever the statistics and the
 * peeked binds (NO_BIND_AWARE, named query blocks, LEADING/USE_NL and the index to use per layer).
 */
public final class OracleDialect extends Dialect {

    @Override
    public String name() {
        return "oracle";
    }

    @Override
    public String integerType() {
        return "NUMBER(10)";
    }

    @Override
    public String bigintType() {
        return "NUMBER(20)";
    }

    @Override
    public String stringType(int length) {
        return "VARCHAR2(" + length + ")";
    }

    @Override
    public String typeOf(StorageType type) {
        return switch (type) {
            case BOOL -> "NUMBER(1)";
            case UCHAR -> "NUMBER(3)";
            case INT16, UINT16 -> "NUMBER(5)";
            case INT32, UINT32 -> "NUMBER(10)";
            case UINT63, INT64 -> "NUMBER(20)";
            case FLOAT -> "BINARY_FLOAT";
            case DOUBLE -> "BINARY_DOUBLE";
            case STRING255 -> "VARCHAR2(255)";
            case STRING4K -> "VARCHAR2(4000)";
            case STRING64K, STRING16M -> "CLOB";
            case BLOB64K, BLOB16M -> "BLOB";
        };
    }

    /** COOL's hints for the main query block and the MAX1 probe, per layer kind. */
    String hints(BrowseSpec spec) {
        String idx = switch (spec.layer().kind()) {
            case SINGLE_VERSION -> "INDEX(@MAIN I3@MAIN (CHANNEL_ID IOV_SINCE IOV_UNTIL))";
            case USER_TAG -> "INDEX_RS_ASC(@MAIN I3@MAIN (USER_TAG_ID NEW_HEAD_ID CHANNEL_ID IOV_SINCE IOV_UNTIL))";
            case STANDARD_TAG -> "INDEX_RS_ASC(@MAIN I3@MAIN (TAG_ID CHANNEL_ID IOV_SINCE IOV_UNTIL))"
                    + " INDEX_RS_ASC(@MAIN I4@MAIN (OBJECT_ID))";
        };
        String idx1 = switch (spec.layer().kind()) {
            case SINGLE_VERSION -> "INDEX(@MAX1 I1@MAX1 (CHANNEL_ID IOV_SINCE IOV_UNTIL))";
            case USER_TAG -> "INDEX_RS_ASC(@MAX1 I1@MAX1 (USER_TAG_ID NEW_HEAD_ID CHANNEL_ID IOV_SINCE IOV_UNTIL))";
            case STANDARD_TAG -> "INDEX_RS_ASC(@MAX1 I1@MAX1 (TAG_ID CHANNEL_ID IOV_SINCE IOV_UNTIL))";
        };
        String leading = spec.joinsPayloadRow()
                ? "LEADING(@MAIN C2@MAIN I3@MAIN I4@MAIN) USE_NL(@MAIN I3@MAIN) USE_NL(@MAIN I4@MAIN)"
                : "LEADING(@MAIN C2@MAIN I3@MAIN) USE_NL(@MAIN I3@MAIN)";
        return "/*+ NO_BIND_AWARE QB_NAME(MAIN) " + idx + " " + leading + " " + idx1
                + " OPT_PARAM('OPTIMIZER_ADAPTIVE_FEATURES','FALSE') */ ";
    }

    @Override
    public Sql browse(BrowseSpec spec, boolean count) {
        return CoalesceMaxBrowse.build(this, spec, count, hints(spec), ", ", "/*+ QB_NAME(MAX1) */ ");
    }

    @Override
    public String insertChannelIfMissingSql(String channelTable) {
        return "MERGE INTO " + channelTable + " C USING (SELECT ? AS CHANNEL_ID FROM DUAL) S"
                + " ON (C.CHANNEL_ID = S.CHANNEL_ID)"
                + " WHEN NOT MATCHED THEN INSERT (CHANNEL_ID, LAST_OBJECT_ID, HAS_NEW_DATA) VALUES (S.CHANNEL_ID, 0, 0)";
    }

    @Override
    void networkTimeouts(HikariConfig h, long connectSeconds, Duration socket) {
        h.addDataSourceProperty("oracle.net.CONNECT_TIMEOUT", Long.toString(connectSeconds * 1000));
        if (socket != null) {
            h.addDataSourceProperty("oracle.jdbc.ReadTimeout", Long.toString(socket.toMillis()));
        }
    }
}
