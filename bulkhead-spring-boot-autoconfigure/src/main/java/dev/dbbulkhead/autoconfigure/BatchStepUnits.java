package dev.dbbulkhead.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.batch.core.ExitStatus;
import org.springframework.batch.core.listener.StepExecutionListener;
import org.springframework.batch.core.step.AbstractStep;
import org.springframework.batch.core.step.StepExecution;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Each run of a Spring Batch step bean is a unit of work, its chunks its operations ({@link ListenedUnits}): told by a
 * listener every step bean is given, which Batch calls on the thread that runs the step, before it and — whatever
 * its outcome — after it. The chunks of a multi-threaded step run on other threads, each outside the unit.
 */
final class BatchStepUnits implements BeanPostProcessor, StepExecutionListener {

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof AbstractStep step) {
            step.registerStepExecutionListener(this);
        }
        return bean;
    }

    @Override
    public void beforeStep(StepExecution stepExecution) {
        ListenedUnits.began(stepExecution);
    }

    @Override
    public @Nullable ExitStatus afterStep(StepExecution stepExecution) {
        ListenedUnits.ended(stepExecution);
        return null;
    }
}
