package io.outpost.frontier.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The envelope's text, element by element, as upstream servlet 3.42 writes it. */
class EnvelopeTest {
    private static final FrontierCommand CMD = new FrontierCommand("type", "frontier_request", "1", "DEFAULT",
            "BLOBzip5", Map.of());

    @Test
    void prologueTransactionAndPayloadStartAreUpstreams() {
        assertThat(Envelope.PROLOGUE).isEqualTo("<?xml version=\"1.0\" encoding=\"US-ASCII\"?>\n"
                + "<!DOCTYPE frontier SYSTEM \"http://frontier.fnal.gov/frontier.dtd\">\n"
                + "<frontier version=\"3.42\" xmlversion=\"1.0\">\n");
        assertThat(Envelope.transactionStart(2)).isEqualTo(" <transaction payloads=\"2\">\n");
        assertThat(Envelope.payloadStart(CMD)).isEqualTo(
                "  <payload type=\"frontier_request\" version=\"1\" encoding=\"BLOBzip5\">\n   <data>");
    }

    @Test
    void qualityElementsCarryOnlyWhatIsSet() {
        assertThat(Envelope.payloadEnd("srv", false, "", 0, "md5=\"ab\"", 3, 42)).isEqualTo(
                "</data>\n   <quality error=\"0\" md5=\"ab\" records=\"3\" full_size=\"42\"/>\n  </payload>\n");
        assertThat(Envelope.payloadEnd("srv", true, "bad <sql>", 300, "", -1, 0)).isEqualTo(
                "</data>\n   <quality error=\"1\" message=\"srv bad &lt;sql&gt;\" max_age=\"300\" full_size=\"0\"/>\n"
                        + "  </payload>\n");
        assertThat(Envelope.globalError("srv", "Error: no query")).isEqualTo(
                "\n  <global_error msg=\"srv Error: no query\"/>\n");
    }

    @Test
    void textIsEscapedAsUpstreamXmlStr() {
        assertThat(Envelope.xml("a&'\"<>\n\tb\u00e9")).isEqualTo("a&amp;&apos;&quot;&lt;&gt;  b?");
    }
}
