package dev.dbbulkhead.benchmarks.alternatives;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.FixedLimit;
import com.netflix.concurrency.limits.limiter.AbstractPartitionedLimiter;
import java.util.List;
import java.util.function.Function;

/**
 * Netflix concurrency-limits' partitioned limiter with a fixed limit: each partition is guaranteed its percentage of
 * the limit, and may go beyond it while the limit as a whole is not reached. There is no queue: a call over both is
 * refused at once. Partitions are named in advance; a context no partition claims runs in the library's
 * {@code unknown} partition.
 */
public final class PartitionedLimiters {

    private PartitionedLimiters() {
    }

    /** A limiter of {@code limit} whose context is the partition's name, {@code partitions} sharing it equally. */
    public static Limiter<String> equalPartitions(int limit, List<String> partitions) {
        EqualPartitions builder = new EqualPartitions().limit(FixedLimit.of(limit)).partitionResolver(Function.identity());
        for (String partition : partitions) {
            builder.partition(partition, 1.0 / partitions.size());
        }
        return builder.build();
    }

    /** The library's builder is abstract in the type it returns; this is its concrete form. */
    private static final class EqualPartitions extends AbstractPartitionedLimiter.Builder<EqualPartitions, String> {

        @Override
        protected EqualPartitions self() {
            return this;
        }
    }
}
