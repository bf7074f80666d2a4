package io.outpost.server.write;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.springframework.security.oauth2.jwt.Jwt;

/**
 * Who is writing, from a validated token: the subject and the scopes it carries. Decides whether an operation on
 * a node path is allowed; path prefixes match whole levels ({@code /DET/Calo} covers {@code /DET/Calo/Gains},
 * not {@code /DET/CaloX}).
 */
public record Caller(String subject, List<String> scopes) {

    public static Caller of(Jwt jwt) {
        List<String> scopes = new ArrayList<>();
        Object scope = jwt.getClaims().get("scope");
        if (scope instanceof String s) {
            for (String part : s.trim().split("\\s+")) {
                if (!part.isEmpty()) {
                    scopes.add(part);
                }
            }
        } else if (scope instanceof Collection<?> c) {
            c.forEach(x -> scopes.add(String.valueOf(x)));
        }
        Object scp = jwt.getClaims().get("scp");
        if (scp instanceof Collection<?> c) {
            c.forEach(x -> scopes.add(String.valueOf(x)));
        } else if (scp instanceof String s) {
            scopes.add(s);
        }
        String subject = jwt.getSubject() != null ? jwt.getSubject() : "(no subject)";
        return new Caller(subject, List.copyOf(scopes));
    }

    /** Whether a scope grants {@code permission} on {@code path} ("/" = everything). */
    public boolean may(Permission permission, String path) {
        for (String s : scopes) {
            if (s.equals(permission.scope())) {
                return true;
            }
            String prefix = permission.scope() + ":";
            if (s.startsWith(prefix) && covers(s.substring(prefix.length()), path)) {
                return true;
            }
        }
        return false;
    }

    static boolean covers(String granted, String path) {
        if (granted.equals("/") || granted.isEmpty()) {
            return true;
        }
        String g = granted.endsWith("/") ? granted.substring(0, granted.length() - 1) : granted;
        return path.equals(g) || path.startsWith(g + "/");
    }

    /** Refuses with 403 unless allowed. */
    public void require(Permission permission, String path) {
        if (!may(permission, path)) {
            throw new WriteRefused(403, "Forbidden", "the token of '" + subject + "' has no scope "
                    + permission.scope() + ":<prefix> covering '" + path + "'");
        }
    }
}
