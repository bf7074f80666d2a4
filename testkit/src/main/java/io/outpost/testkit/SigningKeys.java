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

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
