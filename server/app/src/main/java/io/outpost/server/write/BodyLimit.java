package io.outpost.server.write;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses write bodies over {@code outpost.write.max-body-size} with 413: at once when Content-Length says so,
 * otherwise (chunked uploads) as soon as the body read passes the limit, before anything is stored.
 */
public class BodyLimit extends OncePerRequestFilter {
    /** Thrown by the body stream past the limit. */
    public static final class TooLarge extends IOException {
        TooLarge(long limit) {
            super("the request body is larger than the limit of " + limit + " bytes (outpost.write.max-body-size)");
        }
    }

    private final long limit;
    private final AuditLog audit;

    public BodyLimit(long limit, AuditLog audit) {
        this.limit = limit;
        this.audit = audit;
    }

    static TooLarge tooLarge(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TooLarge tl) {
                return tl;
            }
        }
        return null;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest req, HttpServletResponse resp, FilterChain chain)
            throws ServletException, IOException {
        if (req.getContentLengthLong() > limit) {
            String detail = new TooLarge(limit).getMessage();
            var auth = org.springframework.security.core.context.SecurityContextHolder.getContext().getAuthentication();
            String id = req.getHeader("X-Request-Id");
            audit.recordRefusal(audit.entry(id == null ? java.util.UUID.randomUUID().toString() : id,
                    auth == null ? null : auth.getName(), req.getMethod() + " " + req.getRequestURI(), null, null, null,
                    413, detail));
            WriteErrors.write(resp, 413, "Content Too Large", detail, req.getRequestURI());
            return;
        }
        chain.doFilter(new HttpServletRequestWrapper(req) {
            private ServletInputStream wrapped;

            @Override
            public ServletInputStream getInputStream() throws IOException {
                if (wrapped == null) {
                    wrapped = new Counting(super.getInputStream(), limit);
                }
                return wrapped;
            }
        }, resp);
    }

    private static final class Counting extends ServletInputStream {
        private final ServletInputStream in;
        private final long limit;
        private long read;

        Counting(ServletInputStream in, long limit) {
            this.in = in;
            this.limit = limit;
        }

        private void count(long n) throws TooLarge {
            if (n > 0 && (read += n) > limit) {
                throw new TooLarge(limit);
            }
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            count(b < 0 ? 0 : 1);
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            count(n);
            return n;
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }
    }
}
