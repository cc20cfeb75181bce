package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** A Spring MVC application with the actuator and a Prometheus registry, behind the bulkheads of application.yml. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({WebTestApplication.Workloads.class, WebTestApplication.OwnHandling.class,
        WebTestApplication.OwnRejectionHandler.class})
class WebTestApplication {

    /** Runs one admitted operation of the named workload. */
    @RestController
    static class Workloads {

        private final BulkheadRegistry registry;

        Workloads(BulkheadRegistry registry) {
            this.registry = registry;
        }

        @GetMapping("/workloads/{name}")
        Integer run(@PathVariable String name) {
            return registry.template(name).execute(status -> 42);
        }
    }

    /** The same under /own-handling, in a controller whose rejections the application handles itself. */
    @RestController
    @RequestMapping("/own-handling")
    static class OwnHandling extends Workloads {

        OwnHandling(BulkheadRegistry registry) {
            super(registry);
        }
    }

    /** An application's own handler, unordered like most: it must win over the built-in one. */
    @RestControllerAdvice(assignableTypes = OwnHandling.class)
    static class OwnRejectionHandler {

        @ExceptionHandler(BulkheadRejectedException.class)
        ResponseEntity<String> rejected(BulkheadRejectedException rejection) {
            return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).body("own handler: " + rejection.workload());
        }
    }
}
