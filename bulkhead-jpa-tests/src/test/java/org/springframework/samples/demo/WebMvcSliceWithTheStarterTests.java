package org.springframework.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

import dev.dbbulkhead.jdbc.ungated.UngatedConnectionException;
import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.test.AutoConfigureDbBulkhead;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.AutoConfigureDataJpa;
import org.springframework.boot.jdbc.test.autoconfigure.AutoConfigureTestDatabase;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;

/**
 * A {@code @WebMvcTest} of the application's controllers on Spring Data JPA (its {@code JpaTransactionManager}),
 * opted in with {@link AutoConfigureDbBulkhead}, in {@code fail} mode: the {@code @ModelAttribute} loader and the
 * formatter that borrow outside every gate are refused, each named by its own class and method.
 */
@WebMvcTest(controllers = {OwnerController.class, OwnerSearchController.class},
        properties = "db.bulkhead.ungated.mode=fail")
@AutoConfigureDataJpa
@AutoConfigureTestDatabase(replace = AutoConfigureTestDatabase.Replace.NONE)
@AutoConfigureDbBulkhead
@Import(OwnerFormatter.class) // a slice includes converters, not formatters
@Timeout(value = 3, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class WebMvcSliceWithTheStarterTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    @Autowired
    MockMvc mvc;

    @Test
    void theLoaderAndTheFormatterThatBorrowOutsideEveryGateAreRefusedAndNamedByTheirOwnClassAndMethod() {
        assertThat(refusal("/owners/1").callSite()).satisfies(site -> {
            assertThat(site.className()).isEqualTo(OwnerController.class.getName());
            assertThat(site.methodName()).isEqualTo("findOwner");
            assertThat(site.application()).isTrue();
        });
        assertThat(refusal("/by-name/ada").callSite()).satisfies(site -> {
            assertThat(site.className()).isEqualTo(OwnerFormatter.class.getName());
            assertThat(site.methodName()).isEqualTo("parse");
            assertThat(site.application()).isTrue();
        });
    }

    /** The refusal in the cause chain of what asking {@code path} threw or answered. */
    private UngatedConnectionException refusal(String path) {
        Throwable failed = catchThrowable(() -> {
            Throwable resolved = mvc.perform(get(path)).andReturn().getResolvedException();
            if (resolved != null) {
                throw resolved;
            }
        });
        assertThat(failed).as(path).isNotNull();
        Throwable cause = failed;
        while (cause != null && !(cause instanceof UngatedConnectionException)) {
            cause = cause.getCause();
        }
        assertThat(cause).as(path + ": " + failed).isInstanceOf(UngatedConnectionException.class);
        return (UngatedConnectionException) cause;
    }
}
