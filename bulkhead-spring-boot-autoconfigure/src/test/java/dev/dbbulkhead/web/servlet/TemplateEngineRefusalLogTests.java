package dev.dbbulkhead.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.spi.FilterReply;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import org.junit.jupiter.api.Test;

/** Only the template engine's ERROR for a refusal is dropped; everything else it, or anyone, logs stays. */
class TemplateEngineRefusalLogTests {

    private final LoggerContext logback = new LoggerContext();
    private final Logger templateEngine = logback.getLogger("org.thymeleaf.TemplateEngine");
    private final Logger application = logback.getLogger("com.example.PetController");
    private final TemplateEngineRefusalLog filter = new TemplateEngineRefusalLog();
    private final RuntimeException refusalWhileRendering = new IllegalStateException("Exception evaluating SpringEL",
            new BulkheadRejectedException("orders", RejectionReason.ADMISSION_FULL, false));

    @Test
    void theTemplateEnginesErrorForARefusalIsDropped() {
        assertThat(filter.decide(null, templateEngine, Level.ERROR, "failed", null, refusalWhileRendering))
                .isEqualTo(FilterReply.DENY);
    }

    @Test
    void theTemplateEnginesErrorsForAnythingElseStay() {
        assertThat(filter.decide(null, templateEngine, Level.ERROR, "failed", null,
                new IllegalStateException("a mistake in the template"))).isEqualTo(FilterReply.NEUTRAL);
        assertThat(filter.decide(null, templateEngine, Level.ERROR, "failed", null, null))
                .isEqualTo(FilterReply.NEUTRAL);
    }

    @Test
    void aRefusalLoggedByAnyoneElseOrBelowErrorStays() {
        assertThat(filter.decide(null, application, Level.ERROR, "failed", null, refusalWhileRendering))
                .isEqualTo(FilterReply.NEUTRAL);
        assertThat(filter.decide(null, templateEngine, Level.WARN, "failed", null, refusalWhileRendering))
                .isEqualTo(FilterReply.NEUTRAL);
    }
}
