package io.outpost.store.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.testkit.MariaDbServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** A MariaDB that cannot be used is refused at open with a message that names what to fix. */
class MariaDbStartErrorsTest {

    @Test
    void wrongPasswordNamesTheUserAndWhatToCheck() throws Exception {
        MariaDbServer server = MariaDbServer.shared();
        String url = server.createDatabase("start_errors");
        try (Connection c = DriverManager.getConnection(url, "root", ""); Statement st = c.createStatement()) {
            st.execute("CREATE USER IF NOT EXISTS 'outpost_w'@'127.0.0.1' IDENTIFIED BY 'right'");
            st.execute("GRANT ALL ON *.* TO 'outpost_w'@'127.0.0.1'");
        }
        assertThatThrownBy(() -> Database.open(DatabaseConfig.of(url, "outpost_w", "wrong")))
                .isInstanceOf(DatabaseUnusableException.class)
                .hasMessageContaining("as user 'outpost_w'").hasMessageContaining("Access denied")
                .hasMessageContaining("check the JDBC URL, user and password");
        try (Database db = Database.open(DatabaseConfig.of(url, "outpost_w", "right"))) {
            assertThat(db.dialect()).isInstanceOf(MariaDbDialect.class);
        }
    }

    @Test
    void unknownDatabaseAndNoServerAreNamed() {
        MariaDbServer server = MariaDbServer.shared();
        assertThatThrownBy(() -> Database.open(DatabaseConfig.of(server.url("no_such_db"), "root", "")))
                .isInstanceOf(DatabaseUnusableException.class).hasMessageContaining("no_such_db")
                .hasMessageContaining("check the JDBC URL");
        assertThatThrownBy(() -> Database.open(DatabaseConfig.of("jdbc:mariadb://127.0.0.1:1/x", "root", "")))
                .isInstanceOf(DatabaseUnusableException.class).hasMessageContaining("127.0.0.1:1")
                .hasMessageContaining("check the JDBC URL");
        assertThatThrownBy(() -> Dialect.forJdbcUrl("jdbc:mysqlx://h/db"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jdbc:mariadb:");
    }

    @Test
    void serverVersionsOutsideTheSupportedRangeAreRefused() {
        assertThat(MariaDbDialect.unsupportedVersion("10.11.19-MariaDB-0+deb12u1")).isNull();
        assertThat(MariaDbDialect.unsupportedVersion("11.4.2-MariaDB")).isNull();
        assertThat(MariaDbDialect.unsupportedVersion("10.6.0-MariaDB")).isNull();
        assertThat(MariaDbDialect.unsupportedVersion("8.0.36")).isNull();
        assertThat(MariaDbDialect.unsupportedVersion("5.5.5-10.11.6-MariaDB")).as("MariaDB behind a 5.5.5- prefix")
                .isNull();
        assertThat(MariaDbDialect.unsupportedVersion("10.5.23-MariaDB"))
                .isEqualTo("MariaDB 10.5.23 is not supported: Outpost needs MariaDB 10.6 or newer, or MySQL 8.0 or newer");
        assertThat(MariaDbDialect.unsupportedVersion("5.7.44")).startsWith("MySQL 5.7.44 is not supported");
    }
}
