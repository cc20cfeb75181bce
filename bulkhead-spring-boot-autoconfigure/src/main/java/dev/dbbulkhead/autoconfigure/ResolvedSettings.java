package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.saturation.support.DatabaseLimits;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The resolution and validation of {@code db.bulkhead.*} values that the auto-configurations of other concerns
 * (HTTP, fleet) share with this package: a workload's own value, else the defaults', else the built-in one,
 * refused at start-up under the property that set it. Each reads only the keys it answers for, through the same
 * key table ({@code WorkloadKeys}) and checks as the settings {@code ResolvedWorkloads} resolves once for each
 * workload: its callers hold the properties, not those settings. Part of the auto-configuration, not API.
 */
public final class ResolvedSettings {

    private ResolvedSettings() {
    }

    /**
     * The Retry-After of workload {@code workload}, or of the defaults for a null name, in whole seconds rounded up.
     *
     * @throws BulkheadConfigurationException when the value is not above zero, or longer than a day
     */
    public static long retryAfterSeconds(@Nullable String workload, BulkheadProperties properties) {
        return RetryAfter.seconds(WorkloadResolver.of(workload, properties));
    }

    /**
     * The most added at random to the Retry-After of workload {@code workload} (or of the defaults, for a null name),
     * in whole seconds rounded up: by default the Retry-After itself.
     *
     * @throws BulkheadConfigurationException when the value is negative, or longer than a day
     */
    public static long retryAfterJitterSeconds(@Nullable String workload, BulkheadProperties properties) {
        WorkloadResolver resolver = WorkloadResolver.of(workload, properties);
        return RetryAfter.jitterSeconds(resolver, () -> RetryAfter.seconds(resolver));
    }

    /**
     * How the database's saturation limits workload {@code workload}: empty with {@code limit.database=off}. The
     * floor is {@code limit.min-concurrent} (default 1), the ceiling {@code limit.max-concurrent} (default B).
     *
     * @throws BulkheadConfigurationException for a floor outside 1..B, a ceiling below B, or a limit without the
     *                                        database's signals to follow
     */
    public static Optional<DatabaseLimits.Setting> databaseLimit(String workload, BulkheadProperties properties) {
        WorkloadResolver resolver = WorkloadResolver.of(workload, properties);
        return LimitSettings.database(resolver, workload, resolver.get(WorkloadKeys.LIMIT_DATABASE),
                resolver.get(WorkloadKeys.MAX_CONCURRENT).value(), properties);
    }

    /**
     * The key that lets workload {@code workload}'s B move by itself, {@code limit.mode=adaptive} or
     * {@code limit.database=steer}, as the workload or the defaults set it. Empty when only the configuration, a resize
     * and a fleet share move B.
     */
    public static Optional<SelfResizingLimit> selfResizingLimit(String workload, BulkheadProperties properties) {
        WorkloadResolver resolver = WorkloadResolver.of(workload, properties);
        return LimitSettings.selfResizing(resolver.get(WorkloadKeys.LIMIT_MODE),
                        resolver.get(WorkloadKeys.LIMIT_DATABASE))
                .map(setting -> new SelfResizingLimit(setting.property(), setting.value()));
    }

    /**
     * A key that lets a workload's B move by itself.
     *
     * @param property the key as written, under the workload or the defaults
     * @param value    its value: {@code adaptive} or {@code steer}
     */
    public record SelfResizingLimit(String property, String value) {
    }

    /**
     * The beans workload {@code workload} names for its transactions, its own or the defaults': a transaction
     * manager decides its data source when named; else a data source named alone is the one it uses; else the
     * primary transaction manager decides.
     */
    public static TransactionBeans transactionBeans(String workload, BulkheadProperties properties) {
        WorkloadResolver resolver = WorkloadResolver.of(workload, properties);
        return new TransactionBeans(resolver.get(WorkloadKeys.TRANSACTION_MANAGER).value(),
                resolver.get(WorkloadKeys.DATA_SOURCE).value());
    }

    /**
     * The bean names a workload's {@code transaction-manager} and {@code data-source} keys hold.
     *
     * @param transactionManager the transaction manager named, or null
     * @param dataSource         the data source named, or null
     */
    public record TransactionBeans(@Nullable String transactionManager, @Nullable String dataSource) {
    }

    /**
     * Applies {@code check} to the value of {@code property}; an {@link IllegalArgumentException} it throws becomes
     * the start-up failure that names the property, the value and, from the refusal's message, the allowed range.
     *
     * @throws BulkheadConfigurationException when {@code check} refuses the value
     */
    public static <T extends @Nullable Object, R extends @Nullable Object> R requireValid(String property, T value,
                                                                                       Function<T, R> check) {
        try {
            return check.apply(value);
        } catch (IllegalArgumentException refused) {
            throw BulkheadConfigurationException.invalidProperty(property, value,
                    String.valueOf(refused.getMessage()));
        }
    }
}
