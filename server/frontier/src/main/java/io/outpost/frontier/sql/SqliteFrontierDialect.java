package io.outpost.frontier.sql;

import io.outpost.frontier.encode.ColumnValues;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * SQLite: no cast types of its own (TO_TIMESTAMP's text is compared as text, TO_CHAR takes no format), no cost
 * estimate; the read pool refuses writes itself (query_only), and the driver types a column by its first value.
 */
final class SqliteFrontierDialect extends FrontierDialect {

    @Override
    String castType(String oracleFunction) {
        return oracleFunction.equals("TO_TIMESTAMP") ? null : super.castType(oracleFunction);
    }

    @Override
    boolean formatsToChar() {
        return false;
    }

    /** The pool's {@code PRAGMA query_only} already refuses writes; the driver refuses setReadOnly once open. */
    @Override
    public void readOnly(Connection c) {
    }

    @Override
    public ColumnValues columnValues(ResultSet rs, boolean[] binary) throws SQLException {
        return ColumnValues.sqlite(rs, binary);
    }

    @Override
    boolean keepsCatalogAsDdl() {
        return true;
    }

    @Override
    public boolean typesColumnsByValue() {
        return true;
    }
}
