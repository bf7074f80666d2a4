package io.outpost.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Base64;

/**
 * A fresh Ed25519 key pair written as PEM files, as {@code openssl genpkey -algorithm ed25519} and
 * {@code openssl pkey -pubout} write them: the service signs with {@link #privateKey()}, clients verify with
 * {@link #publicKey()} (docs/api.md "Signed answers").
 */
public record SigningKeys(Path privateKey, Path publicKey) {

    /** Writes {@code NAME.key} (PKCS#8) and {@code NAME.pub} (SubjectPublicKeyInfo) into {@code dir}. */
    public static SigningKeys create(Path dir, String name) {
        try {
            KeyPair pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
            Path priv = dir.resolve(name + ".key");
            Path pub = dir.resolve(name + ".pub");
            Files.writeString(priv, pem("PRIVATE KEY", pair.getPrivate().getEncoded()), StandardCharsets.US_ASCII);
            Files.writeString(pub, pem("PUBLIC KEY", pair.getPublic().getEncoded()), StandardCharsets.US_ASCII);
            return new SigningKeys(priv, pub);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has Ed25519 since 15", e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The {@code X-Outpost-Signature} value ({@code outpost-sig-2}) the service would send for a 200 with
     * {@code body} and no ETag at {@code target}, valid for five minutes: for test servers that play a signing
     * service.
     */
    public String header(String keyId, String target, byte[] body) {
        return header(keyId, target, 200, "", "", System.currentTimeMillis() / 1000 + 300, body);
    }

    /** The {@code outpost-sig-2} header over these fields (docs/api.md "Signed answers"). */
    public String header(String keyId, String target, int status, String location, String etag, long expires,
                         byte[] body) {
        String message = String.join("\n", "outpost-sig-2", "GET", target, Integer.toString(status), location, etag,
                Long.toString(expires), sha256Hex(body));
        return "outpost-sig-2 ed25519 " + keyId + " " + expires + " " + sign(message);
    }

    /** The older {@code outpost-sig-1} header ({@code ed25519 KEYID SIG}, no expiry) for a 200 at {@code target}. */
    public String headerSig1(String keyId, String target, byte[] body) {
        return "ed25519 " + keyId + " " + sign("outpost-sig-1\n" + target + "\n" + sha256Hex(body));
    }

    private String sign(String message) {
        try {
            String pem = Files.readString(privateKey, StandardCharsets.US_ASCII).replaceAll("-----[A-Z ]+-----", "");
            java.security.PrivateKey key = java.security.KeyFactory.getInstance("Ed25519").generatePrivate(
                    new java.security.spec.PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(pem)));
            java.security.Signature s = java.security.Signature.getInstance("Ed25519");
            s.initSign(key);
            s.update(message.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(s.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha256Hex(byte[] body) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
