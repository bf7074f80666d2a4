package io.outpost.server.signing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Base64;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Signs answers so that a client detects one altered, moved or replayed on the way (docs/api.md "Signed answers"):
 * the header {@code X-Outpost-Signature: outpost-sig-2 ed25519 KEYID EXPIRES BASE64SIG} over the request target,
 * the status, a redirect's Location, the ETag, the expiry and the body's SHA-256. The target is part of the message,
 * so a cache cannot serve one URL's answer (or redirect) for another; the expiry bounds how long an answer that has
 * since been superseded can be replayed. Thread-safe: the JDK's Ed25519 signer is made per call (cheap next to the
 * signature itself).
 */
public final class AnswerSigner {
    public static final String HEADER = "X-Outpost-Signature";
    public static final String FORMAT = "outpost-sig-2";
    static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final AnswerSigner NONE = new AnswerSigner(null, null, Duration.ZERO, InstantSource.system());
    private static final byte[] EMPTY = new byte[0];

    private final PrivateKey key;
    private final String keyId;
    private final long graceSeconds;
    private final InstantSource clock;

    private AnswerSigner(PrivateKey key, String keyId, Duration grace, InstantSource clock) {
        this.key = key;
        this.keyId = keyId;
        this.graceSeconds = grace.toSeconds();
        this.clock = clock;
    }

    /** Signs nothing: {@link #header} is always null. */
    public static AnswerSigner none() {
        return NONE;
    }

    /** The signer of the configured key, or {@link #none()}; a key file that cannot be read stops the start. */
    public static AnswerSigner of(SigningProperties props) {
        return of(props, InstantSource.system());
    }

    /** As {@link #of(SigningProperties)}, with the clock that dates the signatures' expiry. */
    public static AnswerSigner of(SigningProperties props, InstantSource clock) {
        return props.keyFile() == null ? NONE
                : new AnswerSigner(readKey(props.keyFile()), props.keyId(), props.grace(), clock);
    }

    /** Reads an Ed25519 private key from a PKCS#8 PEM file ({@code -----BEGIN PRIVATE KEY-----}). */
    static PrivateKey readKey(Path file) {
        String pem;
        try {
            pem = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("outpost.signing.key-file " + file + " cannot be read", e);
        }
        int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
        int end = pem.indexOf("-----END PRIVATE KEY-----");
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("outpost.signing.key-file " + file + " is not a PKCS#8 PEM private key"
                    + " (-----BEGIN PRIVATE KEY-----)");
        }
        try {
            byte[] der = Base64.getMimeDecoder().decode(pem.substring(begin + 27, end));
            return KeyFactory.getInstance("Ed25519").generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException("outpost.signing.key-file " + file + " is not an Ed25519 private key: "
                    + e.getMessage(), e);
        }
    }

    public boolean enabled() {
        return key != null;
    }

    /** Now, in Unix seconds, by the clock that dates the expiries. */
    public long nowSeconds() {
        return clock.instant().getEpochSecond();
    }

    /** The margin added to an answer's max-age for client clock skew and transfer time. */
    public long graceSeconds() {
        return graceSeconds;
    }

    /**
     * The expiry of a signature made now for an answer sent with {@code cacheControl}: its max-age (0 when it has
     * none) plus the grace, so that no cache holds the answer fresh for longer than its signature is valid.
     */
    public long expiresFor(String cacheControl) {
        return nowSeconds() + maxAge(cacheControl) + graceSeconds;
    }

    /** The header for a 200 with {@code body} and {@code etag} ("" for none) served at {@code target}. */
    public String answerHeader(String target, String etag, long expires, byte[] body) {
        return header(target, 200, "", etag, expires, body);
    }

    /** The header for a 301 from {@code target} to {@code location} (empty body, no ETag). */
    public String redirectHeader(String target, String location, long expires) {
        return header(target, 301, location, "", expires, EMPTY);
    }

    /**
     * The header value signing these fields (docs/api.md "Signed answers"), or null when answers are not signed.
     * {@code target} is the request target in origin form, raw, as requested.
     */
    public String header(String target, int status, String location, String etag, long expires, byte[] body) {
        if (key == null) {
            return null;
        }
        try {
            Signature s = Signature.getInstance("Ed25519");
            s.initSign(key);
            s.update(message(target, status, location, etag, expires, body));
            return FORMAT + " ed25519 " + keyId + " " + expires + " " + Base64.getEncoder().encodeToString(s.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Ed25519 signing failed", e); // the JDK has Ed25519 since 15
        }
    }

    /** The signed message: the lines of the format joined by "\n", no final newline. */
    public static byte[] message(String target, int status, String location, String etag, long expires, byte[] body) {
        try {
            String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
            return String.join("\n", FORMAT, "GET", target, Integer.toString(status), location, etag,
                    Long.toString(expires), digest).getBytes(StandardCharsets.UTF_8);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The max-age of a Cache-Control value in seconds, 0 when it has none. */
    public static long maxAge(String cacheControl) {
        if (cacheControl == null) {
            return 0;
        }
        for (String part : cacheControl.split(",")) {
            String p = part.strip();
            if (p.regionMatches(true, 0, "max-age=", 0, 8)) {
                try {
                    return Math.max(0, Long.parseLong(p.substring(8).strip()));
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }
}
