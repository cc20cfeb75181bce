package dev.dbbulkhead.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class RetryAfterTests {

    @Test
    void everyValueFromTheRetryAfterToItPlusTheJitterIsDrawnAndNoOther() {
        RetryAfter retryAfter = new RetryAfter(3, 2);
        SplittableRandom random = new SplittableRandom(42);

        TreeSet<Long> drawn = new TreeSet<>();
        LongStream.range(0, 200).forEach(answer -> drawn.add(retryAfter.draw(random)));

        assertThat(drawn).containsExactly(3L, 4L, 5L);
    }

    @Test
    void withoutJitterEveryAnswerSaysTheSame() {
        RetryAfter retryAfter = new RetryAfter(7, 0);

        assertThat(LongStream.range(0, 50).map(answer -> retryAfter.draw(new SplittableRandom(answer))))
                .containsOnly(7L);
    }

    @Test
    void lessThanOneSecondOrANegativeJitterIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> new RetryAfter(0, 1))
                .withMessage("Retry-After must be at least 1s with a jitter of 0s or more, was 0s + up to 1s");
        assertThatIllegalArgumentException().isThrownBy(() -> new RetryAfter(1, -1));
    }
}
