package dev.dbbulkhead.transaction;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import dev.dbbulkhead.limit.LimitChange;
import dev.dbbulkhead.limit.LimitSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** What the registry of adaptive limits tells the application's log. */
@ExtendWith(OutputCaptureExtension.class)
class AdaptiveLimitsTests {

    @Test
    void aBurstOfChangesIsLoggedOnceAtInfoWithWhatWasLearnt(CapturedOutput output) {
        LimitChange change = new LimitChange("orders", 20, 4, 1_250_000_000L,
                new LimitSnapshot(4, 4, 4.2, 3_000_000L, 12_400_000L, false));

        AdaptiveLimits.log(change);

        String line = "db-bulkhead workload 'orders': adaptive limit 20 -> 4 over 1250 ms (median hold time 12.4 ms"
                + " against 3.0 ms without load)";
        assertThat(output.getAll().lines().filter(logged -> logged.contains(line))).singleElement(as(STRING))
                .contains("INFO");
    }
}
