package dev.dbbulkhead.jdbc.ungated;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClassNameMemoTests {

    @Test
    void eachClassIsAskedOnceAndTheSameAnswerComesBack() {
        List<String> asked = new ArrayList<>();
        ClassNameMemo<Integer> memo = new ClassNameMemo<>(name -> {
            asked.add(name);
            return name.length();
        });

        assertThat(memo.of("com.example.Shop")).isEqualTo(16);
        assertThat(memo.of("com.example.Shop")).isEqualTo(16);
        assertThat(memo.of("org.example.Other")).isEqualTo(17);

        assertThat(asked).containsExactly("com.example.Shop", "org.example.Other");
    }

    @Test
    void pastItsBoundItKeepsNothingMoreAndStillAnswersRight() {
        List<String> asked = new ArrayList<>();
        ClassNameMemo<String> memo = new ClassNameMemo<>(name -> {
            asked.add(name);
            return name.toUpperCase(java.util.Locale.ROOT);
        });
        for (int i = 0; i < ClassNameMemo.MAX_NAMES; i++) {
            memo.of("com.example.Generated" + i);
        }
        asked.clear();

        assertThat(memo.of("com.example.Generated0")).as("kept").isEqualTo("COM.EXAMPLE.GENERATED0");
        assertThat(memo.of("com.example.Late")).isEqualTo("COM.EXAMPLE.LATE");
        assertThat(memo.of("com.example.Late")).isEqualTo("COM.EXAMPLE.LATE");

        assertThat(asked).as("a name past the bound is answered each time, not kept")
                .containsExactly("com.example.Late", "com.example.Late");
    }
}
