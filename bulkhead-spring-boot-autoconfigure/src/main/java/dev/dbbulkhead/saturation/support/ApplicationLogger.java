package dev.dbbulkhead.saturation.support;

import java.text.MessageFormat;
import java.util.ResourceBundle;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A {@link System.Logger} that writes to the application's own log through Spring's logging bridge, for the core's
 * classes that take one: their lines land where the application's do, from start-up to the last line of shutdown,
 * rather than in {@code java.util.logging}, whose shutdown hook may run first.
 */
public final class ApplicationLogger implements System.Logger {

    private final String name;
    private final Log log;

    /** Writes under the logger named after {@code source}. */
    public ApplicationLogger(Class<?> source) {
        this.name = source.getName();
        this.log = LogFactory.getLog(source);
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public boolean isLoggable(Level level) {
        return switch (level) {
            case ALL, TRACE -> log.isTraceEnabled();
            case DEBUG -> log.isDebugEnabled();
            case INFO -> log.isInfoEnabled();
            case WARNING -> log.isWarnEnabled();
            case ERROR -> log.isErrorEnabled();
            case OFF -> false;
        };
    }

    @Override
    public void log(Level level, @Nullable ResourceBundle bundle, @Nullable String message, @Nullable Throwable thrown) {
        switch (level) {
            case ALL, TRACE -> log.trace(message, thrown);
            case DEBUG -> log.debug(message, thrown);
            case INFO -> log.info(message, thrown);
            case WARNING -> log.warn(message, thrown);
            case ERROR -> log.error(message, thrown);
            case OFF -> {
            }
        }
    }

    @Override
    public void log(Level level, @Nullable ResourceBundle bundle, @Nullable String format, @Nullable Object... params) {
        log(level, bundle, format == null || params == null || params.length == 0 ? format
                : MessageFormat.format(format, params), (Throwable) null);
    }
}
