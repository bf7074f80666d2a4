package io.outpost.server.front;

import java.util.function.UnaryOperator;

/**
 * Told of each request the HTTP front answers from memory, which Tomcat's filters and valves never see (the
 * integration tests' request log is one). Called on the front's event loop just before the answer is written:
 * keep it short and never block.
 */
@FunctionalInterface
public interface MemoryHitListener {
    void answered(String path, int status, UnaryOperator<String> header);
}
