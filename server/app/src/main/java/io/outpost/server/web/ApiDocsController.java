package io.outpost.server.web;

import java.io.IOException;
import java.io.InputStream;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Serves the OpenAPI description. It is written by hand (openapi.json in the resources) because the native API is
 * one servlet parsing path-encoded queries, which annotation scanners cannot describe.
 */
@RestController
public class ApiDocsController {

    @GetMapping(value = "/v3/api-docs", produces = MediaType.APPLICATION_JSON_VALUE)
    public ResponseEntity<byte[]> apiDocs() throws IOException {
        try (InputStream in = getClass().getResourceAsStream("/openapi.json")) {
            return ResponseEntity.ok().header("Cache-Control", "public, max-age=3600").body(in.readAllBytes());
        }
    }
}
