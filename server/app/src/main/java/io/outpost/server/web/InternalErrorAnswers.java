package io.outpost.server.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The answer to an exception no part of the service handled (a bug, a driver failing in an unexpected way): a 500
 * problem+json naming the id under which the exception is logged ({@link InternalErrors}), instead of Tomcat's or
 * Spring's error page and a log line no user report can point to.
 */
public class InternalErrorAnswers extends OncePerRequestFilter {
    @Override
    protected void doFilterInternal(HttpServletRequest req, HttpServletResponse resp, FilterChain chain)
            throws ServletException, IOException {
        try {
            chain.doFilter(req, resp);
        } catch (RuntimeException | ServletException e) {
            if (resp.isCommitted()) {
                throw e; // part of the answer is out: Tomcat ends the connection
            }
            resp.reset();
            String uri = req.getRequestURI();
            Problems.write(resp, 500, "Internal Server Error", InternalErrors.logged(req.getMethod() + " " + uri, e),
                    uri, "no-store");
        }
    }
}
