package dev.dbbulkhead.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.quartz.JobListener;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Each run of a Quartz job is a unit of work ({@link ListenedUnits}): told by a listener every Quartz
 * {@link Scheduler} bean is given, which Quartz calls on the worker thread that runs the job, before and after it.
 */
final class QuartzJobUnits implements BeanPostProcessor, JobListener {

    static final String NAME = "db-bulkhead units of work";

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof Scheduler scheduler) {
            try {
                scheduler.getListenerManager().addJobListener(this);
            } catch (SchedulerException failed) {
                throw new IllegalStateException("Could not listen to the runs of Quartz scheduler '" + beanName
                        + "'", failed);
            }
        }
        return bean;
    }

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public void jobToBeExecuted(JobExecutionContext context) {
        ListenedUnits.began(context);
    }

    @Override
    public void jobExecutionVetoed(JobExecutionContext context) {
        // Never begun: nothing to end.
    }

    @Override
    public void jobWasExecuted(JobExecutionContext context, @Nullable JobExecutionException failure) {
        ListenedUnits.ended(context);
    }
}
