package io.outpost.frontier.sql;

import io.outpost.frontier.protocol.FrontierException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Visits every node of a parse tree, depth first, through the nodes' fields, and lets a step replace a node in the
 * slot that holds it. This is the one place that reads JSqlParser's fields; it depends on no field's name.
 *
 * <p>Why a field walk rather than JSqlParser's visitors: the allow-list must see every node, and a visitor adapter
 * that does not descend into some clause (or a clause added by an upgrade) would skip it without a sound; and the
 * COOL translation replaces nodes (a function by a cast, DUAL by a sub-select), which a visitor cannot do, as it is
 * never told which slot holds the node. The walk fails closed: a value it cannot look into (a map entry, an array,
 * an object of a foreign type) refuses the statement, and {@link KnownNodes} refuses node classes nobody reviewed.
 * {@code ParseTreeShapeTest} lists every field of every known node class and fails when an upgrade changes one.
 */
final class ParseTreeWalk {
    /** Nodes of one statement at most; COOL's largest statements have a few hundred. */
    static final int MAX_NODES = 100_000;

    /** What the walk does at each node. */
    @FunctionalInterface
    interface Step {
        /** Checks {@code node} and returns it, its replacement, or null to remove it (e.g. a hint). */
        Object visit(Object node) throws FrontierException;
    }

    private static final Map<Class<?>, List<Field>> FIELDS = new ConcurrentHashMap<>();

    private final Step step;
    private final Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    private int nodes;

    private ParseTreeWalk(Step step) {
        this.step = step;
    }

    /** Walks the tree under {@code root} (visiting the root first) and returns the root or its replacement. */
    static Object walk(Object root, Step step) throws FrontierException {
        ParseTreeWalk w = new ParseTreeWalk(step);
        Object r = step.visit(root);
        w.descend(r);
        return r;
    }

    /** True for JSqlParser's parse-tree objects (not its parser's own classes, not enums). */
    static boolean isNode(Object v) {
        String n = v.getClass().getName();
        return n.startsWith("net.sf.jsqlparser.") && !n.startsWith("net.sf.jsqlparser.parser.") && !(v instanceof Enum<?>);
    }

    /** Every non-static field of {@code c} and of its JSqlParser superclasses: what the walk reads. */
    static List<Field> fields(Class<?> c) {
        return FIELDS.computeIfAbsent(c, k -> {
            List<Field> out = new ArrayList<>();
            for (Class<?> x = k; x != null && x.getName().startsWith("net.sf.jsqlparser."); x = x.getSuperclass()) {
                for (Field f : x.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers()) || f.isSynthetic() || f.getType().isPrimitive()) {
                        continue;
                    }
                    f.setAccessible(true);
                    out.add(f);
                }
            }
            return List.copyOf(out);
        });
    }

    private void descend(Object node) throws FrontierException {
        if (node == null || !seen.add(node)) {
            return;
        }
        if (++nodes > MAX_NODES) {
            throw new FrontierException("SQL rejected: statement too complex");
        }
        if (node instanceof List<?> list) {
            descendList(list); // ExpressionList and its kind are lists themselves
        }
        for (Field f : fields(node.getClass())) {
            Object v;
            try {
                v = f.get(node);
            } catch (IllegalAccessException e) {
                throw new FrontierException("SQL rejected: cannot analyse statement");
            }
            if (v == null || isLeaf(v)) {
                continue;
            }
            if (v instanceof List<?> list) {
                descendList(list);
            } else if (isNode(v)) {
                Object r = step.visit(v);
                if (r != v) {
                    replace(node, f, r);
                }
                descend(r);
            } else {
                throw cannotAnalyse(v);
            }
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void descendList(List<?> list) throws FrontierException {
        ListIterator it = list.listIterator();
        while (it.hasNext()) {
            Object e = it.next();
            if (e == null || isLeaf(e)) {
                continue;
            }
            if (e instanceof List<?> inner && !isNode(e)) {
                descendList(inner);
            } else if (isNode(e)) {
                Object r = step.visit(e);
                if (r != e) {
                    it.set(r);
                }
                descend(r);
            } else {
                throw cannotAnalyse(e);
            }
        }
    }

    private static void replace(Object node, Field f, Object r) throws FrontierException {
        if (Modifier.isFinal(f.getModifiers())) {
            throw new FrontierException("SQL rejected: cannot translate " + node);
        }
        try {
            f.set(node, r);
        } catch (IllegalAccessException | IllegalArgumentException e) {
            throw new FrontierException("SQL rejected: cannot translate " + node);
        }
    }

    /** Values with nothing to check inside: names, numbers, flags, dates, and the parser's own tokens. */
    private static boolean isLeaf(Object v) {
        return v instanceof String || v instanceof Number || v instanceof Boolean || v instanceof Character
                || v instanceof Enum<?> || v instanceof java.util.Date
                || v.getClass().getName().startsWith("net.sf.jsqlparser.parser.");
    }

    private static FrontierException cannotAnalyse(Object v) {
        return new FrontierException("SQL rejected: cannot analyse statement (" + v.getClass().getSimpleName() + ")");
    }
}
