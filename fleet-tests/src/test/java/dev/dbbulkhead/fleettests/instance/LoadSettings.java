package dev.dbbulkhead.fleettests.instance;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The load an instance runs: {@code callers} virtual threads, each running transactions of {@code work} on the
 * server in a closed loop, a refused or failed one backing off for {@code backOff}.
 *
 * @param callers how many threads call at once; more than the pool, so that the pool always wants all it may have
 * @param work    how long each transaction holds its connection on the server ({@code pg_sleep})
 * @param backOff how long a refused or failed caller waits before it calls again
 */
@ConfigurationProperties("fleet-instance")
public record LoadSettings(int callers, Duration work, Duration backOff) {
}
