package io.outpost.frontier.encode;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Text held whole up to the limit and passed on by reference at close; past the limit, passed on as it comes. */
class AnswerTextTest {

    /** Records what it is given and how: by reference or copied. */
    private static final class Sink extends ByteArrayOutputStream implements SharedWrites {
        final List<byte[]> shared = new ArrayList<>();

        @Override
        public void writeShared(byte[] b) {
            shared.add(b);
            writeBytes(b);
        }
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) ('a' + seed));
        return b;
    }

    @Test
    void textWithinTheLimitIsPassedOnByReferenceAtClose() throws Exception {
        Sink sink = new Sink();
        AnswerText text = new AnswerText(sink, 100 << 10);
        text.write(bytes(40 << 10, 0)); // more than the first buffer: it grows
        text.flush();
        text.write('x');
        text.write(bytes(50 << 10, 1));
        assertThat(sink.size()).as("nothing before close, flush included").isZero();
        text.close();
        assertThat(sink.shared.stream().mapToInt(b -> b.length).sum()).as("all of it by reference")
                .isEqualTo((90 << 10) + 1);
        assertThat(sink.size()).isEqualTo((90 << 10) + 1);
        assertThat(sink.toByteArray()[40 << 10]).isEqualTo((byte) 'x');
    }

    @Test
    void textPastTheLimitIsPassedOnAsItComes() throws Exception {
        Sink sink = new Sink();
        AnswerText text = new AnswerText(sink, 64 << 10);
        text.write(bytes(40 << 10, 0));
        text.write(bytes(40 << 10, 1));
        assertThat(sink.size()).as("the held part went out when the limit was passed").isGreaterThanOrEqualTo(40 << 10);
        text.write(bytes(100, 2));
        text.close();
        assertThat(sink.shared).isEmpty();
        byte[] all = sink.toByteArray();
        assertThat(all).hasSize((80 << 10) + 100);
        assertThat(all[(40 << 10) - 1]).isEqualTo((byte) 'a');
        assertThat(all[40 << 10]).isEqualTo((byte) 'b');
        assertThat(all[all.length - 1]).isEqualTo((byte) 'c');
    }

    @Test
    void withoutALimitTextGoesOnInPieces() throws Exception {
        Sink sink = new Sink();
        AnswerText text = new AnswerText(sink);
        text.write(bytes(10, 0));
        text.flush();
        assertThat(sink.size()).isEqualTo(10);
        text.close();
        assertThat(sink.shared).isEmpty();
    }

    @Test
    void joinedTextHeldWholeGoesOnAsOneArrayAndIsKept() throws Exception {
        Sink sink = new Sink();
        AnswerText text = new AnswerText(sink, 100 << 10, true);
        text.write(bytes(40 << 10, 0));
        text.write('x');
        text.write(bytes(50 << 10, 1));
        text.close();
        assertThat(sink.shared).as("one array, by reference").hasSize(1);
        assertThat(text.wholeText()).isSameAs(sink.shared.get(0)).isEqualTo(sink.toByteArray())
                .hasSize((90 << 10) + 1);
        assertThat(text.wholeText()[40 << 10]).isEqualTo((byte) 'x');
    }

    @Test
    void joinedTextPastTheLimitIsNotKept() throws Exception {
        Sink sink = new Sink();
        AnswerText text = new AnswerText(sink, 64 << 10, true);
        text.write(bytes(40 << 10, 0));
        text.write(bytes(40 << 10, 1));
        text.close();
        assertThat(text.wholeText()).isNull();
        assertThat(sink.shared).isEmpty();
        assertThat(sink.size()).isEqualTo(80 << 10);
    }
}
