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
import java.util.Base64;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Signs answers so that a client detects one altered on the way (docs/api.md "Signed answers"): the header
 * {@code X-Outpost-Signature: ed25519 KEYID BASE64SIG} over {@code "outpost-sig-1\n" + pathAndQuery + "\n" +
 * hex(SHA-256(body))}. The URL is part of the message, so a cache cannot serve one URL's signed answer for another.
 * Thread-safe: the JDK's Ed25519 signer is made per call (cheap next to the signature itself).
 */
public final class AnswerSigner {
    public static final String HEADER = "X-Outpost-Signature";
    static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final AnswerSigner NONE = new AnswerSigner(null, null);

    private final PrivateKey key;
    private final String keyId;

    private AnswerSigner(PrivateKey key, String keyId) {
        this.key = key;
        this.keyId = keyId;
    }

    /** Signs nothing: {@link #header} is always null. */
    public static AnswerSigner none() {
        return NONE;
    }

    /** The signer of the configured key, or {@link #none()}; a key file that cannot be read stops the start. */
    public static AnswerSigner of(SigningProperties props) {
        return props.keyFile() == null ? NONE : new AnswerSigner(readKey(props.keyFile()), props.keyId());
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

    /** The header value for {@code body} served at {@code pathAndQuery} (raw, as requested), or null when disabled. */
    public String header(String pathAndQuery, byte[] body) {
        if (key == null) {
            return null;
        }
        try {
            Signature s = Signature.getInstance("Ed25519");
            s.initSign(key);
            s.update(message(pathAndQuery, body));
            return "ed25519 " + keyId + " " + Base64.getEncoder().encodeToString(s.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Ed25519 signing failed", e); // the JDK has Ed25519 since 15
        }
    }

    /** The signed message: {@code "outpost-sig-1\n" + pathAndQuery + "\n" + lowercase hex SHA-256 of the body}. */
    public static byte[] message(String pathAndQuery, byte[] body) {
        try {
            String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
            return ("outpost-sig-1\n" + pathAndQuery + "\n" + digest).getBytes(StandardCharsets.UTF_8);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
