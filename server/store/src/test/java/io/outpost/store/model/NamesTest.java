package io.outpost.store.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.store.StoreException;
import org.junit.jupiter.api.Test;

/** The one rule for new names: what it refuses, and that it says which name and what is wrong. */
class NamesTest {

    @Test
    void refusesWhiteSpaceAtEitherEndNamingTheCharacter() {
        assertRefused(() -> Names.checkChannelName("ch0 "), "channel name 'ch0 ' ends with white space (U+0020)");
        assertRefused(() -> Names.checkChannelName(" ch0"), "channel name ' ch0' starts with white space (U+0020)");
        assertRefused(() -> Names.checkChannelName("ch0\u00A0"), "ends with white space (U+00A0)");
        assertRefused(() -> Names.checkChannelName("\u3000ch0"), "starts with white space (U+3000)");
        assertRefused(() -> Names.checkTagName(Names.Kind.TAG, "T1 "), "tag name 'T1 ' ends with white space");
        assertRefused(() -> Names.checkTagName(Names.Kind.GLOBAL_TAG, " GT"), "global tag name ' GT' starts with");
        assertRefused(() -> Names.checkPath("/det/f "), "node path '/det/f ' ends with white space");
    }

    @Test
    void refusesControlCharactersAndLoneSurrogatesShowingThemEscaped() {
        assertRefused(() -> Names.checkChannelName("ch\t0"),
                "channel name 'ch\\u00090' contains the control character U+0009 at position 3");
        assertRefused(() -> Names.checkChannelName("ch\u00000"), "control character U+0000 at position 3");
        assertRefused(() -> Names.checkChannelName("ch\uD800"), "a lone surrogate U+D800 at position 3");
        assertRefused(() -> Names.checkChannelName(""), "channel name must not be empty");
        assertRefused(() -> Names.checkChannelName(null), "channel name must not be empty");
        assertRefused(() -> Names.checkChannelName("x".repeat(256)), "is 256 characters long; at most 255");
    }

    @Test
    void acceptsWhatCouldOnlyMeanItself() {
        // inner spaces, other scripts, either normal form, case: each is its own name, stored as written
        for (String name : new String[] {"ch 0", "сh0", "Caf\u00E9", "Cafe\u0301", "CH0", "\uD83D\uDE00 ok", "x".repeat(255)}) {
            assertThatCode(() -> Names.checkChannelName(name)).as(name).doesNotThrowAnyException();
        }
        assertThatCode(() -> Names.checkTagName(Names.Kind.TAG, "t1")).doesNotThrowAnyException();
        assertThatCode(() -> Names.checkPath("/Det/F")).doesNotThrowAnyException();
        // paths and tags keep their own syntax
        assertRefused(() -> Names.checkTagName(Names.Kind.TAG, "Tа"), "tag name 'Tа' must be letters, digits");
        assertRefused(() -> Names.checkPath("/det//f"), "node path '/det//f' must look like /A/B/C");
    }

    @Test
    void lookupsOfNamesNoDatabaseCouldHoldAreAnsweredWithoutAsking() {
        assertThat(Names.couldBeStored("ch0 ")).isTrue();
        assertThat(Names.couldBeStored("\uD83D\uDE00")).isTrue();
        assertThat(Names.couldBeStored("ch\u0000")).isFalse();
        assertThat(Names.couldBeStored("ch\uD800")).isFalse();
        assertThat(Names.couldBeStored("ch\uDC00x")).isFalse();
        assertThat(Names.couldBeStored(null)).isFalse();
    }

    private static void assertRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
        assertThatThrownBy(call).isInstanceOf(StoreException.class).hasMessageContaining(message)
                .extracting(e -> ((StoreException) e).kind()).isEqualTo(StoreException.Kind.INVALID_ARGUMENT);
    }
}
