package io.outpost.server.web;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.RequestMapping;

/**
 * The answer to an error Tomcat or Spring forwards to the error page (an unknown path, a method a path does not take,
 * a request Tomcat refused): a problem+json with the status and fixed words, instead of Spring Boot's "Whitelabel"
 * page or JSON (which names its own framework); a browser asking for a missing page of the conditions browser
 * ({@code /ui/…}, Accept: text/html) gets a small HTML page instead. Not stored by caches. A direct request for the error page never gets
 * here: {@link ManagementAccess} answers it 404.
 */
@Controller
public class ErrorAnswers implements ErrorController {

    @RequestMapping("${server.error.path:/error}")
    public void error(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Object code = req.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = code instanceof Integer i && i >= 400 && i <= 599 ? i : 404;
        Object uri = req.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        String instance = uri instanceof String s ? s : req.getRequestURI();
        HttpStatus known = HttpStatus.resolve(status);
        String title = known == null ? "Error" : known.getReasonPhrase();
        String detail = switch (status) {
            case 404 -> "no such resource";
            case 405 -> "this resource does not take " + EchoedInput.cap(req.getMethod());
            default -> status >= 500 ? "the service could not answer" : title.toLowerCase(java.util.Locale.ROOT);
        };
        if (resp.isCommitted()) {
            return;
        }
        resp.resetBuffer();
        String accept = req.getHeader("Accept");
        if (status == 404 && instance.startsWith(req.getContextPath() + "/ui/") && accept != null
                && accept.contains("text/html")) {
            notFoundPage(resp, req.getContextPath());
            return;
        }
        Problems.write(resp, status, title, detail, instance, "no-store");
    }

    /** A person who followed a stale link into the conditions browser gets a page that leads back into it. */
    private static void notFoundPage(HttpServletResponse resp, String contextPath) throws IOException {
        byte[] page = ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Not found · Outpost"
                + "</title></head>\n<body><h1>Not found</h1><p>The conditions browser has no such page.</p>"
                + "<p><a href=\"" + contextPath + "/ui/\">Go to the conditions browser</a></p></body></html>\n")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        resp.setStatus(404);
        resp.setContentType("text/html;charset=UTF-8");
        resp.setHeader("Cache-Control", "no-store");
        resp.setHeader("Content-Security-Policy", "default-src 'none'");
        resp.setContentLength(page.length);
        resp.getOutputStream().write(page);
    }
}
