package io.outpost.client.pac;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** What a compiled PAC file shares with later clients and with other files (docs/client-failover.md). */
class PacScriptTest {
    static final String HOST = "db.site.example";

    static String answering(String answer) {
        return "function FindProxyForURL(url, host) { return '" + answer + "'; }";
    }

    @Test
    void theSameTextFromTheSameUrlIsCompiledOnceAndAChangedTextAgain() {
        String url = "http://pac.example/reuse.pac";
        PacScript first = PacScript.compile(answering("PROXY a.example:3128"), url);
        assertThat(PacScript.compile(answering("PROXY a.example:3128"), url)).isSameAs(first);
        assertThat(PacScript.compile(answering("PROXY a.example:3128"), "http://pac.example/other.pac"))
                .isNotSameAs(first);

        PacScript changed = PacScript.compile(answering("DIRECT"), url);
        assertThat(changed).isNotSameAs(first);
        assertThat(changed.findProxy("http://" + HOST + ":8000", HOST)).isEqualTo("DIRECT");
        assertThat(PacScript.compile(answering("DIRECT"), url)).isSameAs(changed);
    }

    @Test
    void aFileThatDoesNotParseIsAnErrorEachTimeAndNotKept() {
        String url = "http://pac.example/broken.pac";
        PacScript good = PacScript.compile(answering("DIRECT"), url);
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> PacScript.compile("function FindProxyForURL(url, host) {", url))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(url)
                    .hasMessageContaining("does not parse");
        }
        assertThat(PacScript.compile(answering("DIRECT"), url)).isSameAs(good);
    }

    @Test
    void oneFileCannotChangeTheHelpersOrStandardObjectsAnotherFileSees() {
        PacScript meddling = PacScript.compile("shExpMatch = function () { return true; };\n"
                + "Object.prototype.planted = 1;\n"
                + "String.prototype.toLowerCase = function () { return 'x'; };\n"
                + "function FindProxyForURL(url, host) {\n"
                + "  return shExpMatch(host, 'nothing') ? 'DIRECT' : 'PROXY m:1';\n}",
                "http://pac.example/meddling.pac");
        assertThat(meddling.findProxy("http://" + HOST + ":8000", HOST)).as("the file's own change applies to it")
                .isEqualTo("DIRECT");

        PacScript other = PacScript.compile("function FindProxyForURL(url, host) {\n"
                + "  if (shExpMatch(host, 'nothing') || ({}).planted !== undefined || 'AB'.toLowerCase() !== 'ab') {\n"
                + "    return 'PROXY leaked:1';\n"
                + "  }\n"
                + "  return dnsDomainIs(host, '.SITE.example') ? 'PROXY clean.example:3128' : 'DIRECT';\n}",
                "http://pac.example/other-site.pac");
        assertThat(other.findProxy("http://" + HOST + ":8000", HOST)).isEqualTo("PROXY clean.example:3128");
    }
}
