package io.outpost.client.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Checks the {@code X-Outpost-Signature} of an answer (docs/api.md "Signed answers"): {@code ed25519 KEYID SIG}
 * over {@code "outpost-sig-1\n" + pathAndQuery + "\n" + hex(SHA-256(body))}, with the public key the configuration
 * names for KEYID. Thread-safe.
 */
public final class AnswerVerifier {
    public static final String HEADER = "X-Outpost-Signature";

    private final Map<String, PublicKey> keys;

    private AnswerVerifier(Map<String, PublicKey> keys) {
        this.keys = keys;
    }

    /** Reads every key file (key id → PEM public key file); one that cannot be read or is no Ed25519 key throws. */
    public static AnswerVerifier of(Map<String, String> files) {
        Map<String, PublicKey> keys = new LinkedHashMap<>();
        files.forEach((id, file) -> keys.put(id, readKey(Path.of(file))));
        return new AnswerVerifier(Map.copyOf(keys));
    }

    static PublicKey readKey(Path file) {
        String pem;
        try {
            pem = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("verifykey " + file + " cannot be read: " + e.getMessage(), e);
        }
        int begin = pem.indexOf("-----BEGIN PUBLIC KEY-----");
        int end = pem.indexOf("-----END PUBLIC KEY-----");
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("verifykey " + file + " is not a PEM public key (-----BEGIN PUBLIC KEY-----)");
        }
        try {
            byte[] der = Base64.getMimeDecoder().decode(pem.substring(begin + 26, end));
            return KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(der));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException("verifykey " + file + " is not an Ed25519 public key: " + e.getMessage(), e);
        }
    }

    /**
     * Why the answer {@code body} to {@code pathAndQuery} (the final request's target, raw) cannot be trusted, or
     * null when its signature {@code header} verifies.
     */
    public String problem(String pathAndQuery, String header, byte[] body) {
        if (header == null) {
            return "answer has no signature (" + HEADER + ")";
        }
        String[] parts = header.strip().split(" +");
        if (parts.length != 3 || !parts[0].equals("ed25519")) {
            return "unreadable signature header '" + abbreviate(header) + "'";
        }
        PublicKey key = keys.get(parts[1]);
        if (key == null) {
            return "answer signed with unknown key '" + abbreviate(parts[1]) + "' (verifykey has " + keys.keySet() + ")";
        }
        try {
            Signature s = Signature.getInstance("Ed25519");
            s.initVerify(key);
            s.update(message(pathAndQuery, body));
            if (s.verify(Base64.getDecoder().decode(parts[2]))) {
                return null;
            }
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            // a malformed signature value: fall through to "does not verify"
        }
        return "signature by key '" + parts[1] + "' does not verify for " + pathAndQuery;
    }

    static byte[] message(String pathAndQuery, byte[] body) {
        try {
            String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
            return ("outpost-sig-1\n" + pathAndQuery + "\n" + digest).getBytes(StandardCharsets.UTF_8);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }
}
