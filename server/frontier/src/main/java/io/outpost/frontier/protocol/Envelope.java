package io.outpost.frontier.protocol;

/**
 * The XML envelope of a Frontier response, as upstream servlet 3.42 writes it: the prologue, the transaction, each
 * payload's start and quality element, a global error and the end tag. Only the text; the caller sends it.
 */
public final class Envelope {
    public static final String FRONTIER_VERSION = "3.42";
    public static final String XML_VERSION = "1.0";
    /** The XML declaration, the DTD and the opening frontier element. */
    public static final String PROLOGUE = "<?xml version=\"1.0\" encoding=\"US-ASCII\"?>\n"
            + "<!DOCTYPE frontier SYSTEM \"http://frontier.fnal.gov/frontier.dtd\">\n"
            + "<frontier version=\"" + FRONTIER_VERSION + "\" xmlversion=\"" + XML_VERSION + "\">\n";
    public static final String TRANSACTION_END = " </transaction>\n";
    public static final String END = "</frontier>\n";

    private Envelope() {
    }

    public static String transactionStart(int payloads) {
        return " <transaction payloads=\"" + payloads + "\">\n";
    }

    /** The payload element and the start of its data. */
    public static String payloadStart(FrontierCommand cmd) {
        return "  <payload type=\"" + xml(cmd.objectName()) + "\" version=\"" + xml(cmd.objectVersion())
                + "\" encoding=\"" + xml(cmd.encoding()) + "\">\n   <data>";
    }

    /**
     * The end of a payload's data and its quality element.
     *
     * @param message  the error text, shown after the server name; empty when none
     * @param maxAge   written when positive
     * @param check    the checksum attribute (e.g. {@code md5="..."}), or empty
     * @param records  written when not negative
     */
    public static String payloadEnd(String serverName, boolean error, String message, long maxAge, String check,
                                    long records, long fullSize) {
        StringBuilder b = new StringBuilder("</data>\n   <quality error=\"").append(error ? 1 : 0).append("\" ");
        if (!message.isEmpty()) {
            b.append("message=\"").append(xml(serverName + " " + message)).append("\" ");
        }
        if (maxAge > 0) {
            b.append("max_age=\"").append(maxAge).append("\" ");
        }
        if (!check.isEmpty()) {
            b.append(check).append(' ');
        }
        if (records >= 0) {
            b.append("records=\"").append(records).append("\" ");
        }
        return b.append("full_size=\"").append(fullSize).append("\"/>\n  </payload>\n").toString();
    }

    public static String globalError(String serverName, String message) {
        return "\n  <global_error msg=\"" + xml(serverName + " " + message) + "\"/>\n";
    }

    /** Upstream xml_str: escapes &amp; ' " &gt; &lt;; other non-ASCII-printable characters become '?'. */
    public static String xml(String s) {
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '\'' -> b.append("&apos;");
                case '"' -> b.append("&quot;");
                case '>' -> b.append("&gt;");
                case '<' -> b.append("&lt;");
                default -> b.append(c >= 0x20 && c < 0x7f ? c : c == '\n' || c == '\t' ? ' ' : '?');
            }
        }
        return b.toString();
    }
}
