package dev.dbbulkhead.annotation;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What the {@code @DbBulkhead} advisor reaches by reflection, for applications processed ahead of time: Spring's
 * choice of a transactional method's transaction manager, which the start-up checks ask
 * ({@link DeclaredTransactions}).
 */
final class DbBulkheadRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.reflection().registerMethod(DeclaredTransactions.DETERMINE_TRANSACTION_MANAGER, ExecutableMode.INVOKE);
    }
}
