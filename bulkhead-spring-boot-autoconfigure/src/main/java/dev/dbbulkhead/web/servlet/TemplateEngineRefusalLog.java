package dev.dbbulkhead.web.servlet;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.jspecify.annotations.Nullable;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;

/**
 * Keeps out of Logback's log the ERROR, with its stack trace of some hundred lines, that a template engine writes for
 * a rejection raised while it renders — a formatter or a model accessor that runs a gated lookup for each option of a
 * {@code <select>}. Thymeleaf logs whatever fails inside a template before it rethrows it; the rejection then reaches
 * {@link BulkheadRejectionFilter}, which answers it with a 503 and {@code Retry-After} and logs one line at DEBUG.
 * Only events of the template engine's loggers at ERROR whose exception has a rejection, or a deadline exceeded, among
 * its causes are dropped; everything else the engine logs stays.
 *
 * <p>Added to Logback's context while the application runs, when Logback is the logging system.
 */
public final class TemplateEngineRefusalLog extends TurboFilter implements InitializingBean, DisposableBean {

    /** The loggers of the template engine: Thymeleaf's. */
    private static final String TEMPLATE_ENGINE_LOGGERS = "org.thymeleaf.";

    private @Nullable LoggerContext installedIn;

    @Override
    public FilterReply decide(@Nullable Marker marker, Logger logger, Level level, @Nullable String format,
                              Object @Nullable [] params, @Nullable Throwable failure) {
        // Cheapest test first: almost every event has no exception.
        if (failure != null && level == Level.ERROR && logger.getName().startsWith(TEMPLATE_ENGINE_LOGGERS)
                && BulkheadRejectionResponder.overloadIn(failure) != null) {
            return FilterReply.DENY;
        }
        return FilterReply.NEUTRAL;
    }

    @Override
    public void afterPropertiesSet() {
        ILoggerFactory loggers = LoggerFactory.getILoggerFactory();
        if (loggers instanceof LoggerContext logback) {
            setName("db-bulkhead template engine refusals");
            setContext(logback);
            start();
            logback.addTurboFilter(this);
            installedIn = logback;
        }
    }

    @Override
    public void destroy() {
        LoggerContext logback = installedIn;
        if (logback != null) {
            logback.getTurboFilterList().remove(this);
            stop();
            installedIn = null;
        }
    }
}
