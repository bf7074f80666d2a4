package io.outpost.frontier;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * The real driver of a database, behind URLs {@code jdbc:counted:<the real URL>}, writing down every statement the
 * connections send and every end of a transaction that had one: what goes to the database and waits for its
 * answer, one round trip each (the driver sends a statement of several with one wait, and a rollback of a
 * transaction in which nothing ran not at all). The fetches of a query's later rows are not counted: a raw JDBC
 * read of the same rows makes them too.
 */
final class CountingDriver implements Driver {
    static final String PREFIX = "jdbc:counted:";
    private static final List<String> SENT = new ArrayList<>();

    static {
        try {
            DriverManager.registerDriver(new CountingDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private CountingDriver() {
    }

    /** The URL that reaches {@code jdbcUrl} through this driver. */
    static String counted(String jdbcUrl) {
        return PREFIX + jdbcUrl;
    }

    /** What was sent since the last call, and forgets it. */
    static List<String> drain() {
        synchronized (SENT) {
            List<String> sent = List.copyOf(SENT);
            SENT.clear();
            return sent;
        }
    }

    private static void sent(String what) {
        synchronized (SENT) {
            SENT.add(what);
        }
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null;
        }
        String real = url.substring(PREFIX.length());
        Connection c = DriverManager.getDriver(real).connect(real, info);
        return (Connection) Proxy.newProxyInstance(CountingDriver.class.getClassLoader(),
                new Class<?>[] {Connection.class}, new Counted(c));
    }

    /** One connection: its statements are counted when executed, and a transaction's end when one is open. */
    private static final class Counted implements InvocationHandler {
        private final Connection real;
        private boolean inTransaction;

        Counted(Connection real) {
            this.real = real;
        }

        @Override
        public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
            String name = m.getName();
            if ((name.equals("rollback") || name.equals("commit")) && (args == null || args.length == 0)) {
                if (inTransaction) {
                    sent(name.toUpperCase(java.util.Locale.ROOT));
                    inTransaction = false;
                }
            }
            Object result = call(real, m, args);
            if (result instanceof Statement s && (name.startsWith("prepare") || name.equals("createStatement"))) {
                String sql = args != null && args.length > 0 && args[0] instanceof String text ? text : null;
                Class<?> type = m.getReturnType();
                return Proxy.newProxyInstance(CountingDriver.class.getClassLoader(), new Class<?>[] {type},
                        (p, sm, sargs) -> {
                            if (sm.getName().startsWith("execute")) {
                                String text = sql != null ? sql : sargs != null && sargs.length > 0 ? (String) sargs[0] : "?";
                                sent(text);
                                inTransaction = !real.getAutoCommit();
                            }
                            return call(s, sm, sargs);
                        });
            }
            return result;
        }

        private static Object call(Object target, Method m, Object[] args) throws Throwable {
            try {
                return m.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }

    @Override
    public boolean acceptsURL(String url) {
        return url != null && url.startsWith(PREFIX);
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
        return new DriverPropertyInfo[0];
    }

    @Override
    public int getMajorVersion() {
        return 1;
    }

    @Override
    public int getMinorVersion() {
        return 0;
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }
}
