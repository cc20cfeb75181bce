package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.jdbc.ungated.WorkRules;
import org.jspecify.annotations.Nullable;
import org.springframework.batch.core.scope.context.StepContext;
import org.springframework.batch.core.scope.context.StepSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * The Spring Batch step a thread runs, as Batch keeps it on the thread for a step and for each chunk of a
 * multi-threaded one: a thread-local read, no stack walk. Loaded only when Spring Batch is on the class path.
 */
final class BatchSteps implements WorkRules.Steps {

    private static final String SYNCHRONIZATION = "org.springframework.batch.core.scope.context.StepSynchronizationManager";

    private BatchSteps() {
    }

    /** The steps of Spring Batch when the application has it, else {@link WorkRules.Steps#NONE}. */
    static WorkRules.Steps ofClassPath(@Nullable ClassLoader classLoader) {
        return ClassUtils.isPresent(SYNCHRONIZATION, classLoader) ? new BatchSteps() : WorkRules.Steps.NONE;
    }

    @Override
    public @Nullable String current() {
        StepContext step = StepSynchronizationManager.getContext();
        return step == null ? null : step.getJobName() + "." + step.getStepName();
    }
}
