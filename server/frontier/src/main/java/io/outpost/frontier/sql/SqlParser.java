package io.outpost.frontier.sql;

import io.outpost.frontier.protocol.FrontierException;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.Statements;
import net.sf.jsqlparser.statement.select.Select;

/**
 * Parses Frontier SQL with JSqlParser, once per statement, on threads its owner passes in and shuts down. JSqlParser
 * runs a parse on such a thread so that it can give up after a timeout: a statement that takes longer is refused.
 * Before parsing, {@link StatementSize} refuses statements whose nesting or length alone would make the parse slow.
 */
public final class SqlParser {
    /**
     * How long a statement may take to parse, both of JSqlParser's attempts together: COOL's take well under a
     * millisecond, but on a loaded machine a 1 s limit refused ordinary statements in the tests, so the limit stays
     * generous; what bounds a crafted statement's cost is the pre-check, admission, and the request's budget.
     */
    public static final long DEFAULT_TIMEOUT_MILLIS = 5000;
    /** The statement length the timeout is meant for; longer statements get proportionally more. */
    private static final long LENGTH_COVERED = 80_000;
    /** JSqlParser's own limit on nested constructs (it counts them otherwise than parentheses). */
    private static final int PARSER_NESTING_DEPTH = 64;
    /** A Java class name before a message ("net.sf.jsqlparser.parser.ParseException: "). */
    private static final java.util.regex.Pattern PARSER_CLASS =
            java.util.regex.Pattern.compile("^([a-z_][\\w$]*\\.)+[A-Z][\\w$]*: ");

    private final ExecutorService threads;
    private final long timeoutMillis;

    /** @param threads where JSqlParser runs each parse; owned (and shut down) by the caller */
    public SqlParser(ExecutorService threads) {
        this(threads, DEFAULT_TIMEOUT_MILLIS);
    }

    public SqlParser(ExecutorService threads, long timeoutMillis) {
        if (timeoutMillis <= 0) {
            throw new IllegalArgumentException("parse timeout must be positive, not " + timeoutMillis + " ms");
        }
        this.threads = threads;
        this.timeoutMillis = timeoutMillis;
    }

    /** Daemon threads for parsing, created on demand; the caller shuts them down when it stops. */
    public static ExecutorService newThreads() {
        return Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "frontier-sql-parser");
            t.setDaemon(true);
            return t;
        });
    }

    /** The single SELECT that {@code sql} is; anything else is refused with a message for the client. */
    public Select parseSelect(String sql) throws FrontierException {
        if (sql == null || sql.isBlank()) {
            throw new FrontierException("SQL rejected: empty statement");
        }
        StatementSize.check(sql);
        Statements statements;
        try {
            statements = parse(sql);
        } catch (JSQLParserException e) {
            throw new FrontierException("SQL rejected: syntax error or unsupported statement: " + firstLine(e));
        } catch (RuntimeException | StackOverflowError e) {
            throw new FrontierException("SQL rejected: cannot analyse statement", e);
        }
        if (statements == null || statements.isEmpty()) {
            throw new FrontierException("SQL rejected: empty statement");
        }
        if (statements.size() != 1) {
            throw new FrontierException("SQL rejected: only a single statement is allowed");
        }
        Statement st = statements.get(0);
        if (!(st instanceof Select select)) {
            throw new FrontierException("SQL rejected: only SELECT is allowed, not "
                    + st.getClass().getSimpleName().toUpperCase(Locale.ROOT));
        }
        return select;
    }

    /**
     * JSqlParser's fast parse, then, only if that failed before the timeout, its complex parse in the time left (as
     * {@code CCJSqlParserUtil.parseStatements(String, ...)} does, but that gives the second attempt the whole timeout
     * again, so a crafted statement cost twice the timeout).
     */
    private Statements parse(String sql) throws JSQLParserException {
        long start = System.nanoTime();
        // the timeout covers statements of up to 80,000 characters; a longer one (an IN list of tens of thousands)
        // gets time in proportion to its length (at the default, 1 ms per 16 characters)
        long timeout = Math.max(timeoutMillis, timeoutMillis * sql.length() / LENGTH_COVERED);
        try {
            return CCJSqlParserUtil.parseStatements(newParser(sql, timeout).withAllowComplexParsing(false), threads);
        } catch (JSQLParserException fast) {
            long left = timeout - (System.nanoTime() - start) / 1_000_000;
            if (fast.getCause() instanceof TimeoutException || left <= 0) {
                throw fast;
            }
            return CCJSqlParserUtil.parseStatements(newParser(sql, left).withAllowComplexParsing(true), threads);
        }
    }

    private static CCJSqlParser newParser(String sql, long timeoutMillis) {
        return CCJSqlParserUtil.newParser(sql).withTimeOut(timeoutMillis).withAllowedNestingDepth(PARSER_NESTING_DEPTH);
    }

    private static String firstLine(Exception e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().strip();
        if (e.getCause() != null && e.getCause().getMessage() != null) {
            m = e.getCause().getMessage().strip();
        }
        int nl = m.indexOf('\n');
        m = nl > 0 ? m.substring(0, nl) : m;
        m = PARSER_CLASS.matcher(m).replaceFirst(""); // the parser's class names say nothing about the statement
        return m.length() > 200 ? m.substring(0, 200) + "..." : m;
    }
}
