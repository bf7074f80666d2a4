package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How the conditions browser's files are served (the pages themselves are tested in Chromium:
 * server/app/src/test/browser): headers, revalidation, read-only, nothing outside /ui/ reachable through it.
 */
class UiPagesTest {
    private static final List<String> PAGES = List.of("index", "folder", "globaltag", "timeline", "diff", "snapshot");
    private static RunningService svc;

    @BeforeAll
    static void start() throws Exception {
        svc = RunningService.startSqliteDemo();
    }

    @AfterAll
    static void stop() {
        svc.close();
    }

    @Test
    void pagesCarryTheirPolicyAndAShortCacheLife() throws Exception {
        HttpResponse<byte[]> r = svc.get("/ui/");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(r.headers().firstValue("Content-Security-Policy"))
                .hasValueSatisfying(p -> assertThat(p).contains("script-src 'self';").doesNotContain("unsafe"));
        assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(r.headers().firstValue("Cache-Control")).hasValue("max-age=300, public");
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains("<script type=\"module\" src=\"js/index.js\">");

        HttpResponse<byte[]> js = svc.get("/ui/js/api.js");
        assertThat(js.statusCode()).isEqualTo(200);
        assertThat(js.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).contains("javascript"));
        String lastModified = js.headers().firstValue("Last-Modified").orElseThrow();
        assertThat(svc.get("/ui/js/api.js", "If-Modified-Since", lastModified).statusCode()).isEqualTo(304);
    }

    @Test
    void theBareFolderRedirectsToThePages() throws Exception {
        HttpResponse<byte[]> r = svc.get("/ui");
        assertThat(r.statusCode()).isEqualTo(302);
        assertThat(r.headers().firstValue("Location")).hasValueSatisfying(l -> assertThat(l).endsWith("/ui/"));
    }

    @Test
    void noPageHasInlineScriptsStylesOrHandlers() throws IOException {
        Pattern inlineScript = Pattern.compile("<script(?![^>]*\\bsrc=)[^>]*>", Pattern.CASE_INSENSITIVE);
        Pattern inlineStyleOrHandler = Pattern.compile("<style|\\sstyle=|\\son[a-z]+=", Pattern.CASE_INSENSITIVE);
        for (String page : PAGES) {
            try (InputStream in = getClass().getResourceAsStream("/ui/" + page + ".html")) {
                assertThat(in).as(page).isNotNull();
                String html = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertThat(inlineScript.matcher(html).find()).as(page + ": inline script").isFalse();
                assertThat(inlineStyleOrHandler.matcher(html).find()).as(page + ": inline style or handler").isFalse();
            }
        }
    }

    @Test
    void writesAreRefusedAndNothingOutsideTheFolderIsServed() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create(svc.url("/ui/index.html")))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
        for (String path : List.of("/ui/%2e%2e/application.yml", "/ui/..%2fapplication.yml", "/ui/js/%2e%2e/%2e%2e/openapi.json",
                "/ui/nothing-here.html")) {
            HttpResponse<byte[]> r = svc.get(path);
            assertThat(r.statusCode()).as(path).isBetween(400, 499);
            assertThat(new String(r.body(), StandardCharsets.UTF_8)).as(path)
                    .doesNotContain("max-http-request-header-size", "\"openapi\"", "Exception");
        }
    }
}
