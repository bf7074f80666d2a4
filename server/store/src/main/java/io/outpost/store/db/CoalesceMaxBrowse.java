package io.outpost.store.db;

/**
 * COOL's generic browse query in its classic form, shared by the dialects whose planners follow the written join
 * order (SQLite via CROSS JOIN, Oracle via hints): channels C2 drive a nested loop over the layer's rows I3, each
 * channel's scan starting at {@code COALESCE((SELECT MAX(since) ... <= t1), t1)}.
 */
final class CoalesceMaxBrowse {
    private CoalesceMaxBrowse() {
    }

    /**
     * @param mainHint text right after SELECT (Oracle's hints), or ""
     * @param join     how tables are joined in FROM: " CROSS JOIN " (SQLite) or ", " (Oracle)
     * @param maxHint  text right after the probe's SELECT, or ""
     */
    static Sql build(Dialect dialect, BrowseSpec spec, boolean count, String mainHint, String join, String maxHint) {
        Sql sql = new Sql();
        String x = spec.layerTable();
        sql.append(count ? "SELECT COUNT(*) FROM (SELECT " : "SELECT ").append(mainHint);
        spec.appendColumns(sql, dialect);
        sql.append(" FROM ").append(spec.folder().channelTable()).append(" C2").append(join).append(x).append(" I3");
        if (spec.joinsPayloadRow()) {
            sql.append(join).append(spec.folder().iovTable()).append(" I4");
        }
        sql.append(" WHERE I3.CHANNEL_ID = C2.CHANNEL_ID");
        spec.appendChannelFilter(sql);
        spec.layer().appendFilter(sql, "I3");
        sql.append(" AND I3.IOV_SINCE >= COALESCE((SELECT ").append(maxHint).append("MAX(I1.IOV_SINCE) FROM ").append(x)
                .append(" I1 WHERE I1.CHANNEL_ID = C2.CHANNEL_ID");
        spec.layer().appendFilter(sql, "I1");
        sql.append(" AND I1.IOV_SINCE <= ").bind(spec.t1()).append("), ").bind(spec.t1()).append(")");
        sql.append(" AND I3.IOV_SINCE <= ").bind(spec.t2()).append(" AND I3.IOV_UNTIL > ").bind(spec.t1());
        if (spec.joinsPayloadRow()) {
            sql.append(" AND I4.OBJECT_ID = I3.OBJECT_ID");
        }
        sql.append(count ? ") S" : " ORDER BY " + spec.order().orderBy());
        return sql;
    }
}
