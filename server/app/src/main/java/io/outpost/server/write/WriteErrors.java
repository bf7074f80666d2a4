package io.outpost.server.write;

import io.outpost.store.StoreException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import io.outpost.server.web.EchoedInput;
import io.outpost.server.web.InternalErrors;
import io.outpost.server.web.StoreStatus;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Every refused write as RFC 9457 problem+json with a status that says whose fault it was, never cached.
 */
@RestControllerAdvice(basePackageClasses = WriteController.class)
public class WriteErrors {
    private static final Logger log = LoggerFactory.getLogger(WriteErrors.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @ExceptionHandler(StoreException.class)
    void store(StoreException e, HttpServletRequest req, HttpServletResponse resp) throws IOException {
        int status = StoreStatus.of(e);
        // logs what it leaves out
        String detail = InternalErrors.clientText(e, req.getMethod() + " " + req.getRequestURI());
        if (status == 503 && detail.equals(e.getMessage())) {
            log.warn("write {} failed: {}", req.getRequestURI(), e.getMessage());
        }
        write(resp, status, switch (status) {
            case 404 -> "Not Found";
            case 400 -> "Bad Request";
            case 409 -> "Conflict";
            default -> "Service Unavailable";
        }, detail, req.getRequestURI());
    }

    @ExceptionHandler(WriteRefused.class)
    void refused(WriteRefused e, HttpServletRequest req, HttpServletResponse resp) throws IOException {
        write(resp, e.status(), e.title(), e.getMessage(), req.getRequestURI());
    }

    @ExceptionHandler(IllegalArgumentException.class)
    void badArgument(IllegalArgumentException e, HttpServletRequest req, HttpServletResponse resp) throws IOException {
        write(resp, 400, "Bad Request", e.getMessage(), req.getRequestURI());
    }

    @ExceptionHandler(HttpMessageNotReadableException.class)
    void unreadable(HttpMessageNotReadableException e, HttpServletRequest req, HttpServletResponse resp)
            throws IOException {
        BodyLimit.TooLarge tooLarge = BodyLimit.tooLarge(e);
        if (tooLarge != null) {
            write(resp, 413, "Content Too Large", tooLarge.getMessage(), req.getRequestURI());
            return;
        }
        write(resp, 400, "Bad Request", "the request body is not valid JSON for this operation"
                + where(e.getMostSpecificCause()), req.getRequestURI());
    }

    /**
     * Where in the body the parser stopped: member path and line/column. Not the parser's message, which names
     * the service's Java classes and types.
     */
    private static String where(Throwable cause) {
        if (!(cause instanceof JacksonException j)) {
            return "";
        }
        StringBuilder path = new StringBuilder();
        for (JacksonException.Reference r : j.getPath()) {
            if (r.getPropertyName() != null) {
                path.append(path.isEmpty() ? "" : ".").append(EchoedInput.cap(r.getPropertyName()));
            } else if (r.getIndex() >= 0) {
                path.append('[').append(r.getIndex()).append(']');
            }
        }
        TokenStreamLocation at = j.getLocation();
        String line = at == null || at.getLineNr() < 1 ? "" : "line " + at.getLineNr() + ", column " + at.getColumnNr();
        String member = path.isEmpty() ? "" : "member " + path;
        return member.isEmpty() && line.isEmpty() ? ""
                : " (" + member + (member.isEmpty() || line.isEmpty() ? "" : ", ") + line + ")";
    }

    @ExceptionHandler(BodyLimit.TooLarge.class)
    void tooLarge(BodyLimit.TooLarge e, HttpServletRequest req, HttpServletResponse resp) throws IOException {
        write(resp, 413, "Content Too Large", e.getMessage(), req.getRequestURI());
    }

    @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
    void mediaType(HttpMediaTypeNotSupportedException e, HttpServletRequest req, HttpServletResponse resp)
            throws IOException {
        write(resp, 415, "Unsupported Media Type", e.getMessage(), req.getRequestURI());
    }

    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    void method(HttpRequestMethodNotSupportedException e, HttpServletRequest req, HttpServletResponse resp)
            throws IOException {
        write(resp, 405, "Method Not Allowed", e.getMessage(), req.getRequestURI());
    }

    static void write(HttpServletResponse resp, int status, String title, String detail, String instance)
            throws IOException {
        ObjectNode body = JSON.createObjectNode();
        body.put("type", "about:blank");
        body.put("title", title);
        body.put("status", status);
        body.put("detail", io.outpost.server.web.EchoedInput.cap(detail));
        body.put("instance", io.outpost.server.web.EchoedInput.cap(instance));
        byte[] bytes = JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
        resp.setStatus(status);
        resp.setContentType("application/problem+json");
        resp.setHeader("Cache-Control", "no-store");
        // a write refused before its body was read ends its connection (KeepAliveValve): said here, where the
        // answer is still open (it commits once Content-Length bytes are written), so the client opens a new one
        resp.setHeader("Connection", "close");
        resp.setContentLength(bytes.length);
        resp.getOutputStream().write(bytes);
    }
}
