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
import java.util.regex.Pattern;

/**
 * Checks the {@code X-Outpost-Signature} of one hop's answer (docs/api.md "Signed answers"):
 * {@code outpost-sig-2 ed25519 KEYID EXPIRES SIG} over the target asked, the status, a redirect's Location, the
 * ETag, the expiry and the body's SHA-256, with the public key the configuration names for KEYID; the older
 * {@code ed25519 KEYID SIG} ({@code outpost-sig-1}, no expiry, no status) only where the configuration accepts it.
 * Thread-safe.
 */
public final class AnswerVerifier {
    public static final String HEADER = "X-Outpost-Signature";
    private static final Pattern EXPIRES = Pattern.compile("[0-9]{1,18}");

    /** What a verifier concludes, named as in testdata/signatures/cases.json. */
    public enum Verdict {
        OK("ok"), BAD_SIGNATURE("bad-signature"), EXPIRED("expired"), UNSIGNED("unsigned"),
        UNKNOWN_KEY("unknown-key"), MALFORMED("malformed"), SIG1_REFUSED("sig1-refused");

        private final String label;

        Verdict(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** A verdict and, unless it is {@link Verdict#OK}, why the answer cannot be trusted. */
    public record Check(Verdict verdict, String problem) {
        public boolean ok() {
            return verdict == Verdict.OK;
        }
    }

    private static final Check OK = new Check(Verdict.OK, null);

    private final Map<String, PublicKey> keys;
    private final boolean acceptSig1;

    private AnswerVerifier(Map<String, PublicKey> keys, boolean acceptSig1) {
        this.keys = keys;
        this.acceptSig1 = acceptSig1;
    }

    /**
     * Reads every key file (key id → PEM public key file); one that cannot be read or is no Ed25519 key throws.
     *
     * @param acceptSig1 also accept {@code outpost-sig-1} signatures (configuration {@code acceptsig1=yes})
     */
    public static AnswerVerifier of(Map<String, String> files, boolean acceptSig1) {
        Map<String, PublicKey> keys = new LinkedHashMap<>();
        files.forEach((id, file) -> keys.put(id, readKey(Path.of(file))));
        return new AnswerVerifier(Map.copyOf(keys), acceptSig1);
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

    /** A SHA-256 to feed the body into while it is read (or over the buffer holding it). */
    public static MessageDigest bodyDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Checks one hop's answer.
     *
     * @param target     the request target sent for this hop, raw origin form (path and query)
     * @param location   the Location of a redirect, else null or empty
     * @param etag       the ETag as received, else null or empty
     * @param header     the {@value #HEADER} value, or null
     * @param bodySha256 the SHA-256 of the body as received
     * @param nowSeconds the client's clock, Unix seconds
     */
    public Check check(String target, int status, String location, String etag, String header, byte[] bodySha256,
                       long nowSeconds) {
        Check refused = headerProblem(status, header);
        if (refused != null) {
            return refused;
        }
        String[] parts = header.strip().split(" +");
        if (parts[0].equals("ed25519")) {
            return checkSig1(target, status, parts, bodySha256);
        }
        PublicKey key = keys.get(parts[2]);
        long expires = Long.parseLong(parts[3]);
        String message = String.join("\n", "outpost-sig-2", "GET", target, Integer.toString(status),
                location == null ? "" : location, etag == null ? "" : etag, parts[3],
                HexFormat.of().formatHex(bodySha256));
        if (!verifies(key, message, parts[4])) {
            return new Check(Verdict.BAD_SIGNATURE, "signature by key '" + parts[2] + "' does not verify for HTTP "
                    + status + " of " + abbreviate(target));
        }
        if (nowSeconds > expires) {
            return new Check(Verdict.EXPIRED, "signature by key '" + parts[2] + "' expired " + (nowSeconds - expires)
                    + " s ago (EXPIRES " + expires + "): a replayed or outdated answer, or this host's clock is wrong");
        }
        return OK;
    }

    /**
     * Why the signature header alone already refuses the answer (none, unreadable, an unknown key, the old format
     * where it is not accepted), or null when the body must be checked: lets a client refuse before reading a body.
     */
    public Check headerProblem(int status, String header) {
        if (header == null || header.isBlank()) {
            return new Check(Verdict.UNSIGNED, (status == 200 ? "answer" : "HTTP " + status) + " has no signature ("
                    + HEADER + ")");
        }
        String[] parts = header.strip().split(" +");
        if (parts[0].equals("ed25519") && parts.length == 3) {
            if (!acceptSig1) {
                return new Check(Verdict.SIG1_REFUSED, "an outpost-sig-1 signature (no expiry), accepted only with"
                        + " acceptsig1=yes");
            }
            return keys.containsKey(parts[1]) ? null : unknownKey(parts[1]);
        }
        if (!parts[0].equals("outpost-sig-2") || parts.length != 5 || !parts[1].equals("ed25519")
                || !EXPIRES.matcher(parts[3]).matches()) {
            return new Check(Verdict.MALFORMED, "unreadable signature header '" + abbreviate(header) + "'");
        }
        return keys.containsKey(parts[2]) ? null : unknownKey(parts[2]);
    }

    private Check checkSig1(String target, int status, String[] parts, byte[] bodySha256) {
        PublicKey key = keys.get(parts[1]);
        String message = "outpost-sig-1\n" + target + "\n" + HexFormat.of().formatHex(bodySha256);
        if (status != 200 || !verifies(key, message, parts[2])) {
            return new Check(Verdict.BAD_SIGNATURE, "outpost-sig-1 signature by key '" + parts[1]
                    + "' does not verify for HTTP " + status + " of " + abbreviate(target));
        }
        return OK;
    }

    private Check unknownKey(String id) {
        return new Check(Verdict.UNKNOWN_KEY, "answer signed with unknown key '" + abbreviate(id) + "' (verifykey has "
                + keys.keySet() + ")");
    }

    private static boolean verifies(PublicKey key, String message, String signature) {
        try {
            Signature s = Signature.getInstance("Ed25519");
            s.initVerify(key);
            s.update(message.getBytes(StandardCharsets.UTF_8));
            return s.verify(Base64.getDecoder().decode(signature));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false; // a malformed signature value does not verify
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }
}
