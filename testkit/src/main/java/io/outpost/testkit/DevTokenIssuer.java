package io.outpost.testkit;

import java.io.PrintStream;

/**
 * For development only ({@code ./outpost dev-token}): a token issuer on this machine's loopback interface, to try the
 * write API locally. It signs with a key made at start and accepts no logins: whoever runs it gets a token. A
 * production service trusts the site's identity provider instead (docs/operations.md, "Write API"); nothing in the
 * service changes for this, it checks these tokens as it checks any.
 */
public final class DevTokenIssuer {
    static final String DEFAULT_SCOPES = "conditions.write conditions.lock conditions.globaltag conditions.audit";
    private static final long LIFETIME_SECONDS = 12 * 3600;

    private DevTokenIssuer() {
    }

    public static void main(String[] args) throws InterruptedException {
        TokenIssuer issuer;
        try {
            issuer = start(args, System.out);
        } catch (IllegalArgumentException e) {
            System.err.println("dev-token: " + e.getMessage());
            System.err.println("usage: ./outpost dev-token [--port N (default 8090)] [--scopes 'S1 S2'] [--subject NAME]");
            System.exit(2);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(issuer::close));
        Thread.currentThread().join();   // serves discovery and keys until Ctrl-C
    }

    /** Starts the issuer and prints how to use it: the service's option, the token. */
    static TokenIssuer start(String[] args, PrintStream out) {
        int port = 8090;
        String scopes = DEFAULT_SCOPES;
        String subject = "developer";
        for (int i = 0; i < args.length; i++) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("'" + args[i] + "' needs a value");
            }
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--scopes" -> scopes = args[++i];
                case "--subject" -> subject = args[++i];
                default -> throw new IllegalArgumentException("unknown option '" + args[i] + "'");
            }
        }
        TokenIssuer issuer = new TokenIssuer(port);
        out.println("Development token issuer (not for production) at " + issuer.issuerUri());
        out.println("Start the service with:");
        out.println("  ./outpost start --outpost.write.issuer-uri=" + issuer.issuerUri());
        out.println("A token for '" + subject + "' with scopes '" + scopes + "', valid 12 hours:");
        out.println("  export OUTPOST_TOKEN=" + issuer.token(subject, scopes, LIFETIME_SECONDS));
        out.println("Keep this running while you write (the service reads the issuer's keys); Ctrl-C stops it.");
        out.flush();
        return issuer;
    }
}
